/**
 * The order in which a batch is applied (group commit, ADR 1 and 4). Taps on the same counter
 * within a batch are coalesced into one step (one change number, one change that lists every
 * operation id it includes, domain/taps.ts) unless another kind of change to that counter comes
 * between them, which ends the run so the order of effects is kept. A repeated operation id is
 * set aside here: answered like its first use, or refused when it names another change.
 */
import { hasTapContext, type Operation } from './operations.js';
import { fingerprintsOf } from './operation-ids.js';

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
    if (mutation.kind === 'adjustCounter' && hasTapContext(mutation)) {
      // A tap with a note or an earlier time is its own step, after the taps before it.
      close(`${groupId}\u0000${mutation.counterId}`);
      steps.push({ kind: 'single', index });
      return;
    }
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
