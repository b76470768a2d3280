/**
 * Who is here now, per group (ADR 9). Each instance knows its own sockets' members and hears
 * the other instances' lists over the bus; a group's presence is the union, one entry per member
 * id (a person with three tabs is listed once, under the name they last used). Nothing is stored:
 * it lives as long as the sockets do, and another instance's list expires if it stops announcing.
 *
 * An instance's announced list is cut to fit one notification; beside it the instance says how
 * many distinct members it has (ADR 33). The group's count is the union's size plus, for each
 * other instance, the members its list left out: exact while every list is whole, never below
 * the true number. A member on several instances counts once for being listed anywhere or
 * connected here, and once for each other instance they are on whose list leaves them out (at
 * most once per instance they are on). To keep such members listed, each instance puts first in
 * its own list the members other instances list.
 */
import type { PresenceMember } from '../../shared/protocol.js';
import type { Bus, PresenceAnnouncement } from '../bus/types.js';
import { Coalescer } from './coalesce.js';
import { SpreadHeartbeat } from './heartbeat.js';

/** Every instance re-announces its lists this often, so a lost notification heals, ms. */
export const PRESENCE_HEARTBEAT_MS = 15_000;
/** Another instance's list is dropped when not renewed for this long (it has gone), ms. */
const REMOTE_TTL_MS = 3 * PRESENCE_HEARTBEAT_MS;
/**
 * A group's presence goes out at most once per window, to its sockets and over the bus alike
 * (a few sockets renaming their member many times a second would
 * otherwise multiply frames to every member). The first
 * change is sent at once, later ones within the window are folded into one frame at its end
 * carrying the list as it is then: at most 1000 / 250 + 1 = 5 frames per group per second, ms.
 */
export const PRESENCE_WINDOW_MS = 250;

/**
 * The order of names, as localeCompare's: one collator made once instead of one per comparison
 * (a crowd of thousands is sorted on every presence window).
 */
const byName = new Intl.Collator();
const inOrder = (a: PresenceMember, b: PresenceMember) =>
  byName.compare(a.name, b.name) || (a.id < b.id ? -1 : 1);

/** A group's presence as its sockets are told it: everyone listed, and how many there are. */
export interface Presence {
  /** One entry per member id, sorted by name. */
  members: PresenceMember[];
  /** At least `members.length`: more when other instances' lists were cut. */
  count: number;
}

interface RemoteList {
  members: PresenceMember[];
  /** The instance's members its list leaves out. */
  leftOut: number;
  expiresAt: number;
}

export class PresenceBoard {
  /** groupId → socket → member. */
  private readonly local = new Map<string, Map<object, PresenceMember>>();
  /** groupId → instanceId → its list. */
  private readonly remote = new Map<string, Map<string, RemoteList>>();
  /**
   * Each group with sockets here is re-announced once per heartbeat, and each group with other
   * instances' lists checked for expired ones once per heartbeat, spread over the interval
   * (live/heartbeat.ts): thousands of groups never make thousands of notifications in one turn.
   */
  private readonly renewals: SpreadHeartbeat<string>;
  private readonly expiries: SpreadHeartbeat<string>;
  private readonly stopListening: () => void;
  /** This instance's list of a group, to the other instances. */
  private readonly announcements: Coalescer;
  /** A group's merged list, to this instance's sockets. */
  private readonly broadcasts: Coalescer;

  constructor(
    private readonly bus: Bus,
    /** Called with a group's presence whenever it may have changed (at most once a window). */
    private readonly changed: (groupId: string, presence: Presence) => void,
  ) {
    this.announcements = new Coalescer(PRESENCE_WINDOW_MS, (groupId) => {
      this.bus.publishPresence(groupId, () => this.localMembers(groupId));
    });
    this.broadcasts = new Coalescer(PRESENCE_WINDOW_MS, (groupId) => {
      this.changed(groupId, this.presenceOf(groupId));
    });
    this.stopListening = bus.onPresence((announcement) => {
      this.hear(announcement);
    });
    this.renewals = new SpreadHeartbeat(PRESENCE_HEARTBEAT_MS, (groupId) => {
      this.bus.publishPresence(groupId, () => this.localMembers(groupId));
    });
    this.expiries = new SpreadHeartbeat(PRESENCE_HEARTBEAT_MS, (groupId) => {
      this.expire(groupId);
    });
  }

