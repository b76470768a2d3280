/**
 * The noted changes shown where members read a counter's history and a member's tallies
 * (docs/product.md#notes-and-earlier-times): which of the log's noted entries (a note, or
 * counted for an earlier time) belong to what is shown, and where a chart marks them. Pure:
 * unit-tested in test/unit/web-notes.test.ts.
 */
import type { ActivityEntry } from '../../shared/activity.js';

/** Noted changes asked for at a time. */
export const NOTES_PAGE = 10;
/** Most noted changes one list shows; the activity panel has the rest. */
export const NOTES_SHOWN_MAX = 50;
/** Most requests one "show more" makes while the answers hold none of what is shown. */
export const NOTES_REQUESTS_PER_LOAD = 5;

/** When an entry's change was counted for: its earlier time, else when it was recorded (ms). */
export function countedTime(entry: ActivityEntry): number {
  const earlier = entry.kind === 'counter.adjusted' ? entry.countedAt : undefined;
  return Date.parse(earlier ?? entry.at);
}

export interface NotesScope {
  /** Only changes counted at or after this time (epoch ms); null for all time. */
  since: number | null;
  /**
   * Only changes made through this tap link (its label), or with the group's own link (null);
   * undefined for either.
   */
  link?: string | null | undefined;
}

/** The entries of `entries` that belong to `scope`, in their order. */
export function notesInScope(
  entries: readonly ActivityEntry[],
  scope: NotesScope,
): ActivityEntry[] {
  return entries.filter(
    (entry) =>
      (scope.since === null || countedTime(entry) >= scope.since) &&
      (scope.link === undefined || (entry.link?.label ?? null) === scope.link),
  );
}

/**
 * Whether a page (newest first) has gone past `since`: an entry recorded before it means every
 * older one was recorded, and so counted, before it too (a change is never counted for a time
 * later than it was recorded).
 */
export function pastSince(entries: readonly ActivityEntry[], since: number | null): boolean {
  const oldest = entries.at(-1);
  return since !== null && oldest !== undefined && Date.parse(oldest.at) < since;
}

/** The times (epoch ms) a chart from `from` to `to` marks: each shown change's, once, in order. */
export function chartMarks(entries: readonly ActivityEntry[], from: number, to: number): number[] {
  const times = new Set<number>();
  for (const entry of entries) {
    const time = countedTime(entry);
    if (time >= from && time <= to) times.add(time);
  }
  return [...times].sort((a, b) => a - b);
}
