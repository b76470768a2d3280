/**
 * The group screen's state, and every write it makes. What the user sees is always "last known
 * server state + my pending operations", so taps show instantly and never count twice or jump
 * backwards. The parts, each with one job:
 *
 * - ./serverState.ts: the server's view of the group (join snapshot, live changes, answers), a
 *   pure reducer with the version and tombstone rules.
 * - ./lanes.ts: this tab's changes on their way: per-counter FIFO lanes, coalesced taps, retries.
 *   Every operation carries an id (Idempotency-Key): a retry after a lost answer applies once.
 * - ./view.ts: the pending operations replayed on top of the server state.
 * - ./outbox.ts: the pending operations, kept on every change: offline taps and edits survive a
 *   reload and are sent, with their ids, when the server is reachable again.
 * - ./connection.ts: the live channel.
 *
 * This module wires them together. An operation leaves the pending list in the same step as the
 * server state that contains it is applied: a live change tagged with its id, or its own HTTP
 * answer once the state held is at least as new (counter versions are the group's change numbers).
 */
import type {
  AccessLevel,
  AdjustDirection,
  Counter,
  Group,
  GroupSnapshot,
  MutationResult,
} from '../../shared/api.js';
import type { TapGrant } from '../../shared/links.js';
import type { PresenceMember } from '../../shared/protocol.js';
import { CLOSE_CODES } from '../../shared/live.js';
import { plural, t } from '@lingui/core/macro';
import { formatNumber } from '../i18n/format.js';
import { accessDenied } from '../i18n/messages.js';
import { sectionMaxOf } from '../../shared/rules.js';
import {
  ApiRequestError,
  fetchCounters,
  undoEntry,
  undoOperation,
  type GroupAuth,
} from '../lib/api.js';
import { newOperationId } from '../lib/ids.js';
import { PaceTracker, type PaceSample } from '../lib/pace.js';
import type { LiveConnection, LiveHandlers, LiveStatus } from './connection.js';
import { GROUP_LANE, Lanes, ORDER_LANE, type LaneClock, type LaneHandlers } from './lanes.js';
import type { CounterPatch, GroupPatch, Op } from './ops.js';
import { Outbox, outboxOwner } from './outbox.js';
import { sendOp } from './send.js';
import {
  applyOrder,
  initialServerState,
  reduce,
  wasDeleted,
  type GoalReached,
  type ServerEvent,
  type ServerState,
} from './serverState.js';
import { CounterViews, groupWithPending, orderWithPending } from './view.js';

export interface GroupViewState {
  group: Group;
  /**
   * In the group's order (this tab's pending reorder applied), pending changes applied, pending
   * deletes hidden; null until the list has loaded (meanwhile the page says 'Loading counters...').
   */
  counters: readonly Counter[] | null;
  /** Loading the list failed and nothing has filled it since (the banner says why). */
  countersFailed: boolean;
  status: LiveStatus;
  /** The message of the dismissible error banner (docs/product.md#body). */
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
  /** What this key allows: 'view' hides every editing control, 'tap' all but the taps. */
  access: AccessLevel;
  /** With a tap link's key: its label, scope and rights; null with any other key. */
  link: TapGrant | null;
  /** Who has the group open now (presence), one entry per browser; in a crowd the first ones. */
  members: readonly PresenceMember[];
  /** How many have the group open now (more than `members` holds in a crowd). */
  here: number;
  /** Goals just reached, live: each shown for GOAL_NOTICE_MS, oldest first. */
  goalNotices: readonly GoalNotice[];
  /** The server can save changes now; false while its database is away (changes wait here). */
  saving: boolean;
}

export interface GoalNotice {
  /** The change that reached the goal (its change number): one notice per change. */
  id: number;
  counterId: string;
  text: string;
}

/** How long a goal-reached notice stays on screen, ms (long enough to read it twice). */
export const GOAL_NOTICE_MS = 6_000;
/** At most this many goal notices at once (a burst of goals keeps the newest). */
const GOAL_NOTICES_MAX = 3;

/**
 * What the page says when a reorder or a section's maximum could not be saved and the server sent
 * no message of its own. (Not yet in shared/messages.ts, where the banner's other messages are.)
 */

/** This tab remembers its last changes for Ctrl+Z (the server keeps operation ids for 24 h). */
const UNDO_DEPTH = 100;

const browserClock: LaneClock = {
  setTimeout: (callback, ms) => window.setTimeout(callback, ms),
  clearTimeout: (handle) => {
    window.clearTimeout(handle);
  },
  random: () => Math.random(),
};

