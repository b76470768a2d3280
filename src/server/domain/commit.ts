/**
 * The batch commit, written once for both SQL stores (docs/decisions/0014-one-commit-algorithm.md):
 * the start of the domain. domain/README.md says which file decides what.
 *
 * It is sans-IO: a generator that yields what it needs to read (`ReadRequest`, reads.ts), is
 * resumed with what was read (`ReadAnswer`), applies the whole batch to those rows in memory and
 * returns each operation's outcome together with everything the batch writes (`BatchWrites`).
 * SQLite drives it synchronously inside its write transaction (`runSync`), PostgreSQL with
 * `await` inside its transaction (`runAsync`) after locking the batch's groups; each store only
 * turns requests into reads and the write set into statements. The reads come in at most four
 * rounds and the writes are a fixed set of tables whatever the batch holds, so a PostgreSQL
 * batch costs the same handful of round trips for one tap or ten thousand.
 *
 * Applying in memory is exact because nothing else can change these rows meanwhile: SQLite's
 * write transaction is exclusive, and on PostgreSQL every write to a group's counters, entries
 * and operation ids happens in a batch holding that group's row lock (taken first, in id order).
 */
import { randomUUID } from 'node:crypto';
import { applyOne } from './apply.js';
import type { BatchWrites, Commit, CommitOptions } from './commit-io.js';
import {
  duplicateOutcome,
  fingerprintsOf,
  firstFingerprints,
  operationIdReused,
  replay,
} from './operation-ids.js';
import { changesByGroup, type Operation, type OperationOutcome } from './operations.js';
import { groupNotFound } from './outcomes.js';
import { endDuePeriods, withPeriodChanges } from './periods.js';
import { planBatch } from './plan.js';
import { readRows } from './reads.js';
import { BatchState } from './state.js';
import { applyAdjust } from './taps.js';

/** Applies one batch: see the module comment. */
export function* commitBatch(operations: readonly Operation[], options: CommitOptions): Commit {
  const newCounterId = options.newCounterId ?? randomUUID;
  const fingerprints = fingerprintsOf(operations);
  const rows = yield* readRows(operations, options.countersPerGroup);
  const batch = new BatchState(
    {
      operations,
      options,
      newCounterId,
      fingerprints: firstFingerprints(operations, fingerprints),
    },
    rows,
  );
  // Periods that ended before this batch end first: its changes count in the new period.
  endDuePeriods(batch);
  const outcomes = new Array<OperationOutcome | undefined>(operations.length);
  operations.forEach((operation, index) => {
    outcomes[index] = replay(batch, operation, fingerprints[index]);
  });
  const replayed = new Set(outcomes.flatMap((outcome, index) => (outcome ? [index] : [])));
  const plan = planBatch(operations, replayed, fingerprints);
  for (const step of plan.steps) {
    if (step.kind === 'single') {
      outcomes[step.index] = applyOne(batch, step.index);
    } else {
      for (const [index, outcome] of applyAdjust(batch, step)) {
        outcomes[index] = outcome;
      }
    }
  }
  for (const [index, firstUse] of plan.duplicates) {
    outcomes[index] = duplicateOutcome(outcomes[firstUse]);
  }
  for (const index of plan.reused) outcomes[index] = operationIdReused();
  const final = withPeriodChanges(
    batch,
    outcomes.map((outcome) => outcome ?? groupNotFound()),
  );
  // A preview (Store.preview) writes nothing: the final rows and the chain's hashes are not made.
  const writes = options.preview === true ? NO_WRITES : batch.writes();
  return { outcomes: final, writes, changes: changesByGroup(operations, final) };
}

const NO_WRITES: BatchWrites = {
  counters: [],
  deletedCounters: [],
  groups: [],
  entries: [],
  undone: [],
  operationIds: [],
  sessions: [],
  periods: [],
  periodCorrections: [],
  alerts: [],
};
