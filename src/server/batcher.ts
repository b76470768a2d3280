/**
 * Group commit. Mutations that arrive within one turn of the event loop are applied in one
 * transaction, and their changes are announced as one message per group. Under load this turns
 * thousands of taps per second into a few hundred commits (a durable commit per statement caps throughput
 * at a few thousand per second: ADR 1). A caller is answered only after its batch
 * has committed, so an answered change is a durable change.
 *
 * Overload (ADR 13): the queue is bounded. An operation is admitted only while the oldest one not
 * yet answered has waited less than the target delay (or only a few wait) and the queue is
 * shorter than its cap. A
 * refused operation is answered `busy` (503, retryable) at once and is never applied, so a retry
 * with the same operation id applies it exactly once. Refusing costs far less than applying, so
 * at twice the sustainable load most of the work done is still useful work.
 */
import { MESSAGES } from '../shared/messages.js';
import type { Bus } from './bus/types.js';
import { DomainError } from './errors.js';
import { FairQueue } from './fair-queue.js';
import {
  StorageUnavailableError,
  changesByGroup,
  failsWholeBatch,
  type Operation,
  type OperationOutcome,
  type Store,
} from './store/types.js';

/** The client of operations the server makes itself (period ends): served like any other. */
export const SERVER_CLIENT = 'tally';

/** Most operations in one transaction: bounds the time one commit holds the write lock. */
const MAX_BATCH = 2_000;

export interface AdmissionPolicy {
  /**
   * Target delay, ms: while the oldest operation not yet answered has waited longer, new ones
   * are refused `busy` (CoDel-like: the delay, not the length, says the queue is bad). With
   * SQLite it bounds how long one event-loop turn keeps reading new work before committing.
   */
  targetMs: number;
  /** Most operations waiting at once, whatever the delay: bounds memory. */
  maxQueued: number;
  /**
   * A delay past the target refuses work only while at least this many operations wait: a few
   * operations delayed because the process was descheduled (a loaded machine) are not an
   * overload, and refusing them would only make their clients wait longer.
   */
  minQueued: number;
}

/**
 * 500 ms, not 200: at 200 ms the fan-out load (25,000 taps/s offered to groups of 10, past this
 * machine's capacity) was refused so early that 16,900–18,200 taps/s were applied, against
 * 20,700–21,400 without any bound; at 500 ms, 22,300 with a lower p99 (ADR 13).
 */
export const DEFAULT_ADMISSION: AdmissionPolicy = {
  targetMs: 500,
  maxQueued: 20_000,
  minQueued: 256,
};

interface Pending {
  operation: Operation;
  /** Who sent it (a client address): the queue serves clients in turn (fair-queue.ts). */
  client: string;
  /** performance.now() at submission, ms. */
  at: number;
  resolve: (outcome: OperationOutcome) => void;
  reject: (error: unknown) => void;
}

/**
 * What the batcher tells an observer (the metrics, metrics/commits.ts): called once per store
 * commit, not per operation, except for operations answered without being applied. Optional:
 * without one the batcher measures nothing.
 */
export interface CommitObserver {
  /** A Store.commit that returned: its operations, their outcomes, and how long it took, ms. */
  committed(
    operations: readonly Operation[],
    outcomes: readonly OperationOutcome[],
    durationMs: number,
  ): void;
  /** A Store.commit that threw (nothing of it was applied). */
  commitFailed(error: unknown): void;
  /** An operation answered with `error` and never applied: refused at admission, or its commit failed. */
  notApplied(operation: Operation, error: unknown): void;
}

export function busyError(): DomainError {
  return new DomainError('busy', MESSAGES.busy);
}

/**
 * Commits that may run at once, each on its own groups. SQLite has one writer: 1. PostgreSQL
 * commits batches of different groups in parallel on separate connections; a group always maps
 * to the same lane, so one group's operations still commit one batch at a time, in order.
 * Measured (npm run bench -- --store postgres --instances 2, acked/s and p99 ms at 2,000 / 5,000
 * / 20,000 offered): 1 lane 67 / 80 ms, 9,556/s; 2 lanes 40 / 74 ms, 13,062/s; 4 lanes 82 / 101
 * ms, 12,889/s (concurrent commits that NOTIFY queue for one lock: bench:notify).
 */
export const SQLITE_COMMIT_LANES = 1;
export const POSTGRES_COMMIT_LANES = 2;

/**
 * Adaptive batching (ADR 20). Each commit has a fixed cost (the transaction, the WAL append of
 * every page it touched) that a busy lane pays once per event-loop turn if it commits each turn:
 * at 5,000 taps/s in 400 groups most turns held one or two taps, and the transaction alone was a
 * quarter of the main thread. So a batch may wait a little for more operations, but only when the
 * lane's recent arrival rate says at least `minExpected` more will come in that time: an idle
 * lane commits at once, and a batch stops waiting as soon as it holds what was expected.
 */