/** What a store opens a group with (routes/group/useGroupAccess.ts). */
export interface GroupOpening {
  /** The join answer: the group at change number `seq`, and what the key allows. */
  snapshot: Pick<GroupSnapshot, 'group' | 'seq' | 'access' | 'link'>;
  /** The key the group was opened with. */
  key: string;
  /** The counters' first load, already under way (lib/opening.ts). */
  counterList: Promise<readonly Counter[]>;
  /** This tab in 'Here now'; null joins the live channel without a member entry (the display). */
  member: PresenceMember | null;
}

export class GroupStore implements GroupAuth {
  /** The group's name and key: the store passes itself to its API calls and its live channel. */
  readonly slug: string;
  readonly key: string;
  private server: ServerState;
  private readonly lanes: Lanes;
  private readonly views = new CounterViews();
  /** This tab's confirmed operations, oldest first: what "undo my last change" walks back. */
  private readonly done: Op[] = [];
  /** How many of this tab's operations were confirmed, ever (UNDO_DEPTH does not lower it). */
  private confirmed = 0;
  private readonly listeners = new Set<() => void>();
  private connection: LiveConnection | null = null;
  private status: LiveStatus = 'connecting';
  private saving = true;
  private error: string | null = null;
  private fatal: string | null = null;
  private lastCreatedId: string | null = null;
  /** The last list load failed (the grid offers Try again). */
  private loadFailed = false;
  /** The banner message of that failure, to take it down once the list arrives after all. */
  private loadError: string | null = null;
  private disposed = false;
  private access: AccessLevel;
  private link: TapGrant | null;
  private members: readonly PresenceMember[] = [];
  private here = 0;
  private readonly member: PresenceMember | null;
  private readonly outbox: Outbox;
  /** The lanes' revision the outbox was last written at. */
  private savedRevision = 0;
  private goalNotices: readonly GoalNotice[] = [];
  private readonly goalTimers = new Set<number>();
  /** Reorders sent again after the server found them out of date (each is retried once). */
  private readonly reorderRetries = new Set<string>();
  /** Each counter's recent server values, for its pace (lib/pace.ts). */
  private readonly pace = new PaceTracker();
  private readonly counterList: Promise<readonly Counter[]>;
  private state: GroupViewState;

  constructor({ snapshot, key, counterList, member }: GroupOpening) {
    this.slug = snapshot.group.name;
    this.key = key;
    this.counterList = counterList;
    this.access = snapshot.access;
    this.link = snapshot.link ?? null;
    this.member = member;
    this.server = initialServerState(snapshot.group, snapshot.seq);
    this.lanes = new Lanes(this.laneHandlers, browserClock);
    this.outbox = new Outbox(outboxOwner(this.slug, this.link?.id ?? null), () =>
      this.lanes.pendingOps(),
    );
    this.state = this.buildState();
  }

