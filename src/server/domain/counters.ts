/**
 * Counters: a new one (its defaults, the group's quota of counters), an edit of its fields and
 * value, a deletion; undos apply the same three (undo.ts). Every new row is checked against its
 * limits and its section's maximum (limits.ts) and gets the period holding now if it resets
 * (periods.ts).
 */
import { alertWritesForChange, withoutCounter } from './alert-config.js';
import type { CounterSnapshot } from '../../shared/activity.js';
import type { Counter, CounterPatch } from '../../shared/api.js';
import type { CounterField } from '../../shared/fields.js';
import { DEFAULT_STEP, MAX_VALUE, MIN_VALUE } from '../../shared/limits.js';
import { MESSAGES } from '../../shared/messages.js';
import type { Change } from '../../shared/protocol.js';
import { counterDraft, deltaDraft, updateDraft } from './activity.js';
import { counterRefusal, reaches } from './limits.js';
import type { StoreMutation } from './operations.js';
import {
  counterNotFound,
  counterOutcome,
  created,
  definedEntries,
  deletedOutcome,
  alreadyUndone,
  failed,
  tooManyCounters,
  valueOutOfRange,
  type Applied,
} from './outcomes.js';
import { withPeriod } from './periods.js';
import type { BatchState, OperationContext } from './state.js';

/** `value + delta` if it stays in the exact range, else undefined. */
function movedValue(value: number, delta: bigint): number | undefined {
  const next = BigInt(value) + delta;
  return next < BigInt(MIN_VALUE) || next > BigInt(MAX_VALUE) ? undefined : Number(next);
}

/** Whether the group holds its quota of counters (counted when the batch began, then kept). */
export function isFull(batch: BatchState, groupId: string): boolean {
  return (batch.counts.get(groupId) ?? 0) >= batch.options.countersPerGroup;
}

/**
 * A new counter's fields: those given, and for the rest its defaults (named New Counter, value 0,
 * steps 1, no goal, limits, period or section).
 */
export function withCounterDefaults(
  fields: Partial<Pick<Counter, CounterField>>,
): Pick<Counter, CounterField> {
  return {
    name: fields.name ?? MESSAGES.newCounterName,
    description: fields.description ?? '',
    value: fields.value ?? 0,
    incrementStep: fields.incrementStep ?? DEFAULT_STEP,
    decrementStep: fields.decrementStep ?? DEFAULT_STEP,
    thumbnailUrl: fields.thumbnailUrl ?? null,
    goal: fields.goal ?? null,
    min: fields.min ?? null,
    max: fields.max ?? null,
    reset: fields.reset ?? null,
    startValue: fields.startValue ?? 0,
    section: fields.section ?? null,
  };
}

/** A new counter with the fields given and defaults for the rest, last in the group's order. */
export function createCounter(
  context: OperationContext,
  mutation: Extract<StoreMutation, { kind: 'createCounter' }>,
): Applied {
  const { batch, operation, seq } = context;
  const { groupId } = operation;
  if (isFull(batch, groupId)) return failed(tooManyCounters(batch.options.countersPerGroup));
  const fields = withCounterDefaults(mutation.fields);
  const counter: Counter = {
    id: batch.newCounterId(),
    ...fields,
    periodStart: null,
    allTime: fields.value,
    createdAt: new Date(batch.options.now).toISOString(),
    version: seq,
  };
  const refused = counterRefusal(batch, { groupId, before: null, after: counter });
  if (refused) return failed(refused);
  return created(context, insertCounter(context, counter));
}

/** A change of a counter's fields and value: a member's edit, or the inverse an undo applies. */
export interface CounterEdit {
  counterId: string;
  patch: CounterPatch | Omit<CounterPatch, 'value'>;
  /** Added to the value unless the patch sets one (an undo). */
  valueDelta: bigint;
  /** The entry it makes: an edit's field changes or, for an undone tap, a tap the other way. */
  entryKind: 'counter.updated' | 'counter.adjusted';
}

