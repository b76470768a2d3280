/**
 * This tab's changes on their way to the server. Each counter has its own FIFO lane with one
 * request in flight, so a counter's changes reach the server in the order they were made (a
 * rename after a rename, a step change before the taps that use it); the group's own changes and
 * counter creations have a lane each. Taps made while a counter's request is in flight are
 * coalesced into one queued request (times = n). A request that got no answer, or a "try again
 * later" one, is retried with backoff; one the server refused leaves its lane and is reported.
 *
 * No network and no clock of its own: `send`, the timers and the randomness are given, so tests
 * drive it step by step. What to do with answers and failures is the caller's (./groupStore.ts).
 */
import { ApiRequestError } from '../lib/api.js';
import { changeCount, type Op, type OpResult, type StoredOp } from './ops.js';

/** The lanes of the changes that belong to no counter. */
export const GROUP_LANE = '#group';
export const CREATE_LANE = '#create';
/** The counters' order, a lane of its own (a reorder waits for no counter's taps). */
export const ORDER_LANE = '#order';

/** Retry delays for operations that got no answer, ms (doubling, capped). */
export const RETRY_BASE_MS = 500;
export const RETRY_MAX_MS = 10_000;
/**
 * Answers like 503 are retried this many times; lost connections, and a server whose database is
 * away (`storage_unavailable`), until they come back.
 */
export const MAX_SERVER_RETRIES = 8;

/** A change about to be queued: the lanes give it its operation id. */
export type NewOp = WithoutOpId<StoredOp>;
type WithoutOpId<T> = T extends unknown ? Omit<T, 'opId'> : never;

export interface LaneClock {
  setTimeout(callback: () => void, ms: number): number;
  clearTimeout(handle: number): void;
  /** In [0, 1): spreads retries so that many tabs do not come back at the same moment. */
  random(): number;
}

export interface LaneHandlers {
  /** Sends one operation: the server's answer, or an ApiRequestError. */
  send(op: Op): Promise<OpResult>;
  /** A fresh operation id (Idempotency-Key). */
  newOpId(): string;
  /**
   * Called once, right before an operation is sent for the first time (its content may still
   * change here; it is frozen from then on). E.g. a reorder made offline is completed with the
   * counters created meanwhile.
   */
  prepare?(op: Op): void;
  /**
   * The server applied `op`; it has left its lane. `wasPending`: it was still queued, that is no
   * live change carrying it arrived first. Called before the lane's next operation is sent.
   */
  answered(op: Op, result: OpResult, wasPending: boolean): void;
  /** The server refused `op`, or its retries ran out: it has left its lane. */
  failed(op: Op, error: unknown): void;
  /**
   * The group's key was replaced meanwhile: the lane stops with `op` and everything behind it
   * still queued (kept in the outbox) until it is pumped again.
   */
  halted(op: Op, error: ApiRequestError): void;
}

interface Lane {
  key: string;
  ops: Op[];
  inflight: Op | null;
  retryTimer: number | undefined;
  /** Failed tries of the operation at the head, for the backoff. */
  attempt: number;
}

export function laneOf(op: NewOp): string {
  switch (op.kind) {
    case 'create':
      return CREATE_LANE;
    case 'group':
    case 'section':
      return GROUP_LANE;
    case 'reorder':
      return ORDER_LANE;
    default:
      return op.counterId;
  }
}

export class Lanes {
  private readonly lanes = new Map<string, Lane>();
  private readonly byOpId = new Map<string, Lane>();
  private readonly revisions = new Map<string, number>();
  /** Bumped whenever the queued operations change: the outbox is rewritten when it moved. */
  revision = 0;
  private disposed = false;

  constructor(
    private readonly handlers: LaneHandlers,
    private readonly clock: LaneClock,
  ) {}

