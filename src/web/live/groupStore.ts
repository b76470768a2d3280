/**
 * The group screen's state: the server's view of the group (from the join snapshot, the live
 * channel and mutation answers) plus this tab's own operations that the server has not confirmed
 * yet, replayed on top. What the user sees is always "last known server state + my pending
 * operations", so taps show instantly and never count twice or jump backwards:
 *
 * - Increments are operations ("+1 step, n times"), never values. Taps on a counter that arrive
 *   while its previous request is in flight are coalesced into one request (times = n).
 * - Each counter has its own FIFO lane with one request in flight, so a counter's operations
 *   reach the server in the order the user made them (a rename after a rename, a step change
 *   before the taps that use it).
 * - Every operation carries an id (Idempotency-Key): a retry after a lost answer applies once.
 * - An operation leaves the pending list in the same step as the server state that contains it
 *   is applied: a live change tagged with its id, or its own HTTP answer once the state held is
 *   at least as new (counter versions are the group's change sequence numbers).
 * - Pending operations are kept in the outbox (./outbox.ts) on every change: offline taps and
 *   edits survive a reload and are sent, with their ids, when the server is reachable again.
 */
import type {
  AccessLevel,
  AdjustDirection,
  Counter,
  CounterPatchInput,
  Group,
  GroupPatchInput,
} from '../../shared/api.js';
import type { Change, PresenceMember } from '../../shared/protocol.js';
import { CLOSE_CODES } from '../../shared/live.js';
import { MESSAGES } from '../../shared/messages.js';
import {
  ApiRequestError,
  adjustCounter,
  createCounter,
  deleteCounter,
  fetchCounters,
  updateCounter,
  updateGroup,
} from '../lib/api.js';
import { newOperationId } from '../lib/ids.js';
import type { LiveConnection, LiveHandlers, LiveStatus, ReadyMessage } from './connection.js';
import { changeCount, Outbox, type StoredOp } from './outbox.js';

/** A display-ready counter patch (already sanitised / normalised as the server would). */
export type CounterPatch = Partial<
  Pick<
    Counter,
    'name' | 'description' | 'value' | 'incrementStep' | 'decrementStep' | 'thumbnailUrl'
  >
>;
export type GroupPatch = Partial<Pick<Group, 'displayName' | 'profileImageUrl'>>;

interface OpBase {
  opId: string;
  /** Handed to the network at least once: its content is frozen from then on. */
  sent: boolean;
  /** The counter's name as shown when the change was made ("Renamed Coffees → Teas"). */
  name?: string | undefined;
}
type AdjustOp = OpBase & {
  kind: 'adjust';
  counterId: string;
  direction: AdjustDirection;
  times: number;
  /** The value change shown meanwhile, from the step known when tapped. */
  delta: number;
};
type PatchOp = OpBase & { kind: 'patch'; counterId: string; patch: CounterPatch };
type DeleteOp = OpBase & { kind: 'delete'; counterId: string };
type CreateOp = OpBase & { kind: 'create' };
type GroupOp = OpBase & { kind: 'group'; patch: GroupPatch };
export type Op = AdjustOp | PatchOp | DeleteOp | CreateOp | GroupOp;

interface Lane {
  key: string;
  ops: Op[];
  inflight: Op | null;
  retryTimer: ReturnType<typeof setTimeout> | undefined;
  attempt: number;
}

export interface GroupViewState {
  group: Group;
  /**
   * In creation order, pending changes applied, pending deletes hidden; null until the list has
   * loaded (SPEC §2 'Loading counters...').
   */
  counters: readonly Counter[] | null;
  /** Loading the list failed and nothing has filled it since (the banner says why). */
  countersFailed: boolean;
  status: LiveStatus;
  /** SPEC §8: the dismissible banner. */
  error: string | null;
  /** The group became unreachable for good (e.g. it no longer exists). */
  fatal: string | null;
  /** The counter this tab created last (the screen scrolls it into view). */
  lastCreatedId: string | null;
  /** Changes not yet confirmed by the server, each tap counted ('3 changes waiting'). */
  pendingCount: number;
  /** Counters with changes not yet confirmed (their cards say so while offline). */
  pendingCounters: ReadonlySet<string>;
  /** Pending changes survive closing the tab (the outbox could be written). */
  pendingDurable: boolean;
  /** What this key allows: 'view' hides every editing control. */
  access: AccessLevel;
  /** Who has the group open now (presence), one entry per browser. */
  members: readonly PresenceMember[];
}