/** Sets the edit's fields and adds its `valueDelta` to the value (edits and their undo). */
export function patchCounter(
  context: OperationContext,
  { counterId, patch, valueDelta, entryKind }: CounterEdit,
): Applied {
  const { batch, operation, seq } = context;
  const { groupId } = operation;
  const state = batch.counterOf(groupId, counterId);
  if (!state) return failed(counterNotFound());
  const before = state.counter;
  const fields = Object.fromEntries(definedEntries(patch)) as CounterPatch;
  // A typed value is set as is; otherwise the value moves by the delta (undo).
  const value = fields.value ?? movedValue(before.value, valueDelta);
  if (value === undefined) return failed(valueOutOfRange());
  const period = withPeriod(batch, {
    groupId,
    state,
    before,
    after: { ...before, ...fields, value, version: seq },
  });
  const refused = counterRefusal(batch, { groupId, state, before, after: period.counter });
  if (refused) return failed(refused);
  if (period.nextResetAt !== state.nextResetAt) {
    state.nextResetAt = period.nextResetAt;
    state.onlyValue = false;
  }
  const after = batch.setCounter(state, period.counter);
  const group = batch.groups.get(groupId);
  if (group) {
    batch.alerts.push(
      ...alertWritesForChange(group, {
        before,
        after,
        by: operation.actor ?? null,
        at: batch.options.now,
      }),
    );
  }
  const reached = reaches(after, BigInt(before.value), BigInt(after.value));
  const draft =
    entryKind === 'counter.adjusted'
      ? deltaDraft(context, after, { delta: Number(valueDelta), reachedGoal: reached })
      : updateDraft(context, before, after);
  const change: Change = {
    type: 'counter.updated',
    seq,
    counter: after,
    ...(reached && entryKind === 'counter.adjusted' ? { goalReachedBy: draft.actor } : {}),
  };
  return { outcome: counterOutcome(after, false, change), drafts: [draft] };
}

export function deleteCounter(context: OperationContext, counterId: string): Applied {
  const { batch, operation, seq } = context;
  const state = batch.counterOf(operation.groupId, counterId);
  if (!state) return failed(counterNotFound());
  state.exists = false;
  state.changed = true;
  batch.counts.set(state.groupId, (batch.counts.get(state.groupId) ?? 1) - 1);
  // Its rules go with it: a rule of a counter that is gone could never fire again.
  const group = batch.groups.get(state.groupId);
  if (group) {
    const alerts = withoutCounter(group.alerts, counterId);
    if (alerts !== group.alerts) {
      group.alerts = alerts;
      group.alertsChanged = true;
      group.changed = true;
    }
  }
  return {
    outcome: deletedOutcome(counterId, seq),
    drafts: [counterDraft(context, 'counter.deleted', state.counter)],
  };
}

/** A deleted counter back (an undo of its deletion), with the value it had, last in the order. */
export function restoreCounter(context: OperationContext, counter: CounterSnapshot): Applied {
  const { batch, operation, seq } = context;
  if (isFull(batch, operation.groupId)) {
    return failed(tooManyCounters(batch.options.countersPerGroup));
  }
  // The counter is back unless a counter with its id exists (it was restored already).
  if (batch.counters.get(counter.id)?.exists === true) return failed(alreadyUndone());
  const restoring: Counter = {
    ...counter,
    periodStart: null,
    allTime: counter.value,
    version: seq,
  };
  const refused = counterRefusal(batch, {
    groupId: operation.groupId,
    before: null,
    after: restoring,
  });
  if (refused) return failed(refused);
  return created(context, insertCounter(context, restoring));
}

/**
 * A new (or restored) counter of the operation's group, made at its change number: last in the
 * order, its period starting now if it resets.
 */
export function insertCounter(context: OperationContext, counter: Counter): Counter {
  const { batch, operation, seq } = context;
  const { groupId } = operation;
  const previous = batch.counters.get(counter.id);
  const period = withPeriod(batch, { groupId, before: null, after: counter });
  const final = { ...period.counter, allTime: period.counter.value };
  batch.counters.set(counter.id, {
    groupId,
    createdSeq: seq,
    position: null,
    nextResetAt: period.nextResetAt,
    closedTotal: 0,
    counter: final,
    existed: previous?.existed ?? false,
    exists: true,
    changed: true,
    onlyValue: false,
  });
  batch.counts.set(groupId, (batch.counts.get(groupId) ?? 0) + 1);
  return final;
}