  /**
   * Queues a change and sends it as soon as its lane is free. A tap joins the lane's last tap in
   * the same direction while that one has not been sent; a reorder replaces the lane's last
   * reorder that has not been sent (only the latest order matters). Returns the id of the
   * operation that carries the change.
   */
  enqueue(change: NewOp): string | undefined {
    if (this.disposed) return undefined;
    const lane = this.lane(laneOf(change));
    const last = lane.ops.at(-1);
    let opId: string;
    if (
      change.kind === 'adjust' &&
      last?.kind === 'adjust' &&
      !last.sent &&
      last.direction === change.direction &&
      // A tap with a note or an earlier time is its own change, with its own entry.
      !(last.note ?? last.at ?? change.note ?? change.at)
    ) {
      last.times += change.times;
      last.delta += change.delta;
      opId = last.opId;
    } else if (change.kind === 'reorder' && last?.kind === 'reorder' && !last.sent) {
      last.counterIds = change.counterIds;
      opId = last.opId;
    } else {
      const op: Op = { ...change, opId: this.handlers.newOpId(), sent: false };
      lane.ops.push(op);
      this.byOpId.set(op.opId, lane);
      opId = op.opId;
    }
    this.changed(lane.key);
    this.pump(lane);
    return opId;
  }

  /**
   * Operations kept from before (a reload, or a tab closed while offline) go ahead of this page's
   * own, in their order, and are sent as they are: they may have reached the server already, so
   * they are never merged with new taps (a resend must be the same request).
   */
  restore(stored: readonly StoredOp[]): void {
    if (this.disposed) return;
    const byLane = new Map<Lane, Op[]>();
    for (const saved of stored) {
      if (this.byOpId.has(saved.opId)) continue;
      const lane = this.lane(laneOf(saved));
      const op: Op = { ...saved, sent: true };
      this.byOpId.set(op.opId, lane);
      byLane.set(lane, [...(byLane.get(lane) ?? []), op]);
    }
    for (const [lane, ops] of byLane) {
      // Behind the request in flight (the lane's head), ahead of everything else queued here.
      lane.ops.splice(lane.inflight ? 1 : 0, 0, ...ops);
      this.changed(lane.key);
    }
    this.revision += 1;
    for (const lane of byLane.keys()) this.pump(lane);
  }

  /** Removes a confirmed operation from its lane; false when it was not queued (anymore). */
  retire(opId: string): boolean {
    const lane = this.byOpId.get(opId);
    if (!lane) return false;
    this.byOpId.delete(opId);
    const index = lane.ops.findIndex((op) => op.opId === opId);
    if (index === -1) return false;
    lane.ops.splice(index, 1);
    this.changed(lane.key);
    return true;
  }

  /** Forgets a lane and what it queued (its counter is gone); an answer still due is ignored. */
  drop(key: string): void {
    const lane = this.lanes.get(key);
    if (!lane) return;
    if (lane.retryTimer !== undefined) this.clock.clearTimeout(lane.retryTimer);
    lane.retryTimer = undefined;
    for (const op of lane.ops) this.byOpId.delete(op.opId);
    if (lane.ops.length > 0) this.revision += 1;
    lane.ops = [];
    this.lanes.delete(key);
    this.bump(key);
  }

  /** Forgets every lane (the key that would send them is gone for good); the changes dropped. */
  dropAll(): number {
    const dropped = this.pending().count;
    for (const key of [...this.lanes.keys()]) this.drop(key);
    return dropped;
  }

  /** The server is reachable again: what waits for a retry goes now. */
  retryNow(): void {
    for (const lane of this.lanes.values()) {
      if (lane.retryTimer === undefined) continue;
      this.clock.clearTimeout(lane.retryTimer);
      lane.retryTimer = undefined;
      this.pump(lane);
    }
  }

  dispose(): void {
    this.disposed = true;
    for (const lane of this.lanes.values()) {
      if (lane.retryTimer !== undefined) this.clock.clearTimeout(lane.retryTimer);
    }
  }

  // ---- what is queued --------------------------------------------------------------------------

  /** A lane's queued operations, oldest first (the one in flight included). */
  opsOf(key: string): readonly Op[] {
    return this.lanes.get(key)?.ops ?? [];
  }

  /** Changes whenever `key`'s queued operations do (the store caches each counter's view on it). */
  revisionOf(key: string): number {
    return this.revisions.get(key) ?? 0;
  }