const GROUP_LANE = '#group';
const CREATE_LANE = '#create';
/** Retry delays for operations that got no answer, ms (doubling, capped). */
const RETRY_BASE_MS = 500;
const RETRY_MAX_MS = 10_000;
/** Answers like 503 are retried this many times; lost connections until they come back. */
const MAX_SERVER_RETRIES = 8;

export class GroupStore {
  private group: Group;
  private groupSeq: number;
  private readonly counters = new Map<string, Counter>();
  private order: string[] = [];
  /**
   * Deleted counter ids and the change number that deleted them (Infinity until known): events
   * no newer than that are late and ignored; a newer one is the counter coming back (an undo).
   */
  private readonly deleted = new Map<string, number>();
  /** This tab's confirmed operations, oldest first: what "undo my last change" walks back. */
  readonly done: Op[] = [];
  private readonly lanes = new Map<string, Lane>();
  private readonly byOpId = new Map<string, Lane>();
  private readonly viewCache = new Map<
    string,
    { base: Counter; rev: number; view: Counter | null }
  >();
  private readonly laneRevs = new Map<string, number>();
  private readonly listeners = new Set<() => void>();
  private connection: LiveConnection | null = null;
  private status: LiveStatus = 'connecting';
  private error: string | null = null;
  private fatal: string | null = null;
  private lastCreatedId: string | null = null;
  /** The counter list has arrived (list answer or a live snapshot). */
  private loaded = false;
  /** The last list load failed (the grid offers Try again). */
  private loadFailed = false;
  /** The banner message of that failure, to take it down once the list arrives after all. */
  private loadError: string | null = null;
  private disposed = false;
  private access: AccessLevel;
  private members: readonly PresenceMember[] = [];
  private readonly member: PresenceMember | null;
  private readonly outbox: Outbox;
  /** The pending operations changed since the outbox was last written. */
  private outboxDirty = false;
  private state: GroupViewState;

  /**
   * @param group the group as the join answer gave it, at change number `seq`
   * @param counterList the counters' first load, already under way (lib/opening.ts)
   */
  constructor(
    readonly slug: string,
    readonly key: string,
    group: Group,
    seq: number,
    private readonly counterList: Promise<readonly Counter[]>,
    access: AccessLevel = 'full',
    member: PresenceMember | null = null,
  ) {
    this.access = access;
    this.member = member;
    this.group = group;
    this.groupSeq = seq;
    this.outbox = new Outbox(slug, () => this.pendingOps());
    this.state = this.buildState();
  }

  start(): void {
    window.addEventListener('online', this.retryNow);
    this.awaitCounterList(this.counterList);
    this.outbox.open().then(
      (stored) => {
        if (!this.disposed) this.restore(stored);
      },
      (error: unknown) => {
        console.error('Could not read changes kept from before', error);
      },
    );
    // The first paint needs only the join snapshot: the socket client loads right after it.
    import('./connection.js').then(
      ({ LiveConnection }) => {
        if (this.disposed) return;
        this.connection = new LiveConnection(
          this.slug,
          this.key,
          this.liveHandlers,
          this.member ? { ...this.member } : null,
        );
        this.connection.start();
      },
      (error: unknown) => {
        console.error('Could not load the live connection', error);
        this.status = 'offline';
        this.emit();
      },
    );
  }

  private readonly liveHandlers: LiveHandlers = {
    onReady: (message) => {
      this.access = message.access;
      this.applySnapshot(message);
    },
    onPresence: (members) => {
      this.members = members;
      this.emit();
    },
    onChanges: (changes) => {
      this.applyChanges(changes);
    },
    onStatus: (status) => {
      this.status = status;
      // The server is reachable again: send what waited for it now.
      if (status === 'live') this.retryNow();
      this.emit();
    },
    onFatal: (code, reason) => {
      // This tab is changing the key itself: it moves to the new one, not to Access Denied.
      if ((code === CLOSE_CODES.keyChanged || code === CLOSE_CODES.forbidden) && this.changingKey)
        return;
      // The key opened this group when the page did: refused now, it was replaced meanwhile
      // (e.g. while this page was offline and missed the 4410).
      if (code === CLOSE_CODES.keyChanged || code === CLOSE_CODES.forbidden) {
        this.fatal = this.access === 'view' ? MESSAGES.viewLinkChanged : MESSAGES.keyChanged;
        this.emit();
        return;
      }
      this.fatal =
        reason ||
        (code === CLOSE_CODES.groupNotFound ? MESSAGES.groupNotFound : MESSAGES.accessDenied);
      this.emit();
    },
  };

