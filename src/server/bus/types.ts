import type { Change, PresenceMember } from '../../shared/protocol.js';

export type ChangeListener = (changes: readonly Change[]) => void;

/** One instance's members of one group, as it last announced them. */
export interface PresenceAnnouncement {
  instanceId: string;
  groupId: string;
  /** As many as fit one announcement; each member id once. */
  members: PresenceMember[];
  /** How many distinct members the instance has in the group: `members` may leave some out. */
  count: number;
}

/**
 * Fan-out of committed changes to every instance's subscribers. In one process it is a map of
 * listeners; across instances (PostgreSQL) it rides on LISTEN/NOTIFY.
 */
export interface Bus {
  /** Announces one committed batch of a group's changes, in commit order. */
  publish(groupId: string, changes: readonly Change[]): void;
  /** Returns the function that unsubscribes. */
  subscribe(groupId: string, listener: ChangeListener): () => void;
  /**
   * Called after the feed of other instances' changes was interrupted and restored: changes may
   * have been missed, so subscribers must resync. Returns the function that stops listening.
   */
  onReconnect(listener: () => void): () => void;
  /**
   * Called with a group's id whenever a batch announcing `group.accessChanged` (a key rotation,
   * a view-link change) is published, from this instance or another. Returns the function that
   * stops listening.
   */
  onAccessChange(listener: (groupId: string) => void): () => void;
  /**
   * Tells other instances who is connected to a group here: `members` gives them, each member id
   * once, the ones to keep first when the list must be cut. A no-op with one instance, which never
   * calls it (ordering a crowd costs a sort).
   */
  publishPresence(groupId: string, members: () => readonly PresenceMember[]): void;
  /** Other instances' presence announcements. Returns the function that stops listening. */
  onPresence(listener: (announcement: PresenceAnnouncement) => void): () => void;
  close(): Promise<void>;
}
