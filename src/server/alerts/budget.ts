/**
 * A group's deliveries in the last minute, as the alert sender counts them against
 * ALERT_DELIVERIES_PER_MINUTE_PER_GROUP (every attempt counts, tests included):
 *
 * - When one process owns the store (SQLite, `exclusive`), every attempt is made by this
 *   sender: it keeps their times in memory, from those the delivery log held when it started,
 *   and the count is exact without a statement per alert.
 * - When several instances share the store (PostgreSQL), each counts what all of them logged
 *   (read with the claim) plus its own attempts not logged yet. Two instances that each send an
 *   alert of one group at once can both see room for one: the budget may be passed by the
 *   attempts other instances have under way, never by this instance's own.
 */
import { ALERT_BUDGET_WINDOW_MS } from '../store/alerts.js';

export class DeliveryBudget {
  /** Exclusive: each group's attempt times within the window, oldest first, epoch ms. */
  private readonly times = new Map<string, number[]>();
  /** Shared: each group's attempts made by this instance whose log entry is not written yet. */
  private readonly unlogged = new Map<string, number>();

  constructor(readonly exclusive: boolean) {}

  /** Exclusive: the attempts the log held when the sender started, oldest first. */
  seed(attempts: readonly { groupId: string; at: number }[]): void {
    for (const { groupId, at } of attempts) this.spend(groupId, at);
  }

  /**
   * Attempts counted for the group in the window that ends `now`; `logged` is what the store
   * counted in it (shared; ignored when exclusive, where this count is the whole story).
   */
  used(groupId: string, now: number, logged: number | null): number {
    if (!this.exclusive) return (logged ?? 0) + (this.unlogged.get(groupId) ?? 0);
    const times = this.times.get(groupId);
    if (times === undefined) return 0;
    const since = now - ALERT_BUDGET_WINDOW_MS;
    let gone = 0;
    while (gone < times.length && (times[gone] ?? 0) < since) gone += 1;
    if (gone === times.length) {
      this.times.delete(groupId);
      return 0;
    }
    if (gone > 0) times.splice(0, gone);
    return times.length;
  }

  /** An attempt of the group starts at `at`. */
  spend(groupId: string, at: number): void {
    if (!this.exclusive) {
      this.unlogged.set(groupId, (this.unlogged.get(groupId) ?? 0) + 1);
      return;
    }
    const times = this.times.get(groupId);
    if (times === undefined) this.times.set(groupId, [at]);
    else times.push(at);
  }

  /** An attempt's log entry was written (shared: the store counts it from now on). */
  logged(groupId: string): void {
    if (this.exclusive) return;
    const left = (this.unlogged.get(groupId) ?? 0) - 1;
    if (left > 0) this.unlogged.set(groupId, left);
    else this.unlogged.delete(groupId);
  }

  /** Forgets the groups with no attempt in the window that ends `now` (memory stays bounded). */
  prune(now: number): void {
    for (const groupId of [...this.times.keys()]) this.used(groupId, now, null);
  }
}