export interface LingerPolicy {
  /** Longest the oldest operation of a batch waits for others to join it, ms; 0: never. */
  maxMs: number;
  /** A batch waits only when at least this many operations are expected within maxMs. */
  minExpected: number;
}

/**
 * What COMMIT_LINGER_MS=N turns on: batches wait up to N ms once at least 4 operations are
 * expected in that time. Off by default: lingering saves CPU per tap but adds its wait to every
 * tap's answer, and the p99 under load rose past the hot path's 20 ms target (ADR 20 has the
 * figures): a server short of CPU may trade the one for the other.
 */
export const DEFAULT_LINGER: LingerPolicy = { maxMs: 8, minExpected: 4 };
/** Commit every turn: the default. */
export const NO_LINGER: LingerPolicy = { maxMs: 0, minExpected: Infinity };

/** Arrivals are counted over windows this long to estimate a lane's rate, ms. */
const RATE_WINDOW_MS = 20;

/** One group-commit queue with at most one batch committing. */
class CommitLane {
  readonly queue = new FairQueue<Pending>();
  flushing: Promise<void> | null = null;
  scheduled = false;
  /** performance.now() at submission of the oldest operation being committed, ms. */
  committingSince: number | null = null;
  /** Operations in the commit under way, in all and by client. */
  committing = 0;
  committingBy = new Map<string, number>();
  /** The batch waiting for more operations (a linger timer), and how many it waits for. */
  private lingering: NodeJS.Timeout | undefined;
  private expected = 0;
  /** Recent arrival rate, operations per ms, from the arrivals of the current window. */
  private rate = 0;
  private arrivals = 0;
  private windowStart = performance.now();

  constructor(
    private readonly commit: (batch: Pending[]) => Promise<void>,
    private readonly flushed: () => void,
    private readonly linger: LingerPolicy,
  ) {}

  push(pending: Pending): void {
    this.queue.push(pending.client, pending.operation.groupId, pending);
    this.countArrival(pending.at);
    if (this.lingering !== undefined && this.queue.size >= this.expected) {
      // The batch holds what the rate said would come: no reason to wait longer.
      clearTimeout(this.lingering);
      this.lingering = undefined;
      setImmediate(this.run);
      return;
    }
    this.schedule();
  }

  get busy(): boolean {
    return this.queue.size > 0 || this.flushing !== null || this.scheduled;
  }

  private countArrival(now: number): void {
    this.arrivals += 1;
    const elapsed = now - this.windowStart;
    if (elapsed < RATE_WINDOW_MS) return;
    const measured = this.arrivals / elapsed;
    // After a silence longer than a few windows, what came before says nothing about now.
    const fresh = this.rate === 0 || elapsed > 4 * RATE_WINDOW_MS;
    this.rate = fresh ? measured : (this.rate + measured) / 2;
    this.arrivals = 0;
    this.windowStart = now;
  }

  private schedule(): void {
    if (this.scheduled || this.flushing) return;
    this.scheduled = true;
    const expected = this.rate * this.linger.maxMs;
    const oldest = this.queue.oldestAt ?? performance.now();
    const wait = this.linger.maxMs - (performance.now() - oldest);
    if (expected >= this.linger.minExpected && wait >= 1) {
      this.expected = Math.ceil(expected);
      this.lingering = setTimeout(this.run, wait);
      return;
    }
    // setImmediate runs after the I/O callbacks of this turn: every request already read from
    // the sockets joins the batch.
    setImmediate(this.run);
  }

  private readonly run = (): void => {
    this.lingering = undefined;
    this.scheduled = false;
    this.flushing = this.flushAll().finally(() => {
      this.flushing = null;
      this.flushed();
      if (this.queue.size > 0) this.schedule();
    });
  };

  private async flushAll(): Promise<void> {
    while (this.queue.size > 0) {
      const batch = this.queue.take(MAX_BATCH);
      this.committingSince = batch.reduce<number | null>(
        (oldest, pending) => (oldest === null || pending.at < oldest ? pending.at : oldest),
        null,
      );
      this.committing = batch.length;
      for (const { client } of batch) {
        this.committingBy.set(client, (this.committingBy.get(client) ?? 0) + 1);
      }
      try {
        await this.commit(batch);
      } finally {
        this.committingSince = null;
        this.committing = 0;
        this.committingBy.clear();
      }
    }
  }
}

/** A group's lane: a string hash (FNV-1a) of its id. */
function laneOf(groupId: string, lanes: number): number {
  if (lanes === 1) return 0;
  let hash = 0x811c9dc5;
  for (let i = 0; i < groupId.length; i += 1) {
    hash = Math.imul(hash ^ groupId.charCodeAt(i), 0x01000193);
  }
  return (hash >>> 0) % lanes;
}

