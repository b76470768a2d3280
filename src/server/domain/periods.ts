/**
 * Counters that reset (daily, weekly, monthly in the group's calendar, domain/calendar.ts): a
 * period that is over ends before anything else of the batch (its changes count in the new
 * period), its final value is kept (`closedTotal`, a `counter.reset` entry, a period row) and
 * the value returns to its start. An edit of the reset, a new counter or new midnights set when
 * the current period ends. docs/decisions/0019-counters-with-a-purpose.md says how resets stay
 * exact across instances.
 */
import { alertWrites } from './alert-config.js';
import { periodEndAlerts } from './alert-rules.js';
import type { Counter } from '../../shared/api.js';
import { MAX_VALUE, MIN_VALUE } from '../../shared/limits.js';
import { resetDraft } from './activity.js';
import { periodAt } from './calendar.js';
import type { OperationOutcome, StoreMutation } from './operations.js';
import type { Applied } from './outcomes.js';
import type { BatchState, CounterChange, CounterState, GroupState } from './state.js';

/**
 * Every ended period's final value plus the current one, held at the exact range's ends (a
 * counter that ran at the maximum for years would pass it; the sum is a figure, never a value).
 */
export function allTimeOf(closedTotal: number, value: number): number {
  const sum = BigInt(closedTotal) + BigInt(value);
  if (sum > BigInt(MAX_VALUE)) return MAX_VALUE;
  if (sum < BigInt(MIN_VALUE)) return MIN_VALUE;
  return Number(sum);
}

/** Ends every period that is over of the counters read, in groups this batch holds. */
export function endDuePeriods(batch: BatchState): void {
  for (const state of batch.counters.values()) {
    const group = batch.groups.get(state.groupId);
    if (group && state.nextResetAt !== null && batch.options.now >= state.nextResetAt) {
      endPeriod(batch, state, group);
    }
  }
}

/** The counter starts over: its period's final value is kept, the value returns to its start. */
function endPeriod(batch: BatchState, state: CounterState, group: GroupState): void {
  const { counter } = state;
  const ended = state.nextResetAt;
  if (counter.reset === null || ended === null) {
    state.nextResetAt = null;
    return;
  }
  const started = counter.periodStart === null ? ended : Date.parse(counter.periodStart);
  const next = periodAt(batch.options.now, counter.reset, group.record);
  const seq = group.seq + 1;
  batch.bump(group, seq);
  batch.periods.push({
    groupId: state.groupId,
    counterId: counter.id,
    start: started,
    end: ended,
    value: counter.value,
  });
  state.closedTotal = allTimeOf(state.closedTotal, counter.value);
  state.nextResetAt = next.end;
  state.onlyValue = false;
  const after = batch.setCounter(state, {
    ...counter,
    value: counter.startValue,
    periodStart: new Date(next.start).toISOString(),
    version: seq,
  });
  batch.log(
    resetDraft({
      groupId: state.groupId,
      counter: after,
      seq,
      period: { final: counter.value, periodStart: started, periodEnd: ended },
    }),
    null,
  );
  if (group.alerts.rules.length > 0) {
    const events = periodEndAlerts(group.alerts.rules, {
      counter: after,
      period: { start: started, end: ended, value: counter.value },
    });
    batch.alerts.push(...alertWrites(group, events, batch.options.now));
  }
  const list = batch.periodChanges.get(state.groupId) ?? [];
  list.push({ type: 'counter.updated', seq, counter: after });
  batch.periodChanges.set(state.groupId, list);
}

/** The outcomes, the first of each group carrying the changes of the periods it ended. */
export function withPeriodChanges(
  batch: BatchState,
  outcomes: OperationOutcome[],
): OperationOutcome[] {
  if (batch.periodChanges.size === 0) return outcomes;
  const pending = new Map(batch.periodChanges);
  return outcomes.map((outcome, index) => {
    const groupId = batch.operations[index]?.groupId;
    const changes = groupId === undefined ? undefined : pending.get(groupId);
    if (groupId === undefined || changes === undefined) return outcome;
    pending.delete(groupId);
    return { ...outcome, changes: [...changes, ...(outcome.changes ?? [])] };
  });
}

/**
 * The scheduler's `resetPeriods`: the periods were ended before any operation (endDuePeriods),
 * nothing else to do. The answer names the counters (the scheduler does not read it).
 */
export function periodsReset(mutation: Extract<StoreMutation, { kind: 'resetPeriods' }>): Applied {
  return {
    outcome: {
      ok: true,
      result: { kind: 'order', counterIds: mutation.counterIds },
      changes: [],
      replayed: false,
    },
    drafts: [],
  };
}

/**
 * A counter's period after an edit or creation: kept while its reset stays the same (ending at
 * its row's `nextResetAt`), else the period holding now (or none), with when it ends.
 */
export function withPeriod(
  batch: BatchState,
  { groupId, state, before, after }: CounterChange,
): { counter: Counter; nextResetAt: number | null } {
  if (before !== null && before.reset === after.reset) {
    return { counter: after, nextResetAt: state?.nextResetAt ?? null };
  }
  const group = batch.groups.get(groupId);
  if (after.reset === null || !group) {
    return { counter: { ...after, periodStart: null }, nextResetAt: null };
  }
  const bounds = periodAt(batch.options.now, after.reset, group.record);
  return {
    counter: { ...after, periodStart: new Date(bounds.start).toISOString() },
    nextResetAt: bounds.end,
  };
}

/** New midnights for the group: every counter that resets ends its period at the new one. */
export function moveMidnights(batch: BatchState, group: GroupState, order: CounterState[]): void {
  for (const state of order) {
    const { reset } = state.counter;
    if (reset === null) continue;
    state.nextResetAt = periodAt(batch.options.now, reset, group.record).end;
    state.changed = true;
    state.onlyValue = false;
  }
}
