/**
 * Store-independent planning of one batch (group commit, ADR 1 and 4). Increments and
 * decrements of the same counter within a batch are coalesced into one step — one UPDATE
 * `value = value + a * increment_step - b * decrement_step`, one change number and one change
 * that lists every operation id it includes — unless another kind of change to that counter
 * comes between them, which ends the run so the order of effects is kept.
 */
import type { Counter, MutationResult } from '../../shared/api.js';
import type { Operation, OperationOutcome } from './types.js';

export type Step =
  | { kind: 'single'; index: number }
  | {
      kind: 'adjust';
      groupId: string;
      counterId: string;
      /** Total taps of each direction in this step. */
      increments: number;
      decrements: number;
      /** The batch positions of the operations merged here, in order. */
      indices: number[];
    };

export interface BatchPlan {
  steps: Step[];
  /** A repeated operation id within the batch: position → position of its first use. */
  duplicates: Map<number, number>;
}

/** Plans a batch, leaving out operations already applied in an earlier batch (replays). */
export function planBatch(
  operations: readonly Operation[],
  replayed: ReadonlySet<number>,
): BatchPlan {
  const steps: Step[] = [];
  const duplicates = new Map<number, number>();
  const firstUse = new Map<string, number>();
  const open = new Map<string, Extract<Step, { kind: 'adjust' }>>();
  const close = (key: string) => {
    const step = open.get(key);
    if (step) steps.push(step);
    open.delete(key);
  };
  operations.forEach((operation, index) => {
    if (replayed.has(index)) return;
    if (operation.opId !== undefined) {
      const key = `${operation.groupId}\u0000${operation.opId}`;
      const first = firstUse.get(key);
      if (first !== undefined) {
        duplicates.set(index, first);
        return;
      }
      firstUse.set(key, index);
    }
    const { mutation, groupId } = operation;
    if (mutation.kind === 'adjustCounter') {
      const key = `${groupId}\u0000${mutation.counterId}`;
      let step = open.get(key);
      if (!step) {
        step = {
          kind: 'adjust',
          groupId,
          counterId: mutation.counterId,
          increments: 0,
          decrements: 0,
          indices: [],
        };
        open.set(key, step);
      }
      if (mutation.direction === 'increment') step.increments += mutation.times;
      else step.decrements += mutation.times;
      step.indices.push(index);
      return;
    }
    if (mutation.kind === 'updateCounter' || mutation.kind === 'deleteCounter') {
      close(`${groupId}\u0000${mutation.counterId}`);
    }
    if (mutation.kind === 'undoEntry' || mutation.kind === 'undoOperation') {
      // Which counter an undo touches is known only once its entry is read: end every open
      // run of the group, so taps before the undo are applied (and logged) before it.
      for (const key of [...open.keys()]) if (key.startsWith(`${groupId}\u0000`)) close(key);
    }
    steps.push({ kind: 'single', index });
  });
  for (const key of [...open.keys()]) close(key);
  return { steps, duplicates };
}

/**
 * The outcomes of a coalesced step that succeeded: every merged operation answers with the row
 * after the step (the state its tap is part of); the last one carries the single change.
 */
export function adjustOutcomes(
  step: Extract<Step, { kind: 'adjust' }>,
  operations: readonly Operation[],
  counter: Counter,
  seq: number,
): Map<number, OperationOutcome> {
  const outcomes = new Map<number, OperationOutcome>();
  const opIds = step.indices.flatMap((index) => {
    const opId = operations[index]?.opId;
    return opId === undefined ? [] : [opId];
  });
  const result = { kind: 'counter', counter, created: false } as const;
  const last = step.indices[step.indices.length - 1];
  for (const index of step.indices) {
    const changes =
      index === last
        ? [
            {
              type: 'counter.updated' as const,
              seq,
              counter,
              ...(opIds.length > 0 ? { opIds } : {}),
            },
          ]
        : [];
    outcomes.set(index, { ok: true, result, changes, replayed: false });
  }
  return outcomes;
}

/**
 * Whether applying this operation reads the operation ids and activity entries written so far:
 * an undo finds its entry through them, also when the change it undoes is in the same batch (an
 * offline queue of a tap and its undo arrives at once). Stores write what they hold back before
 * applying it.
 */
export function readsEarlierWrites(operation: Operation): boolean {
  const { kind } = operation.mutation;
  return kind === 'undoOperation' || kind === 'undoEntry';
}

/** A repeated operation id answers like its first use, as a replay. */
export function duplicateOutcome(first: OperationOutcome | undefined): OperationOutcome {
  if (!first) throw new Error('duplicate of an operation without an outcome');
  return first.ok ? { ...first, changes: [], replayed: true } : first;
}

/**
 * What is stored for each operation id: the answer, or for coalesced taps a reference to the
 * counter (its row at replay time includes the tap), which keeps the table small under load.
 */
export type StoredAnswer = MutationResult | { kind: 'counterRef'; counterId: string };

export const counterRef = (counterId: string): string =>
  JSON.stringify({ kind: 'counterRef', counterId } satisfies StoredAnswer);