export interface BatcherOptions {
  /** Where batches commit. */
  store: Store;
  /** Where each committed batch's changes are announced, once per group. */
  bus: Bus;
  /** When operations are refused `busy` instead of queued; DEFAULT_ADMISSION unless given. */
  admission?: AdmissionPolicy;
  /**
   * Independent commit queues, each with at most one batch committing; a group always uses the
   * same one (its changes commit in order). SQLITE_COMMIT_LANES unless given.
   */
  lanes?: number;
  /** Told of each commit and each refusal (metrics). */
  observer?: CommitObserver | undefined;
  /** Whether a batch may wait for more operations; NO_LINGER unless given. */
  linger?: LingerPolicy;
}

/**
 * A group's operations held back while an import prepares its entries (ADR 37): they wait, in
 * order, and join the queue when the hold ends. The import's own operation goes in meanwhile.
 */
export interface GroupHold {
  /** Commits the import's own operation, past the hold, in a commit of its own. */
  submit(operation: Operation, client?: string): Promise<OperationOutcome>;
  /** Ends the hold: the operations it kept join the queue. */
  release(): void;
}

interface HeldGroup {
  waiting: Pending[];
  /** Resolves when this hold ends (a second import of the group waits for it). */
  ended: Promise<void>;
}

export class Batcher {
  private readonly lanes: CommitLane[];
  /** Groups held by an import, and the operations that came for them meanwhile. */
  private readonly held = new Map<string, HeldGroup>();
  private readonly drainedListeners = new Set<() => void>();
  /** Operations refused `busy` since the start (for logs and tests). */
  refused = 0;

  private readonly store: Store;
  private readonly bus: Bus;
  private readonly admission: AdmissionPolicy;
  private readonly observer: CommitObserver | undefined;

  constructor({
    store,
    bus,
    admission = DEFAULT_ADMISSION,
    lanes = SQLITE_COMMIT_LANES,
    observer,
    linger = NO_LINGER,
  }: BatcherOptions) {
    this.store = store;
    this.bus = bus;
    this.admission = admission;
    this.observer = observer;
    const flushed = () => {
      // Under the target again (even with more queued meanwhile): paused sockets may send.
      if (!this.overloaded) for (const listener of this.drainedListeners) listener();
    };
    this.lanes = Array.from(
      { length: Math.max(1, lanes) },
      () => new CommitLane((batch) => this.commitBatch(batch), flushed, linger),
    );
  }

  /**
   * Applies an operation with its batch; rejects with `busy` (not applied) when overloaded, and
   * with `storage_unavailable` at once while the store cannot save (nothing queues meanwhile).
   */
  submit(operation: Operation, client = SERVER_CLIENT): Promise<OperationOutcome> {
    if (this.store.availability?.saving === false) {
      const error = new StorageUnavailableError('database unavailable');
      this.observer?.notApplied(operation, error);
      return Promise.reject(error);
    }
    if (this.overloadedFor(client)) {
      this.refused += 1;
      const error = busyError();
      this.observer?.notApplied(operation, error);
      return Promise.reject(error);
    }
    // One Map size read per operation while no import holds a group.
    const held = this.held.size > 0 ? this.held.get(operation.groupId) : undefined;
    if (held) {
      if (held.waiting.length >= this.admission.maxQueued) {
        this.refused += 1;
        const error = busyError();
        this.observer?.notApplied(operation, error);
        return Promise.reject(error);
      }
      return new Promise((resolve, reject) => {
        held.waiting.push({ operation, client, at: performance.now(), resolve, reject });
      });
    }
    return this.enqueue(operation, client);
  }

  private enqueue(operation: Operation, client: string): Promise<OperationOutcome> {
    const lane = this.lanes[laneOf(operation.groupId, this.lanes.length)] as CommitLane;
    return new Promise((resolve, reject) => {
      lane.push({ operation, client, at: performance.now(), resolve, reject });
    });
  }