  /** The counters that have a lane. */
  counterIds(): string[] {
    return [...this.lanes.keys()].filter((key) => !key.startsWith('#'));
  }

  /** Every queued operation, as the outbox keeps it. */
  pendingOps(): StoredOp[] {
    const ops: StoredOp[] = [];
    for (const lane of this.lanes.values()) {
      for (const op of lane.ops) {
        const { sent: _sent, ...stored } = op;
        ops.push(stored);
      }
    }
    return ops;
  }

  /**
   * Whether every change has its answer. Not the same as nothing pending: the live channel can
   * confirm a change (retire) before its own answer arrives, and only the answer makes it this
   * tab's last change (what Ctrl+Z takes back).
   */
  settled(): boolean {
    for (const lane of this.lanes.values()) {
      if (lane.ops.length > 0 || lane.inflight) return false;
    }
    return true;
  }

  /** Queued changes, each tap counted; and the counters they are for. */
  pending(): { count: number; counters: Set<string> } {
    let count = 0;
    const counters = new Set<string>();
    for (const lane of this.lanes.values()) {
      count += changeCount(lane.ops);
      if (lane.ops.length > 0 && !lane.key.startsWith('#')) counters.add(lane.key);
    }
    return { count, counters };
  }

  // ---- sending ---------------------------------------------------------------------------------

  private lane(key: string): Lane {
    let lane = this.lanes.get(key);
    if (!lane) {
      lane = { key, ops: [], inflight: null, retryTimer: undefined, attempt: 0 };
      this.lanes.set(key, lane);
    }
    return lane;
  }

  private changed(key: string): void {
    this.revision += 1;
    this.bump(key);
  }

  private bump(key: string): void {
    this.revisions.set(key, this.revisionOf(key) + 1);
  }

  private pump(lane: Lane): void {
    if (this.disposed || lane.inflight || lane.retryTimer !== undefined) return;
    const op = lane.ops[0];
    if (!op) {
      if (this.lanes.get(lane.key) === lane) this.lanes.delete(lane.key);
      return;
    }
    if (!op.sent) this.handlers.prepare?.(op);
    op.sent = true;
    lane.inflight = op;
    this.handlers.send(op).then(
      (result) => {
        lane.inflight = null;
        lane.attempt = 0;
        if (this.disposed) return;
        const wasPending = this.retire(op.opId);
        this.handlers.answered(op, result, wasPending);
        this.pump(lane);
      },
      (error: unknown) => {
        lane.inflight = null;
        if (this.disposed) return;
        if (error instanceof ApiRequestError && error.code === 'wrong_key') {
          this.handlers.halted(op, error);
          return;
        }
        // A live change may have confirmed it meanwhile (the answer was lost, the change was not).
        const stillPending = lane.ops[0] === op;
        if (stillPending && shouldRetry(error, lane.attempt)) {
          lane.attempt += 1;
          lane.retryTimer = this.clock.setTimeout(
            () => {
              lane.retryTimer = undefined;
              this.pump(lane);
            },
            this.retryDelay(lane.attempt, error),
          );
          return;
        }
        lane.attempt = 0;
        if (stillPending) {
          this.retire(op.opId);
          this.handlers.failed(op, error);
        }
        this.pump(lane);
      },
    );
  }

  /** The wait before try number `attempt` + 1, ms. */
  private retryDelay(attempt: number, error: unknown): number {
    const ceiling = Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** (attempt - 1));
    // A busy server's Retry-After is a floor, spread by up to half so retries do not land together.
    const after = error instanceof ApiRequestError ? error.retryAfterMs : 0;
    return Math.max(
      ceiling / 2 + this.clock.random() * (ceiling / 2),
      after + this.clock.random() * (after / 2),
    );
  }
}

function shouldRetry(error: unknown, attempt: number): boolean {
  if (!(error instanceof ApiRequestError) || !error.retriable) return false;
  return error.status === 0 || error.code === 'storage_unavailable' || attempt < MAX_SERVER_RETRIES;
}
