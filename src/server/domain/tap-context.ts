/**
 * Taps that carry a note or are counted for an earlier time (ADR 36). Each is applied alone
 * (plan.ts never coalesces it), so its entry holds its own note and time; a plain tap never comes
 * here and costs what it did.
 *
 * A count for a time in the counter's current period (or of a counter that never resets) changes
 * the value now, within its limits as they are now. A count for a period that has already ended
 * corrects that period's final total and the all-time figure and leaves the value as it is: the
 * period it belongs to is over. Either way its entry records when it was counted for.
 */
import type { Counter } from '../../shared/api.js';
import { NOTE_MESSAGES } from '../../shared/note-messages.js';
import { MAX_VALUE, MIN_VALUE } from '../../shared/limits.js';
import type { Change } from '../../shared/protocol.js';
import { deltaDraft, type ActivityDraft } from './activity.js';
import { patchCounter } from './counters.js';
import { periodAt } from './calendar.js';
import type { StoreMutation } from './operations.js';
import {
  counterNotFound,
  counterOutcome,
  failed,
  invalidChange,
  type Applied,
} from './outcomes.js';
import { allTimeOf } from './periods.js';
import type { CounterState, OperationContext } from './state.js';
import { tapRefusal } from './tap-links.js';

const DAY_MS = 86_400_000;

type AdjustMutation = Extract<StoreMutation, { kind: 'adjustCounter' }>;

/** A value change with its note and the time it is counted for (epoch ms), if any. */
export interface ContextChange {
  counterId: string;
  delta: bigint;
  countedAt?: number | undefined;
  note?: string | undefined;
  /** Whether `countedAt` must lie within the bounds a new count may name (an undo's need not). */
  bounded: boolean;
}

/** A tap with a note or an earlier time: the tap link's rights, then the change. */
export function applyTapWithContext(context: OperationContext, mutation: AdjustMutation): Applied {
  const { batch, operation } = context;
  const state = batch.counterOf(operation.groupId, mutation.counterId);
  if (!state) return failed(counterNotFound());
  const refusal = operation.link && tapRefusal(operation.link, state.counter, mutation.direction);
  if (refusal) return failed(refusal);
  const step =
    mutation.direction === 'increment'
      ? BigInt(state.counter.incrementStep)
      : -BigInt(state.counter.decrementStep);
  return changeInContext(context, {
    counterId: mutation.counterId,
    delta: BigInt(mutation.times) * step,
    countedAt: mutation.at,
    note: mutation.note === '' ? undefined : mutation.note,
    bounded: true,
  });
}

/**
 * Applies a value change at its time: in the current period through the same rules as any
 * change of the value (counters.ts), in an ended period as a correction of that period.
 */
export function changeInContext(context: OperationContext, change: ContextChange): Applied {
  const { batch, operation } = context;
  const state = batch.counterOf(operation.groupId, change.counterId);
  if (!state) return failed(counterNotFound());
  const { countedAt } = change;
  if (countedAt !== undefined && change.bounded) {
    const refusal = countedAtRefusal(state.counter, countedAt, batch.options);
    if (refusal) return failed(invalidChange(refusal));
  }
  const { periodStart } = state.counter;
  if (countedAt !== undefined && periodStart !== null && countedAt < Date.parse(periodStart)) {
    return correctEndedPeriod(context, state, { ...change, countedAt });
  }
  const applied = patchCounter(context, {
    counterId: change.counterId,
    patch: {},
    valueDelta: change.delta,
    entryKind: 'counter.adjusted',
  });
  if (!applied.outcome.ok) return applied;
  return { ...applied, drafts: applied.drafts.map((draft) => withContext(draft, change)) };
}

/** Why a count may not be for this time (epoch ms), or null. */
function countedAtRefusal(
  counter: Counter,
  countedAt: number,
  { now, countedAtWindowDays }: { now: number; countedAtWindowDays: number },
): string | null {
  if (countedAt > now) return NOTE_MESSAGES.countedAtInFuture;
  if (countedAt < now - countedAtWindowDays * DAY_MS) {
    return NOTE_MESSAGES.countedAtTooOld(countedAtWindowDays);
  }
  if (countedAt < Date.parse(counter.createdAt)) return NOTE_MESSAGES.countedAtBeforeCounter;
  return null;
}

/**
 * A count for a period that has ended: its final total and the all-time figure move by the
 * delta, the value does not. The period row is corrected where it is kept (written by this batch,
 * or stored: the store adds the delta to the kept period whose span holds the time).
 */
function correctEndedPeriod(
  context: OperationContext,
  state: CounterState,
  change: ContextChange & { countedAt: number },
): Applied {
  const { batch, operation, seq } = context;
  const { groupId } = operation;
  const { counter } = state;
  const delta = Number(change.delta);
  state.closedTotal = allTimeOf(state.closedTotal, delta);
  state.onlyValue = false;
  const after = batch.setCounter(state, { ...counter, version: seq });
  const endedNow = batch.periods.find(
    (period) =>
      period.counterId === counter.id &&
      period.start <= change.countedAt &&
      change.countedAt < period.end,
  );
  if (endedNow) endedNow.value = clamp(BigInt(endedNow.value) + change.delta);
  else
    batch.periodCorrections.push({ groupId, counterId: counter.id, at: change.countedAt, delta });
  const group = batch.groups.get(groupId);
  const bounds =
    counter.reset !== null && group
      ? periodAt(change.countedAt, counter.reset, group.record)
      : null;
  const draft = withContext(deltaDraft(context, after, { delta, reachedGoal: false }), change);
  if (bounds) draft.detail = { period: { start: bounds.start, end: bounds.end } };
  const announced: Change = { type: 'counter.updated', seq, counter: after };
  return { outcome: counterOutcome(after, false, announced), drafts: [draft] };
}

/** An entry with the change's note and time; a change without either leaves it as it is. */
function withContext(draft: ActivityDraft, { note, countedAt }: ContextChange): ActivityDraft {
  if (note !== undefined) draft.note = note;
  if (countedAt !== undefined) draft.countedAt = countedAt;
  return draft;
}

/** A period total held within the exact range (a figure, never a value a tap moves). */
function clamp(total: bigint): number {
  if (total > BigInt(MAX_VALUE)) return MAX_VALUE;
  if (total < BigInt(MIN_VALUE)) return MIN_VALUE;
  return Number(total);
}
