/**
 * One group's live channel in this instance: the sockets subscribed to the group and the
 * sequencer that hands them the group's changes strictly in change-number order.
 *
 * Change numbers (seq) of a group have no gaps. With one instance changes arrive in order; with
 * several (PostgreSQL), a change committed here may be delivered before an older one from another
 * instance has arrived. The channel holds such a change until the gap fills, and if it has not
 * filled within gapTimeoutMs it reloads the group and sends every member a fresh snapshot, so a
 * member never silently misses a change.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { GroupView } from '../../shared/api.js';
import type { GroupRecord } from '../store/types.js';
import type { Change, ServerMessage } from '../../shared/protocol.js';
import type { Bus } from '../bus/types.js';
import { shareFrame, type SharedFrame } from './corked.js';
import { FoldingBuffer, coalescedFrame, windowMsFor, type CoalescedFrame } from './fanout.js';

/** How long a change waits for an older one before the channel resyncs, ms. */
export const GAP_TIMEOUT_MS = 1_000;

export interface ChannelMember {
  /** Sends a `ready` snapshot; the member replaces its state with it. */
  sendSnapshot(snapshot: GroupView): void;
  /** Sends an already-serialised frame (text for this member alone, or shared by several). */
  sendFrame(frame: string | SharedFrame): void;
  /**
   * Whether the member sees only part of the group (a tap link): it then takes its changes by
   * `sendChanges`, to send what it may see; every other member gets one frame shared by all.
   */
  seesPart(): boolean;
  sendChanges(changes: readonly Change[]): void;
  /** Whether the key this member joined with still opens the group as it is now. */
  stillOpens(group: GroupRecord): boolean;
  /** Closes the member: its key no longer opens the group (CLOSE_CODES.keyChanged). */
  revoke(): void;
}

interface MemberState {
  /** Changes numbered up to here are in the member's snapshot; null while it is loading. */
  since: number | null;
  /** Changes that arrived while the member's snapshot was loading. */
  waiting: Change[];
}

export interface GroupChannelOptions {
  /** Where the group's committed changes arrive. */
  bus: Bus;
  groupId: string;
  /** The group as it is now, for members joining and for resyncs. */
  loadSnapshot: () => Promise<GroupView>;
  /** The group's current record, keys included, to re-check members after access changes. */
  loadGroup: () => Promise<GroupRecord | null>;
  log: FastifyBaseLogger;
  /** How long a change waits for an older one before the channel resyncs, ms. */
  gapTimeoutMs?: number;
}

export class GroupChannel {
  private readonly members = new Map<ChannelMember, MemberState>();
  /** The next change number to deliver; null until the first snapshot tells it. */
  private expected: number | null = null;
  private early: Change[] = [];
  private readonly held = new Map<number, Change>();
  private gapTimer: NodeJS.Timeout | undefined;
  /** A large group's coalescing window (live/fanout.ts): open while a timer is set. */
  private windowTimer: NodeJS.Timeout | undefined;
  private readonly pending = new FoldingBuffer();
  private readonly unsubscribe: () => void;
  private closed = false;

  private readonly loadSnapshot: () => Promise<GroupView>;
  private readonly loadGroup: () => Promise<GroupRecord | null>;
  private readonly log: FastifyBaseLogger;
  private readonly gapTimeoutMs: number;

  constructor({
    bus,
    groupId,
    loadSnapshot,
    loadGroup,
    log,
    gapTimeoutMs = GAP_TIMEOUT_MS,
  }: GroupChannelOptions) {
    this.loadSnapshot = loadSnapshot;
    this.loadGroup = loadGroup;
    this.log = log;
    this.gapTimeoutMs = gapTimeoutMs;
    this.unsubscribe = bus.subscribe(groupId, (changes) => {
      this.receive(changes);
    });
  }

  get size(): number {
    return this.members.size;
  }

  /**
   * Adds a member: it is subscribed before its snapshot is read, so every change is either in
   * the snapshot or delivered after it.
   */
  async add(member: ChannelMember): Promise<void> {
    const state: MemberState = { since: null, waiting: [] };
    this.members.set(member, state);
    const snapshot = await this.loadSnapshot();
    if (this.closed || !this.members.has(member)) return;
    this.start(snapshot.seq);
    state.since = snapshot.seq;
    member.sendSnapshot(snapshot);
    const newer = state.waiting.filter((change) => change.seq > snapshot.seq);
    state.waiting = [];
    if (newer.length > 0) sendChanges(member, newer);
  }

  /** Sends a frame to every member that has its snapshot (presence lists). */
  broadcast(text: string): void {
    let frame: SharedFrame | undefined;
    for (const [member, state] of this.members) {
      if (state.since !== null) member.sendFrame((frame ??= shareFrame(text)));
    }
  }

  remove(member: ChannelMember): void {
    this.members.delete(member);
  }