  start(): void {
    window.addEventListener('online', this.retryNow);
    this.awaitCounterList(this.counterList);
    this.outbox.open().then(
      (stored) => {
        if (this.disposed) return;
        this.lanes.restore(stored);
        this.emit();
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
          this,
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
      this.link = message.link ?? null;
      // A `ready` means saving; the server follows it with `storage` while its database is away.
      this.saving = true;
      this.dispatch({
        type: 'snapshot',
        group: message.group,
        seq: message.seq,
        counters: message.counters,
      });
      // Changes queued for a counter the snapshot does not have (deleted meanwhile, also those
      // restored from the outbox) can only fail: they go.
      for (const id of this.lanes.counterIds()) {
        if (!this.server.counters.has(id)) this.lanes.drop(id);
      }
      this.listLoaded();
      this.emit();
    },
    onPresence: (members, count) => {
      this.members = members;
      this.here = count;
      this.emit();
    },
    onStorage: (saving) => {
      this.saving = saving;
      // Saving again: what waited goes now rather than at its next retry.
      if (saving) this.retryNow();
      this.emit();
    },
    onChanges: (changes) => {
      this.dispatch({ type: 'changes', changes });
      this.emit();
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
      // A tap link's key refused: the link was revoked (the reason says so).
      if (
        (code === CLOSE_CODES.keyChanged || code === CLOSE_CODES.forbidden) &&
        this.access === 'tap'
      ) {
        this.linkGone(reason);
        return;
      }
      // The key opened this group when the page did: refused now, it was replaced meanwhile
      // (e.g. while this page was offline and missed the 4410).
      if (code === CLOSE_CODES.keyChanged || code === CLOSE_CODES.forbidden) {
        this.fatal = this.keyReplacedMessage();
        this.emit();
        return;
      }
      this.fatal =
        reason || (code === CLOSE_CODES.groupNotFound ? t`Group not found` : accessDenied());
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
    this.lanes.dispose();
    for (const timer of this.goalTimers) window.clearTimeout(timer);
    this.goalTimers.clear();
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
    if (this.lanes.revision !== this.savedRevision) {
      this.savedRevision = this.lanes.revision;
      this.outbox.save(this.lanes.pendingOps());
    }
    this.state = this.buildState();
    for (const listener of this.listeners) listener();
  }

  private buildState(): GroupViewState {
    const counters: Counter[] = [];
    for (const id of orderWithPending(this.server.order, this.lanes.opsOf(ORDER_LANE))) {
      const view = this.counterView(id);
      if (view) counters.push(view);
    }
    const pending = this.lanes.pending();
    return {
      group: groupWithPending(this.server.group, this.lanes.opsOf(GROUP_LANE)),
      counters: this.server.loaded ? counters : null,
      countersFailed: !this.server.loaded && this.loadFailed,
      status: this.status,
      error: this.error,
      fatal: this.fatal,
      lastCreatedId: this.lastCreatedId,
      pendingCount: pending.count,
      pendingCounters: pending.counters,
      pendingDurable: this.outbox.durable,
      access: this.access,
      link: this.link,
      members: this.members,
      here: this.here,
      goalNotices: this.goalNotices,
      saving: this.saving,
    };
  }

  private counterView(id: string): Counter | null {
    const base = this.server.counters.get(id);
    if (!base) return null;
    return this.views.get(base, this.lanes.revisionOf(id), this.lanes.opsOf(id));
  }

  /** The counter's recent values (the same array until it changes), for its pace. */
  paceSamples(counterId: string): readonly PaceSample[] {
    return this.pace.samplesOf(counterId);
  }

  // ---- user actions ----------------------------------------------------------------------------

  /**
   * A tap; `extra` (the note dialog's) gives taps with a note or an earlier time (ISO `at`), one
   * change of their own, and the value change to show meanwhile (none for a count that corrects
   * an ended period).
   */
  adjust(
    counterId: string,
    direction: AdjustDirection,
    extra?: { times: number; delta: number; note?: string; at?: string },
  ): void {
    const view = this.counterView(counterId);
    if (!view) return;
    this.lanes.enqueue({
      kind: 'adjust',
      counterId,
      direction,
      times: 1,
      delta: direction === 'increment' ? view.incrementStep : -view.decrementStep,
      name: view.name,
      ...extra,
    });
    this.emit();
  }

  updateCounter(counterId: string, patch: CounterPatch): void {
    const view = this.counterView(counterId);
    if (!view || Object.keys(patch).length === 0) return;
    this.lanes.enqueue({ kind: 'patch', counterId, patch, name: view.name });
    this.emit();
  }

  deleteCounter(counterId: string): void {
    const view = this.counterView(counterId);
    if (!view) return;
    this.lanes.enqueue({ kind: 'delete', counterId, name: view.name });
    this.emit();
  }

  createCounter(): void {
    this.lanes.enqueue({ kind: 'create' });
    this.emit();
  }

  updateGroup(patch: GroupPatch): void {
    if (Object.keys(patch).length === 0) return;
    this.lanes.enqueue({ kind: 'group', patch });
    this.emit();
  }

  /**
   * Puts the counters in this order: shown at once, sent as one reorder. Counters it does not list
   * keep their relative order after the listed ones; the list sent names every counter the server
   * has when it leaves (see `prepare`).
   */
  reorder(counterIds: readonly string[]): void {
    const current = this.state.counters;
    if (current === null) return;
    const next = applyOrder(
      current.map((counter) => counter.id),
      counterIds,
    );
    if (next.every((id, index) => id === current[index]?.id)) return;
    this.lanes.enqueue({ kind: 'reorder', counterIds: next });
    this.emit();
  }

  /** Moves one counter `offset` places (-1: up, 1: down) in the group's order. */
  moveCounter(counterId: string, offset: number): void {
    const ids = (this.state.counters ?? []).map((counter) => counter.id);
    const from = ids.indexOf(counterId);
    const to = Math.max(0, Math.min(ids.length - 1, from + offset));
    if (from === -1 || from === to) return;
    ids.splice(from, 1);
    ids.splice(to, 0, counterId);
    this.reorder(ids);
  }

  /** Sets (a number ≥ 0) or clears (null) the maximum of the counters of one section together. */
  updateSection(section: string, max: number | null): void {
    if (sectionMaxOf(this.state.group.sectionLimits, section) === max) return;
    this.lanes.enqueue({ kind: 'section', section, max });
    this.emit();
  }

  dismissGoalNotice(id: number): void {
    this.goalNotices = this.goalNotices.filter((notice) => notice.id !== id);
    this.emit();
  }

  dismissError(): void {
    this.error = null;
    this.emit();
  }

  /** Try again after the list failed to load. */
  reloadCounters(): void {
    if (this.server.loaded) return;
    if (this.error === this.loadError) this.error = null;
    this.loadFailed = false;
    this.emit();
    this.awaitCounterList(fetchCounters(this));
  }

  // ---- undo ------------------------------------------------------------------------------------

  /** This tab's last confirmed change: what Ctrl+Z takes back. */
  get lastChange(): Op | undefined {
    return this.done.at(-1);
  }

  /** Whether every change of this tab has its answer, so `lastChange` is really the last. */
  get changesSettled(): boolean {
    return this.lanes.settled();
  }

  /** How many of this tab's changes the server has confirmed so far (the undo toast follows it). */
  get changesConfirmed(): number {
    return this.confirmed;
  }

  /**
   * Takes back what one of this tab's confirmed changes did. It is no longer offered at once; if
   * the undo fails in a way that may work later (offline), it is the next one to undo again. The
   * outcome needs no handling here: the change arrives over the live channel like any other.
   */
  undo(op: Op): Promise<MutationResult> {
    const index = this.done.lastIndexOf(op);
    if (index !== -1) this.done.splice(index, 1);
    return undoOperation(this, op.opId, newOperationId()).catch((error: unknown) => {
      if (error instanceof ApiRequestError && error.retriable) this.done.push(op);
      throw error;
    });
  }

  /** Takes back one entry of the activity log, anyone's (the activity panel's Undo). */
  undoEntry(entryId: number): Promise<MutationResult> {
    return undoEntry(this, entryId, newOperationId());
  }

  // ---- server state ----------------------------------------------------------------------------

  /** Applies what the server says, and retires or drops the pending operations it settles. */
  private dispatch(event: ServerEvent): void {
    const before = this.server.counters;
    const { state, removed, confirmed, goals } = reduce(this.server, event);
    this.server = state;
    this.pace.follow(before, state.counters, {
      time: Date.now(),
      reload: event.type === 'snapshot',
    });
    for (const id of removed) {
      this.lanes.drop(id);
      this.views.forget(id);
      this.pace.forget(id);
    }
    for (const opId of confirmed) this.lanes.retire(opId);
    for (const goal of goals) this.announceGoal(goal);
  }

  /** Everyone present sees a goal reached, for a few seconds (the grid's polite live region). */
  private announceGoal(goal: GoalReached): void {
    if (this.goalNotices.some((notice) => notice.id === goal.seq)) return;
    const notice: GoalNotice = {
      id: goal.seq,
      counterId: goal.counterId,
      text: goalReachedText(goal),
    };
    this.goalNotices = [...this.goalNotices, notice].slice(-GOAL_NOTICES_MAX);
    const timer = window.setTimeout(() => {
      this.goalTimers.delete(timer);
      this.dismissGoalNotice(notice.id);
    }, GOAL_NOTICE_MS);
    this.goalTimers.add(timer);
  }

  private awaitCounterList(list: Promise<readonly Counter[]>): void {
    list.then(
      (counters) => {
        // A live snapshot may have filled the grid first: it and the changes after it are newer.
        if (this.disposed || this.server.loaded) return;
        this.dispatch({ type: 'list', counters });
        this.listLoaded();
        this.emit();
      },
      (error: unknown) => {
        if (this.disposed || this.server.loaded) return;
        // The server's message, else 'Failed to load counters' (docs/product.md#body).
        const message =
          (error instanceof ApiRequestError ? error.serverMessage : undefined) ??
          t`Failed to load counters`;
        this.error = message;
        this.loadError = message;
        this.loadFailed = true;
        this.emit();
      },
    );
  }

  /** The list is here (e.g. from the live channel): a failure to load it is no news anymore. */
  private listLoaded(): void {
    if (this.loadFailed && this.error === this.loadError) this.error = null;
    this.loadFailed = false;
  }

  // ---- operations ------------------------------------------------------------------------------

  private readonly retryNow = (): void => {
    this.lanes.retryNow();
  };

  private readonly laneHandlers: LaneHandlers = {
    send: (op) => sendOp(this, op),
    newOpId: newOperationId,
    prepare: (op) => {
      // A reorder names every counter the server has now: those created since it was made
      // (e.g. while offline) keep their place after the ones it lists, deleted ones drop out.
      if (op.kind === 'reorder') op.counterIds = applyOrder(this.server.order, op.counterIds);
    },
    answered: (op, result, wasPending) => {
      this.remember(op);
      this.dispatch({ type: 'answer', op, result, wasPending });
      if (op.kind === 'create' && result) this.lastCreatedId = (result as Counter).id;
      this.emit();
    },
    failed: (op, error) => {
      this.failed(op, error);
      this.emit();
    },
    halted: (_op, error) => {
      if (this.access === 'tap') {
        this.linkGone(error.serverMessage ?? '');
        return;
      }
      // The group's key was replaced meanwhile: these changes stay kept (the outbox) and go out
      // once this browser opens the group with the new link. Nothing is sent until then.
      this.fatal = this.keyReplacedMessage();
      this.emit();
    },
  };

  /**
   * A tap link's key no longer opens the group (revoked, or every link revoked with a new access
   * key): unlike a replaced access key, no new link of the same kind will ever take its waiting
   * taps, so they are dropped, and the page says so in the server's words (LINK_MESSAGES.revoked).
   */
  private linkGone(reason: string): void {
    if (this.fatal !== null) return;
    const dropped = this.lanes.dropAll();
    this.connection?.stop();
    this.fatal = [reason || accessDenied(), droppedTaps(dropped)].join(' ').trim();
    this.emit();
  }

  private keyReplacedMessage(): string {
    return this.access === 'view'
      ? t`This view-only link no longer works. Ask a member for a new one.`
      : t`The access key of this group was changed. Ask a member for the new link.`;
  }

  private remember(op: Op): void {
    this.done.push(op);
    if (this.done.length > UNDO_DEPTH) this.done.splice(0, this.done.length - UNDO_DEPTH);
    this.confirmed += 1;
  }

  private failed(op: Op, error: unknown): void {
    const serverMessage = error instanceof ApiRequestError ? error.serverMessage : undefined;
    const notFound = error instanceof ApiRequestError && error.code === 'counter_not_found';
    switch (op.kind) {
      case 'adjust':
      case 'patch':
        // Someone else deleted the counter meanwhile: its card is gone, nothing to report.
        if (notFound && wasDeleted(this.server, op.counterId)) return;
        if (notFound) this.dispatch({ type: 'counterGone', counterId: op.counterId });
        this.error = serverMessage ?? t`Failed to update counter`;
        return;
      case 'delete':
        if (notFound) {
          this.dispatch({ type: 'counterGone', counterId: op.counterId });
          return;
        }
        this.error = serverMessage ?? t`Failed to delete counter`;
        return;
      case 'create':
        this.error = serverMessage ?? t`Failed to create counter`;
        return;
      case 'group':
        // A failed group update (name, picture, settings) is only logged: no banner.
        console.error('Failed to update group', error);
        return;
      case 'reorder':
        // Counters came or went between the reorder leaving and arriving (e.g. one kept offline):
        // once, the same order goes again, completed with what the server has now (prepare),
        // unless a later reorder waits (it says what the member wants now).
        if (
          error instanceof ApiRequestError &&
          (error.code === 'invalid_order' || error.code === 'validation_failed') &&
          !this.reorderRetries.has(op.opId)
        ) {
          if (this.lanes.opsOf(ORDER_LANE).length > 0) return;
          const retry = this.lanes.enqueue({ kind: 'reorder', counterIds: op.counterIds });
          if (retry !== undefined) this.reorderRetries.add(retry);
          return;
        }
        this.error = serverMessage ?? t`Failed to save the new order`;
        return;
      case 'section':
        this.error = serverMessage ?? t`Failed to update the section`;
        return;
    }
  }
}

/** What became of the taps that waited when a tap link stopped working. */
export function droppedTaps(count: number): string {
  if (count === 0) return '';
  return plural(count, {
    one: 'The tap waiting on this device was not counted.',
    other: 'The # taps waiting on this device were not counted.',
  });
}

/** "{member} reached the goal of {goal} on {counter}!" (docs/product.md#goals). */
function goalReachedText(goal: GoalReached): string {
  const member = goal.member;
  const counter = goal.counterName === '' ? t`New Counter` : goal.counterName;
  const target = formatNumber(goal.goal);
  return t`${member} reached the goal of ${target} on ${counter}!`;
}
