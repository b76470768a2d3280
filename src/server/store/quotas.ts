/**
 * Per-group quotas both SQL stores enforce (docs/api.md "Limits"):
 *   - counters per group, checked inside the write transaction (a create, or an undo that brings
 *     a deleted counter back), so concurrent creates can never pass it: the commit decides it
 *     (domain/counters.ts);
 *   - activity entries kept per group, by count: the oldest beyond the cap are deleted in the
 *     background, in small chunks, never in one long statement on the event loop.
 */

import { setImmediate as nextTurn } from 'node:timers/promises';

/** The quotas a store enforces (config.ts Limits, the fields stores need). */
export interface StoreQuotas {
  countersPerGroup: number;
  activityEntriesPerGroup: number;
}

/** The quotas of a store given none (the defaults of MAX_COUNTERS_PER_GROUP and ACTIVITY_MAX_ENTRIES_PER_GROUP). */
export const DEFAULT_STORE_QUOTAS: StoreQuotas = {
  countersPerGroup: 1_000,
  activityEntriesPerGroup: 100_000,
};

/** Group ids read per page when the hourly prune checks every group. */
export const TRIM_ALL_PAGE = 1_000;
/** Rows one trimming DELETE removes: a few ms of work, then the event loop gets a turn. */
export const ACTIVITY_TRIM_CHUNK = 500;
/** The slack is a tenth of the cap, at most this many entries. */
const MAX_TRIM_SLACK = 10_000;
/** Groups whose write counts are remembered; beyond it the oldest are forgotten (re-checked). */
const MAX_TRACKED_GROUPS = 100_000;

/**
 * Entries a group may write between two trims: a group holds at most `cap + slack` entries
 * (plus what it writes while its trim runs). Trimming only every `slack` writes keeps the cost
 * of finding the boundary (an index walk of `cap` entries) amortised to a few per write.
 */
export function activityTrimSlack(cap: number): number {
  return Math.max(1, Math.min(MAX_TRIM_SLACK, Math.ceil(cap / 10)));
}

export interface ActivityTrimOps {
  /** The id of the newest entry beyond the cap (keep `cap` newest), or null when within it. */
  boundary(groupId: string, cap: number): Promise<number | null>;
  /** Deletes up to `limit` of the group's entries with id ≤ `upTo`, oldest first; how many. */
  deleteUpTo(groupId: string, upTo: number, limit: number): Promise<number>;
}

/**
 * Counts the entries each group writes and, every `slack` entries, trims the group back to the
 * cap in the background: one group at a time, ACTIVITY_TRIM_CHUNK rows per statement, a turn
 * of the event loop between statements. A group not seen since the start is checked on its
 * first write, so a restart never lets a group grow past `cap + slack`.
 */
export class ActivityTrimmer {
  private readonly written = new Map<string, number>();
  private readonly due = new Set<string>();
  private readonly slack: number;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly cap: number,
    private readonly ops: ActivityTrimOps,
    private readonly onError: (error: unknown) => void,
  ) {
    this.slack = activityTrimSlack(cap);
  }

  /** Notes entries written by a committed batch (call after the commit). */
  noteWritten(groupId: string, entries = 1): void {
    const count = (this.written.get(groupId) ?? this.slack) + entries;
    this.written.delete(groupId);
    if (count >= this.slack) {
      this.due.add(groupId);
      this.written.set(groupId, 0);
    } else {
      this.written.set(groupId, count);
    }
    for (const oldest of this.written.keys()) {
      if (this.written.size <= MAX_TRACKED_GROUPS) break;
      this.written.delete(oldest);
    }
  }

  /**
   * Notes the entries a committed batch wrote (one group id per entry) and starts trimming the
   * groups that became due.
   */
  noteBatch(groupIds: Iterable<string>): void {
    const perGroup = new Map<string, number>();
    for (const groupId of groupIds) perGroup.set(groupId, (perGroup.get(groupId) ?? 0) + 1);
    for (const [groupId, entries] of perGroup) this.noteWritten(groupId, entries);
    this.kick();
  }

  /**
   * Checks every group, a page of ids at a time (the hourly prune): groups that no longer write
   * are trimmed too, e.g. after the cap was lowered. `page(after)` lists group ids after `after`.
   */
  async trimAll(page: (after: string) => Promise<string[]>): Promise<void> {
    let after = '';
    for (;;) {
      if (this.isStopped()) return;
      const ids = await page(after);
      const last = ids[ids.length - 1];
      if (last === undefined) return;
      for (const id of ids) this.due.add(id);
      this.kick();
      await this.settled();
      after = last;
    }
  }

  /** Starts trimming the groups that are due, unless a trim is already running. */
  kick(): void {
    if (this.running !== undefined || this.due.size === 0 || this.stopped) return;
    this.running = this.run().finally(() => {
      this.running = undefined;
      this.kick();
    });
  }

  /** Resolves when no trim is running (tests; close). */
  async settled(): Promise<void> {
    while (this.running !== undefined) await this.running;
  }

  /** Lets a running chunk finish and starts no more (before the database closes). */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.settled();
  }

  /** A method, not the field: stop() may set it while a trim awaits the database. */
  private isStopped(): boolean {
    return this.stopped;
  }

  private async run(): Promise<void> {
    // Never inside the commit that made the group due: its callers get their answers first.
    await nextTurn();
    try {
      for (const groupId of this.due) {
        this.due.delete(groupId);
        if (this.isStopped()) return;
        const upTo = await this.ops.boundary(groupId, this.cap);
        if (upTo === null) continue;
        for (;;) {
          if (this.isStopped()) return;
          const deleted = await this.ops.deleteUpTo(groupId, upTo, ACTIVITY_TRIM_CHUNK);
          if (deleted < ACTIVITY_TRIM_CHUNK) break;
          await nextTurn();
        }
      }
    } catch (error) {
      this.onError(error);
    }
  }
}

/**
 * Runs a bounded DELETE (`deleteChunk`, at most `chunk` rows; null when the store has closed)
 * until it removes fewer than `chunk` rows, with a turn of the event loop between chunks: the
 * pruning of the activity log and of operation ids. Returns the rows removed.
 */
export async function deleteInChunks(
  chunk: number,
  deleteChunk: () => number | null | Promise<number | null>,
): Promise<number> {
  let total = 0;
  for (;;) {
    const deleted = await deleteChunk();
    if (deleted === null) return total;
    total += deleted;
    if (deleted < chunk) return total;
    await nextTurn();
  }
}