  /** Reloads the group and sends every member a fresh snapshot (after a gap or a lost feed). */
  async resync(): Promise<void> {
    const snapshot = await this.loadSnapshot();
    if (this.closed) return;
    this.expected = snapshot.seq + 1;
    this.early = [];
    for (const seq of this.held.keys()) if (seq <= snapshot.seq) this.held.delete(seq);
    this.clearGapTimer();
    for (const [member, state] of this.members) {
      if (state.since === null) continue;
      state.since = snapshot.seq;
      member.sendSnapshot(snapshot);
    }
    this.deliver(this.drainHeld());
    // What was missed may have been a change of key.
    await this.verifyMembers();
  }

  /**
   * Closes every member whose key no longer opens the group (after the access key was replaced
   * or the view-only link turned off). Members re-checked against the stored keys, not against
   * the change, so a member that joined with the new key stays, whatever the order of events.
   */
  async verifyMembers(): Promise<void> {
    const group = await this.loadGroup();
    for (const member of [...this.members.keys()]) {
      if (!group || !member.stillOpens(group)) {
        this.members.delete(member);
        member.revoke();
      }
    }
  }

  close(): void {
    this.closed = true;
    this.clearGapTimer();
    clearTimeout(this.windowTimer);
    this.windowTimer = undefined;
    this.unsubscribe();
    this.members.clear();
  }

  // ---- sequencing ----------------------------------------------------------------------------

  private start(seq: number): void {
    if (this.expected !== null) return;
    this.expected = seq + 1;
    const early = this.early;
    this.early = [];
    this.receive(early);
  }

  private receive(changes: readonly Change[]): void {
    if (this.expected === null) {
      this.early.push(...changes);
      return;
    }
    const ready: Change[] = [];
    for (const change of changes) {
      if (change.seq < this.expected) continue; // already delivered: a duplicate
      if (change.seq > this.expected) {
        this.held.set(change.seq, change);
        continue;
      }
      ready.push(change);
      this.expected += 1;
      ready.push(...this.drainHeld());
    }
    this.deliver(ready);
    if (this.held.size === 0) this.clearGapTimer();
    else
      this.gapTimer ??= setTimeout(() => {
        this.gapTimer = undefined;
        this.log.warn({ held: this.held.size }, 'live changes missing: resyncing group');
        this.resync().catch((error: unknown) => {
          this.log.error({ err: error }, 'live resync failed');
        });
      }, this.gapTimeoutMs);
  }

  private drainHeld(): Change[] {
    const drained: Change[] = [];
    if (this.expected === null) return drained;
    for (let next = this.held.get(this.expected); next; next = this.held.get(this.expected)) {
      this.held.delete(this.expected);
      drained.push(next);
      this.expected += 1;
    }
    return drained;
  }

  /**
   * Hands changes to the members: at once in a small group, or while a large group's window is
   * closed (then opening one); held and folded while its window is open (live/fanout.ts).
   */
  private deliver(changes: readonly Change[]): void {
    if (changes.length === 0) return;
    if (changes.some((change) => change.type === 'group.accessChanged')) {
      this.verifyMembers().catch((error: unknown) => {
        this.log.error({ err: error }, 'live access check failed');
      });
    }
    if (this.windowTimer !== undefined) {
      this.pending.push(changes);
      return;
    }
    this.send({ from: changes[0]?.seq ?? 0, changes: [...changes] }, false);
    this.openWindow();
  }

  /** Opens the next window if the group is large (a small one sends each batch at once). */
  private openWindow(): void {
    const windowMs = windowMsFor(this.members.size);
    if (windowMs === 0) return;
    this.windowTimer = setTimeout(() => {
      this.windowTimer = undefined;
      if (this.closed || this.pending.size === 0) return;
      for (const frame of this.pending.take()) this.send(frame, true);
      this.openWindow();
    }, windowMs);
  }

  /**
   * One frame shared by all members whose snapshot predates every change it covers (the usual
   * case); `coalesced`: a window's frame, which says what it covers (`from`).
   */
  private send({ from, changes }: CoalescedFrame, coalesced: boolean): void {
    let frame: SharedFrame | undefined;
    const text = () => (coalesced ? coalescedFrame({ from, changes }) : changesFrame(changes));
    for (const [member, state] of this.members) {
      if (state.since === null) state.waiting.push(...changes);
      else if (state.since < from) {
        if (member.seesPart()) member.sendChanges(changes);
        else member.sendFrame((frame ??= shareFrame(text())));
      } else {
        const since = state.since;
        const newer = changes.filter((change) => change.seq > since);
        if (newer.length > 0) sendChanges(member, newer, coalesced ? since + 1 : undefined);
      }
    }
  }

  private clearGapTimer(): void {
    clearTimeout(this.gapTimer);
    this.gapTimer = undefined;
  }
}

/**
 * Changes for one member alone: as its scope shows them, or in a frame of its own (`from`: a
 * window's frame, which says the first change number it covers).
 */
function sendChanges(member: ChannelMember, changes: readonly Change[], from?: number): void {
  if (member.seesPart()) member.sendChanges(changes);
  else {
    member.sendFrame(
      from === undefined ? changesFrame(changes) : coalescedFrame({ from, changes: [...changes] }),
    );
  }
}

export function changesFrame(changes: readonly Change[]): string {
  return JSON.stringify({ type: 'changes', changes: [...changes] } satisfies ServerMessage);
}
