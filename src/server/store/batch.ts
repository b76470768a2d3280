/**
 * Store-independent planning of one batch (group commit, ADR 1 and 4). Increments and
 * decrements of the same counter within a batch are coalesced into one step — one UPDATE
 * `value = value + a * increment_step - b * decrement_step`, one change number and one change
 * that lists every operation id it includes — unless another kind of change to that counter
 * comes between them, which ends the run so the order of effects is kept.
 */
import { createHash } from 'node:crypto';
import type { Counter, MutationResult } from '../../shared/api.js';
import { MESSAGES } from '../../shared/messages.js';
import type { Operation, OperationOutcome, StoreMutation } from './types.js';

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
  /** Positions whose operation id an earlier operation of the batch used for another change. */
  reused: Set<number>;
}

/** JSON with object keys sorted and undefined members left out: one text per value. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const members = Object.entries(value as Record<string, unknown>)
      .filter(([, member]) => member !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, member]) => `${JSON.stringify(key)}:${canonicalJson(member)}`);
    return `{${members.join(',')}}`;
  }
  // JSON.stringify answers undefined for undefined (typed as string).
  const text = JSON.stringify(value) as string | undefined;
  return text ?? 'null';
}

/**
 * What an operation id promises to mean: for a tap its direction, times and counter
 * (`+3@<counterId>`), for anything else the SHA-256 (base64url, 43 characters) of the parsed
 * mutation's canonical JSON — kind, counter, fields. The two forms never collide. Stored with the id, so a
 * retry (same fingerprint) is answered again while the id reused for another change is refused.
 */
export function fingerprintOf(mutation: StoreMutation): string {
  // Taps are most operations under load: their few fields make a short exact text at once,
  // without hashing (a hash cost ~10 µs per tap on a loaded machine; this ~0.1 µs).
  if (mutation.kind === 'adjustCounter') {
    const sign = mutation.direction === 'increment' ? '+' : '-';
    return `${sign}${mutation.times}@${mutation.counterId}`;
  }
  return createHash('sha256').update(canonicalJson(mutation)).digest('base64url');
}

/** The fingerprint of each operation that carries an id, by batch position. */
export function fingerprintsOf(operations: readonly Operation[]): (string | undefined)[] {
  return operations.map((operation) =>
    operation.opId === undefined ? undefined : fingerprintOf(operation.mutation),
  );
}

/** The answer to an operation id already used for a different change: nothing is applied. */
export function operationIdReused(): OperationOutcome {
  return { ok: false, code: 'operation_id_reused', message: MESSAGES.operationIdReused };
}

/**
 * The outcome of an operation id found stored with `stored` (null: a row written before
 * fingerprints, which replays as before); undefined when it is the same change (a replay).
 */
export function reuseOf(stored: string | null, fingerprint: string | undefined) {
  return stored !== null && fingerprint !== undefined && stored !== fingerprint
    ? operationIdReused()
    : undefined;
}

/** Plans a batch, leaving out operations already applied in an earlier batch (replays). */
export function planBatch(
  operations: readonly Operation[],
  replayed: ReadonlySet<number>,
  fingerprints: readonly (string | undefined)[] = fingerprintsOf(operations),
): BatchPlan {
  const steps: Step[] = [];
  const duplicates = new Map<number, number>();
  const reused = new Set<number>();
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
        if (fingerprints[first] === fingerprints[index]) duplicates.set(index, first);
        else reused.add(index);
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
  return { steps, duplicates, reused };
}

/**
 * The outcomes of a coalesced step that succeeded: every merged operation answers with the row
 * after the step (the state its tap is part of); the last one carries the single change.
 */
export function adjustOutcomes(
  indices: readonly number[],
  operations: readonly Operation[],
  counter: Counter,
  seq: number,
  /** The member whose tap reached the counter's goal, if one did. */
  goalReachedBy?: string,
): Map<number, OperationOutcome> {
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
