/**
 * Metrics of the group commit (batcher.ts's CommitObserver): operations by kind and outcome, taps,
 * batch sizes, commit latency and store errors. The batcher calls it once per commit; the counts
 * of a batch are summed per kind and added to the counters once per kind, so a batch of
 * 2,000 taps costs a loop over its operations and a handful of counter increments, and no
 * allocation.
 *
 * Every label value comes from a fixed set (mutation kinds, directions, outcome codes, store
 * kinds): never a group, a counter, a key or anything else a client chose.
 */
import { Counter, Histogram, type Registry } from 'prom-client';
import type { ErrorCode } from '../../shared/api.js';
import type { CommitObserver } from '../batcher.js';
import { DomainError } from '../errors.js';
import type { Operation, OperationOutcome, Store, StoreMutation } from '../store/types.js';

type MutationKind = StoreMutation['kind'];

/** Every kind of mutation the store applies; a new kind that is not listed fails to compile. */
const KIND_LIST = {
  createCounter: true,
  updateCounter: true,
  adjustCounter: true,
  deleteCounter: true,
  updateGroup: true,
  reorderCounters: true,
  updateSection: true,
  resetPeriods: true,
  undoEntry: true,
  undoOperation: true,
  rotateKey: true,
  setViewKey: true,
  addAlertRule: true,
  removeAlertRule: true,
  addTapLink: true,
  revokeTapLink: true,
  importData: true,
} as const satisfies Record<MutationKind, true>;
export const MUTATION_KINDS = Object.keys(KIND_LIST) as MutationKind[];

/**
 * An operation's outcome: `applied`, `replayed` (a retry of an operation id already applied:
 * answered, not applied again) or the ErrorCode it was answered with.
 */
export type MutationOutcome = 'applied' | 'replayed' | ErrorCode;

/** Operations per committed batch; the batcher commits at most 2,000 (MAX_BATCH). */
const BATCH_SIZE_BUCKETS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000];
/** Store.commit time, seconds: from a fraction of a millisecond (SQLite) to seconds (a stall). */
const COMMIT_SECONDS_BUCKETS = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5,
];

/** One kind's operations of the batch being counted, and the counters they go to. */
interface KindTally {
  applied: number;
  replayed: number;
  readonly appliedCounter: Counter.Internal;
  readonly replayedCounter: Counter.Internal;
}

/** What failed a commit or an operation: its domain code, anything else `internal_error`. */
const codeOf = (error: unknown): ErrorCode =>
  error instanceof DomainError ? error.code : 'internal_error';

export class CommitMetrics implements CommitObserver {
  private readonly mutations: Counter<'kind' | 'outcome'>;
  private readonly taps: Counter<'direction'>;
  private readonly batchSize: Histogram.Internal<'store'>;
  private readonly commitSeconds: Histogram.Internal<'store'>;
  private readonly storeErrors: Counter<'store' | 'code'>;
  private readonly storeKind: Store['kind'];
  /** Each kind's counts of the batch being counted (zero between batches). */
  private readonly byKind: Record<MutationKind, KindTally>;
  private readonly increments: Counter.Internal;
  private readonly decrements: Counter.Internal;

  constructor(registry: Registry, storeKind: Store['kind']) {
    const registers = [registry];
    this.storeKind = storeKind;
    this.mutations = new Counter({
      name: 'tally_mutations_total',
      help: 'Mutations answered, by kind and outcome (applied, replayed, or the error code).',
      labelNames: ['kind', 'outcome'] as const,
      registers,
    });
    this.taps = new Counter({
      name: 'tally_taps_total',
      help: 'Taps applied (the times of each committed adjustCounter), by direction.',
      labelNames: ['direction'] as const,
      registers,
    });
    this.storeErrors = new Counter({
      name: 'tally_store_errors_total',
      help: 'Batch commits the store failed (nothing of them applied), by store and error code.',
      labelNames: ['store', 'code'] as const,
      registers,
    });
    const storeHistogram = (name: string, help: string, buckets: number[]) => {
      const histogram = new Histogram({
        name,
        help,
        labelNames: ['store'] as const,
        buckets,
        registers,
      });
      histogram.zero({ store: storeKind });
      return histogram.labels({ store: storeKind });
    };
    this.batchSize = storeHistogram(
      'tally_commit_batch_size',
      'Operations per committed batch (one transaction).',
      BATCH_SIZE_BUCKETS,
    );
    this.commitSeconds = storeHistogram(
      'tally_commit_duration_seconds',
      'Time one committed batch took in the store, seconds.',
      COMMIT_SECONDS_BUCKETS,
    );
    // Children made once: the per-batch increments do not hash label sets. Zero from the start,
    // so rate() has a first sample.
    const tallyOf = (kind: MutationKind): KindTally => {
      const appliedCounter = this.mutations.labels({ kind, outcome: 'applied' });
      appliedCounter.inc(0);
      const replayedCounter = this.mutations.labels({ kind, outcome: 'replayed' });
      return { applied: 0, replayed: 0, appliedCounter, replayedCounter };
    };
    this.byKind = Object.fromEntries(MUTATION_KINDS.map((kind) => [kind, tallyOf(kind)])) as Record<
      MutationKind,
      KindTally
    >;
    this.increments = this.taps.labels({ direction: 'increment' });
    this.decrements = this.taps.labels({ direction: 'decrement' });
    this.increments.inc(0);
    this.decrements.inc(0);
    for (const code of ['busy', 'storage_unavailable', 'internal_error'] as const) {
      this.storeErrors.inc({ store: storeKind, code }, 0);
    }
  }

  committed(
    operations: readonly Operation[],
    outcomes: readonly OperationOutcome[],
    durationMs: number,
  ): void {
    this.batchSize.observe(operations.length);
    this.commitSeconds.observe(durationMs / 1_000);
    let increments = 0;
    let decrements = 0;
    for (let index = 0; index < operations.length; index += 1) {
      const operation = operations[index];
      const outcome = outcomes[index];
      if (operation === undefined || outcome === undefined) continue;
      const { mutation } = operation;
      if (!outcome.ok) {
        // Refusals (a counter gone, a value out of range) are rare next to taps.
        this.mutations.inc({ kind: mutation.kind, outcome: outcome.code });
      } else if (outcome.replayed) {
        this.byKind[mutation.kind].replayed += 1;
      } else {
        this.byKind[mutation.kind].applied += 1;
        if (mutation.kind === 'adjustCounter') {
          if (mutation.direction === 'increment') increments += mutation.times;
          else decrements += mutation.times;
        }
      }
    }
    for (const kind of MUTATION_KINDS) {
      const tally = this.byKind[kind];
      if (tally.applied > 0) tally.appliedCounter.inc(tally.applied);
      if (tally.replayed > 0) tally.replayedCounter.inc(tally.replayed);
      tally.applied = 0;
      tally.replayed = 0;
    }
    if (increments > 0) this.increments.inc(increments);
    if (decrements > 0) this.decrements.inc(decrements);
  }

  commitFailed(error: unknown): void {
    this.storeErrors.inc({ store: this.storeKind, code: codeOf(error) });
  }

  notApplied(operation: Operation, error: unknown): void {
    this.mutations.inc({ kind: operation.mutation.kind, outcome: codeOf(error) });
  }
}