  join(groupId: string, socket: object, member: PresenceMember): void {
    let sockets = this.local.get(groupId);
    if (!sockets) {
      sockets = new Map();
      this.local.set(groupId, sockets);
      this.renewals.add(groupId);
    }
    sockets.set(socket, member);
    this.announce(groupId);
  }

  rename(groupId: string, socket: object, name: string): void {
    const member = this.local.get(groupId)?.get(socket);
    if (!member || member.name === name) return;
    member.name = name;
    this.announce(groupId);
  }

  leave(groupId: string, socket: object): void {
    const sockets = this.local.get(groupId);
    if (!sockets?.delete(socket)) return;
    if (sockets.size === 0) {
      this.local.delete(groupId);
      this.renewals.delete(groupId);
    }
    this.announce(groupId);
  }

  /**
   * Everyone listed in the group on every instance, one entry per member id, sorted by name, and
   * how many there are: the listed ones plus those other instances' lists left out.
   */
  presenceOf(groupId: string): Presence {
    const byId = new Map<string, PresenceMember>();
    const now = Date.now();
    let leftOut = 0;
    for (const list of this.remote.get(groupId)?.values() ?? []) {
      if (list.expiresAt < now) continue;
      leftOut += list.leftOut;
      for (const member of list.members) byId.set(member.id, member);
    }
    // This instance's sockets last: their names are the freshest it knows.
    for (const member of this.local.get(groupId)?.values() ?? []) {
      byId.set(member.id, { id: member.id, name: member.name });
    }
    const members = [...byId.values()].sort(inOrder);
    return { members, count: members.length + leftOut };
  }

  close(): void {
    this.renewals.stop();
    this.expiries.stop();
    this.stopListening();
    this.announcements.close();
    this.broadcasts.close();
  }

  /**
   * This instance's members of a group, each id once, in the order its announcement keeps them
   * when cut: first those other instances list (a member on two instances is counted once only
   * when both list them), then by name (the first ones are those the sockets are shown).
   */
  private localMembers(groupId: string): PresenceMember[] {
    const byId = new Map<string, PresenceMember>();
    for (const member of this.local.get(groupId)?.values() ?? []) byId.set(member.id, member);
    const elsewhere = new Set<string>();
    for (const list of this.remote.get(groupId)?.values() ?? []) {
      for (const member of list.members) elsewhere.add(member.id);
    }
    const listedElsewhere = (member: PresenceMember) => (elsewhere.has(member.id) ? 0 : 1);
    return [...byId.values()].sort(
      (a, b) => listedElsewhere(a) - listedElsewhere(b) || inOrder(a, b),
    );
  }

  private announce(groupId: string): void {
    this.announcements.schedule(groupId);
    this.broadcasts.schedule(groupId);
  }

  private hear({ instanceId, groupId, members, count }: PresenceAnnouncement): void {
    let lists = this.remote.get(groupId);
    if (!lists) {
      lists = new Map();
      this.remote.set(groupId, lists);
      this.expiries.add(groupId);
    }
    if (count === 0) lists.delete(instanceId);
    else {
      const listed = new Set(members.map((member) => member.id)).size;
      lists.set(instanceId, {
        members,
        leftOut: Math.max(0, count - listed),
        expiresAt: Date.now() + REMOTE_TTL_MS,
      });
    }
    if (lists.size === 0) this.forgetRemote(groupId);
    this.broadcasts.schedule(groupId);
  }

  /** Drops the other instances' lists of a group that were not renewed in time (gone). */
  private expire(groupId: string): void {
    const lists = this.remote.get(groupId);
    if (!lists) return;
    const now = Date.now();
    let expired = false;
    for (const [instanceId, list] of lists) {
      if (list.expiresAt >= now) continue;
      lists.delete(instanceId);
      expired = true;
    }
    if (lists.size === 0) this.forgetRemote(groupId);
    if (expired) this.broadcasts.schedule(groupId);
  }

  private forgetRemote(groupId: string): void {
    this.remote.delete(groupId);
    this.expiries.delete(groupId);
  }
}
