/**
 * Taps: a coalesced run of increments and decrements of one counter (plan.ts) is applied as one
 * step with one change number and one change. Each tap is checked in order against the exact
 * range, the counter's limits and its section's maximum (limits.ts); one that would pass a limit
 * is refused whole and the others still count. The value is computed here, in memory, and
 * written as a final value (`SET value = ?`), never as `value + step` in SQL.
 */
import { UNKNOWN_MEMBER } from '../../shared/limits.js';
import { parseNumberedId } from '../../shared/operation-ids.js';
import { adjustDrafts, type AppliedTaps } from './activity.js';
import { alertWritesForChange } from './alert-config.js';
import { reaches, sectionBase, sectionRefusal, valueRefusal } from './limits.js';
import { rememberNumber } from './numbered-ids.js';
import { rememberId, type StoredAnswer } from './operation-ids.js';
import type { Operation, OperationOutcome } from './operations.js';
import { counterNotFound, groupNotFound } from './outcomes.js';
import type { Step } from './plan.js';
import type { BatchState } from './state.js';
import { tapRefusal } from './tap-links.js';

/**
 * A coalesced run of taps on one counter: one change number, one change. A tap that would pass
 * a limit is refused whole and the others still count (the value stops exactly there).
 */
export function applyAdjust(
  batch: BatchState,
  step: Extract<Step, { kind: 'adjust' }>,
): Map<number, OperationOutcome> {
  const { groupId, counterId } = step;
  const group = batch.groups.get(groupId);
  if (!group) return new Map(step.indices.map((index) => [index, groupNotFound()]));
  const state = batch.counterOf(groupId, counterId);
  if (!state) return new Map(step.indices.map((index) => [index, counterNotFound()]));
  const { counter } = state;
  const outcomes = new Map<number, OperationOutcome>();
  const accepted: number[] = [];
  const base = sectionBase(batch, state);
  let value = BigInt(counter.value);
  let reachedBy: string | undefined;
  const watched = group.alerts.rules.length > 0;
  // The counter as the previous accepted tap left it: each tap's "before" for alerts.
  let before = watched ? { ...counter, value: Number(value) } : counter;
  for (const index of step.indices) {
    const operation = batch.operations[index] as Operation;
    if (operation.mutation.kind !== 'adjustCounter') continue;
    const { direction, times } = operation.mutation;
    const step =
      direction === 'increment' ? BigInt(counter.incrementStep) : -BigInt(counter.decrementStep);
    const next = value + BigInt(times) * step;
    const refusal =
      (operation.link && tapRefusal(operation.link, counter, direction)) ??
      valueRefusal(counter, value, next) ??
      sectionRefusal(base, value, next);
    if (refusal) {
      outcomes.set(index, refusal);
      continue;
    }
    if (reachedBy === undefined && reaches(counter, value, next)) {
      reachedBy = operation.actor ?? UNKNOWN_MEMBER;
    }
    // Each tap is its own change for alerts: the one whose tap crossed is the one named.
    if (watched) {
      const after = { ...counter, value: Number(next) };
      const fired = alertWritesForChange(group, {
        before,
        after,
        by: operation.actor ?? null,
        at: batch.options.now,
      });
      if (fired.length > 0) batch.alerts.push(...fired);
      before = after;
    }
    value = next;
    accepted.push(index);
  }
  if (accepted.length === 0) return outcomes;
  const seq = group.seq + 1;
  batch.bump(group, seq);
  // Announced only when the run ends on the goal's far side (a crossing and back is none).
  if (!reaches(counter, BigInt(counter.value), value)) reachedBy = undefined;
  const after = batch.setCounter(state, { ...counter, value: Number(value), version: seq });
  const reference = JSON.stringify({ kind: 'counterRef', counterId } satisfies StoredAnswer);
  const applied: AppliedTaps = {
    operations: batch.operations,
    indices: accepted,
    counter: after,
    seq,
    goalReachedBy: reachedBy,
  };
  for (const draft of adjustDrafts(applied)) {
    const entry = batch.log(draft, null);
    for (const opId of draft.opIds) {
      const numbered = parseNumberedId(opId);
      if (numbered) rememberNumber(batch, groupId, numbered);
      else rememberId(batch, { groupId, opId, result: reference, entry });
    }
  }
  for (const [index, outcome] of adjustOutcomes(applied)) {
    outcomes.set(index, outcome);
  }
  return outcomes;
}

/**
 * The outcomes of a coalesced step that succeeded: every merged operation answers with the row
 * after the step (the state its tap is part of); the last one carries the single change.
 */
export function adjustOutcomes({
  operations,
  indices,
  counter,
  seq,
  goalReachedBy,
}: AppliedTaps): Map<number, OperationOutcome> {
  const outcomes = new Map<number, OperationOutcome>();
  const opIds = indices.flatMap((index) => {
    const opId = operations[index]?.opId;
    return opId === undefined ? [] : [opId];
  });
  const result = { kind: 'counter', counter, created: false } as const;
  const last = indices[indices.length - 1];
  for (const index of indices) {
    const changes =
      index === last
        ? [
            {
              type: 'counter.updated' as const,
              seq,
              counter,
              ...(opIds.length > 0 ? { opIds } : {}),
              ...(goalReachedBy === undefined ? {} : { goalReachedBy }),
            },
          ]
        : [];
    outcomes.set(index, { ok: true, result, changes, replayed: false });
  }
  return outcomes;
}
