/**
 * Undo: a member takes back one activity entry of their group, named by its id or by the
 * operation id that made it, by applying its inverse (inverse.ts) through the same rules as any
 * change (counters.ts, group-settings.ts). An entry is taken back once. The entry may have been
 * written earlier in the same batch: it is read back as a later batch would see it.
 */
import type { ActivityEntry } from '../../shared/activity.js';
import { MESSAGES } from '../../shared/messages.js';
import { parseNumberedId } from '../../shared/operation-ids.js';
import type { EntryRef } from './commit-io.js';
import { deleteCounter, patchCounter, restoreCounter } from './counters.js';
import { draftEntry } from './entry-record.js';
import { patchGroup, previousOrder, reorder } from './group-settings.js';
import { inverseOf } from './inverse.js';
import { keyOf, numberState } from './numbered-ids.js';
import type { StoreMutation } from './operations.js';
import { inScope } from '../../shared/links.js';
import {
  activityNotFound,
  alreadyUndone,
  cannotUndo,
  counterNotFound,
  failed,
  type Applied,
} from './outcomes.js';
import { changeInContext } from './tap-context.js';
import { mayUndo, tapOnly } from './tap-links.js';
import type { Applying, BatchState, KnownEntry, OperationContext } from './state.js';

// ---- what an undo needs read -------------------------------------------------------------------

/** Whether applying the inverse of this entry needs every counter of its group. */
export function undoNeedsGroup(entry: ActivityEntry): boolean {
  if (entry.kind === 'counters.reordered') return true;
  return (
    entry.kind === 'group.updated' &&
    entry.changes.some((change) => change.field === 'timeZone' || change.field === 'weekStart')
  );
}

/** The sections an entry's inverse may put counters in or change the maximum of. */
export function undoSections(entry: ActivityEntry): string[] {
  switch (entry.kind) {
    case 'counter.deleted':
      return entry.counter.section === null ? [] : [entry.counter.section];
    case 'counter.updated':
    case 'group.updated':
      return entry.changes.flatMap((change) => {
        if (change.field === 'sectionMax' && change.section !== undefined) return [change.section];
        return change.field === 'section' && typeof change.from === 'string' ? [change.from] : [];
      });
    default:
      return [];
  }
}

/** The counter an undo's inverse touches. */
export function inverseCounterId(entry: ActivityEntry): string | undefined {
  return entry.counterId ?? undefined;
}

// ---- which entry ---------------------------------------------------------------------------------

/** An undo of an entry named by its id. */
export function undoEntry(
  context: OperationContext,
  mutation: Extract<StoreMutation, { kind: 'undoEntry' }>,
): Applying {
  const { batch, operation } = context;
  const known = batch.known.get(mutation.entryId);
  return known?.groupId === operation.groupId ? undo(context, known) : failed(activityNotFound());
}

/** An undo of the entry an operation id made: in this batch, or stored with the id. */
export function undoOperation(
  context: OperationContext,
  mutation: Extract<StoreMutation, { kind: 'undoOperation' }>,
): Applying {
  const { batch, operation } = context;
  const { groupId } = operation;
  const key = keyOf(groupId, mutation.opId);
  if (batch.appliedIds.has(key)) {
    const draft = batch.appliedIds.get(key) ?? null;
    const local = draft === null ? undefined : localEntry(batch, draft);
    return local ? undo(context, local) : failed(activityNotFound());
  }
  const stored = batch.storedIds.get(key);
  const activityId = stored?.activityId;
  const known = activityId == null ? undefined : batch.known.get(activityId);
  if (known?.groupId === groupId) return undo(context, known);
  // A numbered tap leaves no row that names its entry: it is undone by the entry itself.
  const target = stored ? undefined : parseNumberedId(mutation.opId);
  const window = target && batch.sessions.get(keyOf(groupId, target.session));
  return target && numberState(window, target.n) === 'applied'
    ? failed(cannotUndo(MESSAGES.undoNumberedTap))
    : failed(activityNotFound());
}

/** A new entry of this batch as the API would show it (an undo in the same batch reads it). */
function localEntry(batch: BatchState, index: number): KnownEntry | undefined {
  const write = batch.entries[index];
  if (!write) return undefined;
  const { draft } = write;
  const entry = draftEntry(draft, batch.options.now);
  return { groupId: draft.groupId, entry, ref: { draft: index } };
}

// ---- applying the inverse ------------------------------------------------------------------------

/** Takes back one entry of this group by applying its inverse. */
function undo(context: OperationContext, target: KnownEntry): Applying {
  const { batch, operation } = context;
  const { entry, ref } = target;
  if (operation.link) {
    // A tap link takes back its own taps only, on counters it can still see.
    if (!mayUndo(operation.link, entry)) return failed(tapOnly());
    const state = entry.counterId ? batch.counterOf(operation.groupId, entry.counterId) : undefined;
    if (!state || !inScope(operation.link.scope, state.counter)) return failed(counterNotFound());
  }
  if (isUndone(batch, ref, entry)) return failed(alreadyUndone());
  const inverse = inverseOf(entry);
  let applied: Applied;
  switch (inverse.kind) {
    case 'none':
      applied = failed(cannotUndo(MESSAGES.cannotUndoReset));
      break;
    case 'reorder':
      applied = reorder(context, previousOrder(batch, operation.groupId, inverse.counterIds));
      break;
    case 'counter': {
      if (entry.kind === 'counter.adjusted' && entry.countedAt !== undefined) {
        // A count for an earlier time is taken back at that time: from the value if its period
        // is still the current one, else from that period's total (tap-context.ts).
        applied = changeInContext(context, {
          counterId: inverse.counterId,
          delta: inverse.valueDelta,
          countedAt: Date.parse(entry.countedAt),
          bounded: false,
        });
        break;
      }
      // A change of a value in a period that has ended belongs to that period's total.
      const state = batch.counterOf(operation.groupId, inverse.counterId);
      const periodStart = state?.counter.periodStart;
      if (
        inverse.valueDelta !== 0n &&
        periodStart != null &&
        Date.parse(entry.at) < Date.parse(periodStart)
      ) {
        applied = failed(cannotUndo(MESSAGES.periodEnded));
        break;
      }
      applied = patchCounter(context, inverse);
      break;
    }
    case 'delete':
      applied = deleteCounter(context, inverse.counterId);
      break;
    case 'restore':
      applied = restoreCounter(context, inverse.counter);
      break;
    case 'group':
      applied = patchGroup(context, inverse);
      break;
  }
  return applied.outcome.ok ? { ...applied, undoes: ref } : applied;
}

/** Records that an entry was taken back by the batch's new entry `by`. */
export function markUndone(batch: BatchState, target: EntryRef, by: number): void {
  if ('id' in target) {
    batch.undoneIds.add(target.id);
    batch.undone.push({ entryId: target.id, by });
  } else {
    const write = batch.entries[target.draft];
    if (write) write.undoneBy = by;
  }
}

function isUndone(batch: BatchState, ref: EntryRef, entry: ActivityEntry): boolean {
  if ('draft' in ref) return batch.entries[ref.draft]?.undoneBy != null;
  return entry.undoneBy !== null || batch.undoneIds.has(ref.id);
}