  /**
   * Holds the group's new operations back until `release` (an import, ADR 37: its entries are
   * chained after the group's head, which must not move meanwhile). Waits for an earlier hold of
   * the same group to end. Operations already queued still commit.
   */
  async hold(groupId: string): Promise<GroupHold> {
    for (let earlier = this.held.get(groupId); earlier; earlier = this.held.get(groupId)) {
      await earlier.ended;
    }
    let end = (): void => undefined;
    const group: HeldGroup = {
      waiting: [],
      ended: new Promise((resolve) => {
        end = resolve;
      }),
    };
    this.held.set(groupId, group);
    let released = false;
    return {
      // Committed at once, on no lane: the group's own operations are held, and on PostgreSQL
      // the import's commit (its rows copied into the log) then keeps no other group's lane.
      submit: (operation, client = SERVER_CLIENT) =>
        new Promise((resolve, reject) => {
          void this.commitBatch([{ operation, client, at: performance.now(), resolve, reject }]);
        }),
      release: () => {
        if (released) return;
        released = true;
        this.held.delete(groupId);
        // Their wait is counted from now: a held group's operations must not make the queue
        // look late to everyone else's.
        const now = performance.now();
        for (const pending of group.waiting) {
          const lane = this.lanes[laneOf(groupId, this.lanes.length)] as CommitLane;
          lane.push({ ...pending, at: now });
        }
        end();
      },
    };
  }

  /**
   * Whether a new operation would be refused now: the queues hold their limit, or the oldest
   * operation not yet answered has waited longer than the target.
   */
  get overloaded(): boolean {
    return this.load().state !== 'fine';
  }

  /**
   * Whether an operation from `client` would be refused now. Past the target delay, only a
   * client holding at least its equal part of what waits is refused (the greedy one); the
   * others are still admitted, and their operations are served in turn (fair-queue.ts). At the
   * queue's cap every client is refused: it bounds memory.
   */
  overloadedFor(client: string): boolean {
    const { state } = this.load();
    if (state !== 'late') return state === 'full';
    let mine = 0;
    let waiting = 0;
    let clients = 0;
    for (const lane of this.lanes) {
      mine += lane.queue.queuedOf(client) + (lane.committingBy.get(client) ?? 0);
      waiting += lane.queue.size + lane.committing;
      clients += lane.queue.clientCount;
      for (const other of lane.committingBy.keys())
        if (lane.queue.queuedOf(other) === 0) clients += 1;
    }
    return mine > 0 && mine * clients >= waiting;
  }

  /** Whether the queue is fine, past its target delay (`late`) or at its cap (`full`). */
  private load(): { state: 'fine' | 'late' | 'full' } {
    let waiting = 0;
    let oldest: number | undefined;
    for (const lane of this.lanes) {
      waiting += lane.queue.size + lane.committing;
      const since = lane.committingSince ?? lane.queue.oldestAt;
      if (since !== undefined && (oldest === undefined || since < oldest)) oldest = since;
    }
    if (waiting >= this.admission.maxQueued) return { state: 'full' };
    if (waiting < this.admission.minQueued) return { state: 'fine' };
    const late = oldest !== undefined && performance.now() - oldest > this.admission.targetMs;
    return { state: late ? 'late' : 'fine' };
  }

  /** Calls `listener` after every flush that leaves the queue under its target; returns an unsubscribe. */
  onDrained(listener: () => void): () => void {
    this.drainedListeners.add(listener);
    return () => this.drainedListeners.delete(listener);
  }

  /** Resolves once everything submitted so far has committed (used on graceful stop). */
  async drain(): Promise<void> {
    for (;;) {
      const busy = this.lanes.find((lane) => lane.busy);
      if (!busy) return;
      await (busy.flushing ?? new Promise((resolve) => setImmediate(resolve)));
    }
  }

  private async commitBatch(batch: Pending[]): Promise<void> {
    let outcomes: OperationOutcome[];
    const operations = batch.map((pending) => pending.operation);
    // One pair of clock readings per commit, only when measured.
    const startedAt = this.observer ? performance.now() : 0;
    try {
      outcomes = await this.store.commit(operations);
    } catch (error) {
      this.observer?.commitFailed(error);
      if (batch.length === 1 || failsWholeBatch(error)) {
        // The store itself cannot commit (busy, unavailable): every operation would fail alike.
        for (const pending of batch) {
          this.observer?.notApplied(pending.operation, error);
          pending.reject(error);
        }
        return;
      }
      // One poisoned operation must not fail its neighbours: the batch is split in halves until
      // the bad one is alone (O(log n) extra commits per poisoned operation, in order).
      const half = Math.ceil(batch.length / 2);
      await this.commitBatch(batch.slice(0, half));
      await this.commitBatch(batch.slice(half));
      return;
    }
    this.observer?.committed(operations, outcomes, performance.now() - startedAt);
    this.announce(operations, outcomes);
    batch.forEach((pending, index) => {
      const outcome = outcomes[index];
      if (outcome) pending.resolve(outcome);
      else pending.reject(new Error('store returned fewer outcomes than operations'));
    });
  }

  /** One bus message per group per batch, changes in commit order. */
  private announce(operations: readonly Operation[], outcomes: readonly OperationOutcome[]): void {
    for (const [groupId, changes] of changesByGroup(operations, outcomes)) {
      this.bus.publish(groupId, changes);
    }
  }
}
