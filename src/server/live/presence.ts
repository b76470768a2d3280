/**
 * Who is here now, per group (ADR 9). Each instance knows its own sockets' members and hears
 * the other instances' lists over the bus; a group's presence is the union, one entry per member
 * id (a person with three tabs is listed once, under the name they last used). Nothing is stored:
 * it lives as long as the sockets do, and another instance's list expires if it stops announcing.
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

interface RemoteList {
  members: PresenceMember[];
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
    /** Called with a group's merged list whenever it may have changed (at most once a window). */
    private readonly changed: (groupId: string, members: PresenceMember[]) => void,
  ) {
    this.announcements = new Coalescer(PRESENCE_WINDOW_MS, (groupId) => {
      this.bus.publishPresence(groupId, this.localMembers(groupId));
    });
    this.broadcasts = new Coalescer(PRESENCE_WINDOW_MS, (groupId) => {
      this.changed(groupId, this.membersOf(groupId));
    });
    this.stopListening = bus.onPresence((announcement) => {
      this.hear(announcement);
    });
    this.renewals = new SpreadHeartbeat(PRESENCE_HEARTBEAT_MS, (groupId) => {
      this.bus.publishPresence(groupId, this.localMembers(groupId));
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

  /** Everyone in the group on every instance, one entry per member id, sorted by name. */
  membersOf(groupId: string): PresenceMember[] {
    const byId = new Map<string, PresenceMember>();
    const now = Date.now();
    for (const list of this.remote.get(groupId)?.values() ?? []) {
      if (list.expiresAt < now) continue;
      for (const member of list.members) byId.set(member.id, member);
    }
    // This instance's sockets last: their names are the freshest it knows.
    for (const member of this.local.get(groupId)?.values() ?? []) {
      byId.set(member.id, { id: member.id, name: member.name });
    }
    return [...byId.values()].sort(
      (a, b) => byName.compare(a.name, b.name) || (a.id < b.id ? -1 : 1),
    );
  }

  close(): void {
    this.renewals.stop();
    this.expiries.stop();
    this.stopListening();
    this.announcements.close();
    this.broadcasts.close();
  }

  private localMembers(groupId: string): PresenceMember[] {
    const byId = new Map<string, PresenceMember>();
    for (const member of this.local.get(groupId)?.values() ?? []) byId.set(member.id, member);
    return [...byId.values()];
  }

  private announce(groupId: string): void {
    this.announcements.schedule(groupId);
    this.broadcasts.schedule(groupId);
  }

  private hear({ instanceId, groupId, members }: PresenceAnnouncement): void {
    let lists = this.remote.get(groupId);
    if (!lists) {
      lists = new Map();
      this.remote.set(groupId, lists);
      this.expiries.add(groupId);
    }
    if (members.length === 0) lists.delete(instanceId);
    else lists.set(instanceId, { members, expiresAt: Date.now() + REMOTE_TTL_MS });
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
