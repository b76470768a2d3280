import type { Change } from '../../shared/protocol.js';

export type ChangeListener = (changes: readonly Change[]) => void;

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
  close(): Promise<void>;
}
