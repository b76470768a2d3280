/**
 * Which part of the domain decides each kind of change: one case per mutation kind. A change
 * applied alone (anything but a tap, which taps.ts applies in coalesced runs) takes the group's
 * next change number if it succeeds, and its entries and operation id are recorded.
 */
import { changeAlerts } from './alert-config.js';
import { createCounter, deleteCounter, patchCounter } from './counters.js';
import { applyImport } from './import.js';
import { changeAccess, patchGroup, reorder, updateSection } from './group-settings.js';
import { rememberId } from './operation-ids.js';
import { hasTapContext, type Operation, type OperationOutcome } from './operations.js';
import { counterNotFound, failed, groupNotFound, tagWithOperationId } from './outcomes.js';
import { periodsReset } from './periods.js';
import type { Applying, BatchState, OperationContext } from './state.js';
import { applyTapWithContext } from './tap-context.js';
import { tapOnly } from './tap-links.js';
import { markUndone, undoEntry, undoOperation } from './undo.js';

/** Applies the batch's operation at `index` by itself. */
export function applyOne(batch: BatchState, index: number): OperationOutcome {
  const operation = batch.operations[index] as Operation;
  const { groupId, opId } = operation;
  const group = batch.groups.get(groupId);
  if (!group) return groupNotFound();
  // An import takes a change number per counter it changes (import.ts).
  if (operation.mutation.kind === 'importData') return applyImport(batch, index);
  const seq = group.seq + 1;
  const applied = applyMutation({ batch, operation, seq });
  const outcome = tagWithOperationId(applied.outcome, opId);
  if (!outcome.ok) return outcome;
  batch.bump(group, seq);
  const drafts = applied.drafts.map((draft) => batch.log(draft, applied.undoes ?? null));
  const entry = drafts[0] ?? null;
  if (applied.undoes !== undefined && entry !== null) markUndone(batch, applied.undoes, entry);
  rememberId(batch, { groupId, opId, result: JSON.stringify(outcome.result), entry });
  return outcome;
}

/**
 * A new kind of change adds its case here, and what it reads to reads.ts. A tap link's holder
 * may only undo its own taps here (its taps are applied by taps.ts).
 */
function applyMutation(context: OperationContext): Applying {
  const { mutation, link } = context.operation;
  const tapOrUndo =
    mutation.kind === 'adjustCounter' ||
    mutation.kind === 'undoEntry' ||
    mutation.kind === 'undoOperation';
  if (link && !tapOrUndo) {
    return failed(tapOnly());
  }
  switch (mutation.kind) {
    case 'createCounter':
      return createCounter(context, mutation);
    case 'updateCounter':
      return patchCounter(context, {
        counterId: mutation.counterId,
        patch: mutation.patch,
        valueDelta: 0n,
        entryKind: 'counter.updated',
      });
    case 'adjustCounter':
      // planBatch puts every plain tap in an adjust step (taps.ts): only a tap with a note or an
      // earlier time is applied alone.
      return hasTapContext(mutation)
        ? applyTapWithContext(context, mutation)
        : failed(counterNotFound());
    case 'deleteCounter':
      return deleteCounter(context, mutation.counterId);
    case 'reorderCounters':
      return reorder(context, mutation.counterIds);
    case 'updateSection':
      return updateSection(context, mutation);
    case 'updateGroup':
      return patchGroup(context, mutation);
    case 'rotateKey':
    case 'setViewKey':
    case 'addTapLink':
    case 'revokeTapLink':
      return changeAccess(context, mutation);
    case 'addAlertRule':
    case 'removeAlertRule':
      return changeAlerts(context, mutation);
    case 'resetPeriods':
      return periodsReset(mutation);
    case 'undoEntry':
      return undoEntry(context, mutation);
    case 'undoOperation':
      return undoOperation(context, mutation);
    case 'importData':
      // applyOne hands imports to applyImport before this.
      return failed(groupNotFound());
  }
}