  private changingKey = false;

  /** This tab is about to replace the group's key: its own 4410 close is expected. */
  expectKeyChange(expected: boolean): void {
    this.changingKey = expected;
  }

  /** The 'Signed in as' name changed: the others' 'Here now' lists follow. */
  renameMember(name: string): void {
    this.connection?.rename(name);
  }

  dispose(): void {
    this.disposed = true;
    window.removeEventListener('online', this.retryNow);
    this.connection?.stop();
    for (const lane of this.lanes.values()) clearTimeout(lane.retryTimer);
    this.listeners.clear();
  }

  // ---- React binding ---------------------------------------------------------------------------

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  };

  readonly getState = (): GroupViewState => this.state;

  private emit(): void {
    if (this.disposed) return;
    if (this.outboxDirty) {
      this.outboxDirty = false;
      this.outbox.save(this.pendingOps());
    }
    this.state = this.buildState();
    for (const listener of this.listeners) listener();
  }

  private buildState(): GroupViewState {
    const counters: Counter[] = [];
    for (const id of this.order) {
      const view = this.counterView(id);
      if (view) counters.push(view);
    }
    let pendingCount = 0;
    const pendingCounters = new Set<string>();
    for (const lane of this.lanes.values()) {
      pendingCount += changeCount(lane.ops);
      if (lane.ops.length > 0 && !lane.key.startsWith('#')) pendingCounters.add(lane.key);
    }
    return {
      group: this.groupView(),
      counters: this.loaded ? counters : null,
      countersFailed: !this.loaded && this.loadFailed,
      status: this.status,
      error: this.error,
      fatal: this.fatal,
      lastCreatedId: this.lastCreatedId,
      pendingCount,
      pendingCounters,
      pendingDurable: this.outbox.durable,
      access: this.access,
      members: this.members,
    };
  }

  private counterView(id: string): Counter | null {
    const base = this.counters.get(id);
    if (!base) return null;
    const rev = this.laneRevs.get(id) ?? 0;
    const cached = this.viewCache.get(id);
    if (cached && cached.base === base && cached.rev === rev) return cached.view;
    let view: Counter | null = base;
    for (const op of this.lanes.get(id)?.ops ?? []) {
      if (view === null) break;
      if (op.kind === 'adjust') view = { ...view, value: view.value + op.delta };
      else if (op.kind === 'patch') view = { ...view, ...op.patch };
      else if (op.kind === 'delete') view = null;
    }
    this.viewCache.set(id, { base, rev, view });
    return view;
  }

  private groupView(): Group {
    let view = this.group;
    for (const op of this.lanes.get(GROUP_LANE)?.ops ?? []) {
      if (op.kind === 'group') view = { ...view, ...op.patch };
    }
    return view;
  }

  // ---- user actions ----------------------------------------------------------------------------

  adjust(counterId: string, direction: AdjustDirection): void {
    const view = this.counterView(counterId);
    if (!view) return;
    const delta = direction === 'increment' ? view.incrementStep : -view.decrementStep;
    const lane = this.lane(counterId);
    const last = lane.ops.at(-1);
    if (last?.kind === 'adjust' && !last.sent && last.direction === direction) {
      last.times += 1;
      last.delta += delta;
      this.outboxDirty = true;
    } else {
      this.enqueue(lane, {
        kind: 'adjust',
        opId: newOperationId(),
        sent: false,
        counterId,
        direction,
        times: 1,
        delta,
      });
    }
    this.touch(counterId);
    this.emit();
    this.pump(lane);
  }

  updateCounter(counterId: string, patch: CounterPatch): void {
    if (!this.counterView(counterId) || Object.keys(patch).length === 0) return;
    const lane = this.lane(counterId);
    this.enqueue(lane, { kind: 'patch', opId: newOperationId(), sent: false, counterId, patch });
    this.touch(counterId);
    this.emit();
    this.pump(lane);
  }

  deleteCounter(counterId: string): void {
    if (!this.counterView(counterId)) return;
    const lane = this.lane(counterId);
    this.enqueue(lane, { kind: 'delete', opId: newOperationId(), sent: false, counterId });
    this.touch(counterId);
    this.emit();
    this.pump(lane);
  }

  createCounter(): void {
    const lane = this.lane(CREATE_LANE);
    this.enqueue(lane, { kind: 'create', opId: newOperationId(), sent: false });
    this.emit();
    this.pump(lane);
  }

  updateGroup(patch: GroupPatch): void {
    if (Object.keys(patch).length === 0) return;
    const lane = this.lane(GROUP_LANE);
    this.enqueue(lane, { kind: 'group', opId: newOperationId(), sent: false, patch });
    this.emit();
    this.pump(lane);
  }

  dismissError(): void {
    this.error = null;
    this.emit();
  }

  /** Try again after the list failed to load. */
  reloadCounters(): void {
    if (this.loaded) return;
    if (this.error === this.loadError) this.error = null;
    this.loadFailed = false;
    this.emit();
    this.awaitCounterList(fetchCounters(this.slug, this.key));
  }

  // ---- counter list ----------------------------------------------------------------------------

  private awaitCounterList(list: Promise<readonly Counter[]>): void {
    list.then(
      (counters) => {
        // A live snapshot may have filled the grid first: it and the changes after it are newer.
        if (this.disposed || this.loaded) return;
        for (const counter of counters) this.absorbCounter(counter);
        this.markLoaded();
        this.emit();
      },
      (error: unknown) => {
        if (this.disposed || this.loaded) return;
        // SPEC §8: the error's message, else 'Failed to load counters'.
        const message =
          (error instanceof ApiRequestError ? error.serverMessage : undefined) ??
          MESSAGES.failedToLoadCounters;
        this.error = message;
        this.loadError = message;
        this.loadFailed = true;
        this.emit();
      },
    );
  }

  private markLoaded(): void {
    this.loaded = true;
    // The list is here after all (e.g. from the live channel): its failure is no news anymore.
    if (this.loadFailed && this.error === this.loadError) this.error = null;
    this.loadFailed = false;
  }

  // ---- server state ----------------------------------------------------------------------------

  /**
   * A `ready` snapshot replaces what is held, except what is provably newer than it: counters
   * (and the group) this tab already saw at a later version through an HTTP answer.
   */
  private applySnapshot(message: ReadyMessage): void {
    const next = new Map<string, Counter>();
    const order: string[] = [];
    for (const counter of message.counters) {
      if (this.gone(counter)) continue;
      this.deleted.delete(counter.id);
      const held = this.counters.get(counter.id);
      next.set(counter.id, held && held.version > counter.version ? held : counter);
      order.push(counter.id);
    }
    for (const id of this.order) {
      const held = this.counters.get(id);
      if (!held || next.has(id)) continue;
      if (held.version > message.seq) {
        // Created after the snapshot was taken (this tab saw it in an HTTP answer first).
        next.set(id, held);
        order.push(id);
      } else this.deleted.set(id, message.seq);
    }
    this.counters.clear();
    for (const [id, counter] of next) this.counters.set(id, counter);
    this.order = order;
    for (const id of [...this.lanes.keys()]) {
      if (!id.startsWith('#') && !this.counters.has(id)) this.dropLane(id);
    }
    if (message.seq >= this.groupSeq) {
      this.group = message.group;
      this.groupSeq = message.seq;
    }
    this.markLoaded();
    this.emit();
  }

  private applyChanges(changes: readonly Change[]): void {
    for (const change of changes) {
      switch (change.type) {
        case 'counter.created':
        case 'counter.updated':
          this.absorbCounter(change.counter);
          break;
        case 'counter.deleted':
          this.removeCounter(change.counterId, change.seq);
          break;
        case 'group.updated':
          if (change.seq > this.groupSeq) {
            this.group = change.group;
            this.groupSeq = change.seq;
          }
          break;
      }
      for (const opId of change.opIds ?? []) this.retire(opId);
    }
    this.emit();
  }

  /** Inserts a counter (skipping duplicates) or applies it if newer than the one held. */
  private absorbCounter(counter: Counter): void {
    if (this.gone(counter)) return;
    this.deleted.delete(counter.id);
    const held = this.counters.get(counter.id);
    if (held) {
      if (counter.version > held.version) this.counters.set(counter.id, counter);
      return;
    }
    this.counters.set(counter.id, counter);
    // Keep creation order even if events arrive out of order.
    let index = this.order.length;
    while (index > 0) {
      const previous = this.counters.get(this.order[index - 1] ?? '');
      if (!previous || previous.createdAt <= counter.createdAt) break;
      index -= 1;
    }
    this.order.splice(index, 0, counter.id);
  }

  /** Deleted at or after this counter's version: it is a late event of a deleted counter. */
  private gone(counter: Counter): boolean {
    return counter.version <= (this.deleted.get(counter.id) ?? -1);
  }

  private removeCounter(id: string, seq = Infinity): void {
    this.deleted.set(id, Math.min(seq, this.deleted.get(id) ?? seq));
    this.counters.delete(id);
    this.viewCache.delete(id);
    this.order = this.order.filter((other) => other !== id);
    this.dropLane(id);
  }

  // ---- operation lanes -------------------------------------------------------------------------

  private lane(key: string): Lane {
    let lane = this.lanes.get(key);
    if (!lane) {
      lane = { key, ops: [], inflight: null, retryTimer: undefined, attempt: 0 };
      this.lanes.set(key, lane);
    }
    return lane;
  }

  private enqueue(lane: Lane, op: Op): void {
    op.name = this.counterView(lane.key)?.name;
    lane.ops.push(op);
    this.byOpId.set(op.opId, lane);
    this.outboxDirty = true;
  }

  /**
   * Operations kept from before (a reload, or a tab closed while offline) go ahead of this page's
   * own, in their order, and are sent as they are: they may have reached the server already, so
   * they are never merged with new taps (a resend must be the same request).
   */
  private restore(stored: readonly StoredOp[]): void {
    const byLane = new Map<Lane, Op[]>();
    for (const saved of stored) {
      if (this.byOpId.has(saved.opId)) continue;
      const key =
        saved.kind === 'create'
          ? CREATE_LANE
          : saved.kind === 'group'
            ? GROUP_LANE
            : saved.counterId;
      const lane = this.lane(key);
      const op = { ...saved, sent: true } as Op;
      this.byOpId.set(op.opId, lane);
      byLane.set(lane, [...(byLane.get(lane) ?? []), op]);
    }
    for (const [lane, ops] of byLane) {
      // Behind the request in flight (the lane's head), ahead of everything else queued here.
      lane.ops.splice(lane.inflight ? 1 : 0, 0, ...ops);
      this.touch(lane.key);
    }
    this.outboxDirty = true;
    this.emit();
    for (const lane of byLane.keys()) this.pump(lane);
  }

  /** Every pending operation, as the outbox keeps it. */
  private pendingOps(): StoredOp[] {
    const ops: StoredOp[] = [];
    for (const lane of this.lanes.values()) {
      for (const op of lane.ops) {
        const { sent: _sent, ...stored } = op;
        ops.push(stored);
      }
    }
    return ops;
  }

  private touch(key: string): void {
    this.laneRevs.set(key, (this.laneRevs.get(key) ?? 0) + 1);
  }

  /** Removes a confirmed (or failed) operation from its lane. */
  private retire(opId: string): boolean {
    const lane = this.byOpId.get(opId);
    if (!lane) return false;
    this.byOpId.delete(opId);
    const index = lane.ops.findIndex((op) => op.opId === opId);
    if (index === -1) return false;
    lane.ops.splice(index, 1);
    this.touch(lane.key);
    this.outboxDirty = true;
    return true;
  }

  private dropLane(key: string): void {
    const lane = this.lanes.get(key);
    if (!lane) return;
    clearTimeout(lane.retryTimer);
    for (const op of lane.ops) this.byOpId.delete(op.opId);
    if (lane.ops.length > 0) this.outboxDirty = true;
    lane.ops = [];
    this.lanes.delete(key);
    this.touch(key);
  }

  private pump(lane: Lane): void {
    if (this.disposed || lane.inflight || lane.retryTimer !== undefined) return;
    const op = lane.ops[0];
    if (!op) {
      if (this.lanes.get(lane.key) === lane) this.lanes.delete(lane.key);
      return;
    }
    op.sent = true;
    lane.inflight = op;
    this.send(op).then(
      (result) => {
        lane.inflight = null;
        lane.attempt = 0;
        if (this.disposed) return;
        this.done.push(op);
        this.succeeded(op, result);
        this.emit();
        this.pump(lane);
      },
      (error: unknown) => {
        lane.inflight = null;
        if (this.disposed) return;
        if (error instanceof ApiRequestError && error.code === 'wrong_key') {
          // The group's key was replaced meanwhile: these changes stay kept (the outbox) and go
          // out once this browser opens the group with the new link. Nothing is sent until then.
          this.fatal = this.access === 'view' ? MESSAGES.viewLinkChanged : MESSAGES.keyChanged;
          this.emit();
          return;
        }
        const stillPending = lane.ops[0] === op;
        if (stillPending && shouldRetry(error, lane.attempt)) {
          lane.attempt += 1;
          const ceiling = Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** (lane.attempt - 1));
          // A busy server's Retry-After is a floor, spread by up to half so retries do not land
          // together.
          const after = error instanceof ApiRequestError ? error.retryAfterMs : 0;
          lane.retryTimer = setTimeout(
            () => {
              lane.retryTimer = undefined;
              this.pump(lane);
            },
            Math.max(
              ceiling / 2 + Math.random() * (ceiling / 2),
              after + Math.random() * (after / 2),
            ),
          );
          return;
        }
        lane.attempt = 0;
        if (stillPending) {
          this.retire(op.opId);
          this.failed(op, error);
        }
        this.emit();
        this.pump(lane);
      },
    );
  }

  private readonly retryNow = (): void => {
    for (const lane of this.lanes.values()) {
      if (lane.retryTimer === undefined) continue;
      clearTimeout(lane.retryTimer);
      lane.retryTimer = undefined;
      this.pump(lane);
    }
  };

  private send(op: Op): Promise<Counter | Group | undefined> {
    const { slug, key } = this;
    switch (op.kind) {
      case 'adjust':
        return adjustCounter(slug, key, op.counterId, op.direction, op.times, op.opId);
      case 'patch':
        return updateCounter(
          slug,
          key,
          op.counterId,
          op.patch satisfies CounterPatchInput,
          op.opId,
        );
      case 'delete':
        return deleteCounter(slug, key, op.counterId, op.opId);
      case 'create':
        return createCounter(slug, key, op.opId);
      case 'group':
        return updateGroup(slug, key, op.patch satisfies GroupPatchInput, op.opId);
    }
  }

  private succeeded(op: Op, result: Counter | Group | undefined): void {
    switch (op.kind) {
      case 'adjust':
      case 'patch':
        // The answer is the counter right after this operation: once what we hold is at least
        // that new, it contains the operation, so the pending copy goes in the same step.
        if (result) this.absorbCounter(result as Counter);
        this.retire(op.opId);
        return;
      case 'create': {
        const counter = result as Counter;
        this.absorbCounter(counter);
        this.retire(op.opId);
        this.lastCreatedId = counter.id;
        return;
      }
      case 'delete':
        this.retire(op.opId);
        this.removeCounter(op.counterId);
        return;
      case 'group':
        // Without a version on groups, the answer only counts while the live change that carries
        // this operation has not arrived (after it, the change stream is at least as new).
        if (this.retire(op.opId)) this.group = result as Group;
        return;
    }
  }

  private failed(op: Op, error: unknown): void {
    const serverMessage = error instanceof ApiRequestError ? error.serverMessage : undefined;
    const notFound = error instanceof ApiRequestError && error.code === 'counter_not_found';
    switch (op.kind) {
      case 'adjust':
      case 'patch':
        // Someone else deleted the counter meanwhile: its card is gone, nothing to report.
        if (notFound && this.deleted.has(op.counterId)) return;
        if (notFound) this.removeCounter(op.counterId);
        this.error = serverMessage ?? MESSAGES.failedToUpdateCounter;
        return;
      case 'delete':
        if (notFound) {
          this.removeCounter(op.counterId);
          return;
        }
        this.error = serverMessage ?? MESSAGES.failedToDeleteCounter;
        return;
      case 'create':
        this.error = serverMessage ?? MESSAGES.failedToCreateCounter;
        return;
      case 'group':
        // SPEC §8: group update failures are only logged.
        console.error('Failed to update group', error);
        return;
    }
  }
}

function shouldRetry(error: unknown, attempt: number): boolean {
  if (!(error instanceof ApiRequestError) || !error.retriable) return false;
  return error.status === 0 || attempt < MAX_SERVER_RETRIES;
}
