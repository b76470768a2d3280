/**
 * Reads of the activity log both SQL stores share: the columns they select and the points of a
 * counter's chart. How an entry is recorded and read back is the domain's
 * (domain/entry-record.ts).
 */
import type { HistoryPoint } from '../../shared/activity.js';

/** The columns every activity read returns. */
export const ACTIVITY_FIELDS =
  'id, group_id, seq, at, actor, kind, counter_id, counter_name, value_after, delta, detail, undo_of, undone_by, increments, decrements, link_id, link_label';

/**
 * Evenly spaced time buckets over a counter's life: the width, ms, that turns the span between
 * its first entry and now into `points − 2` buckets, leaving room for the first and the current
 * value (historyPoints), so a chart has at most `points` points.
 */
export function bucketWidthMs(firstAt: number, now: number, points: number): number {
  return Math.max(1, Math.ceil((now - firstAt + 1) / Math.max(1, points - 2)));
}

interface ValueRow {
  id: number;
  /** Epoch ms. */
  at: number;
  value_after: number;
}

/** The chart's points: the first value ever, each bucket's last value, the value now. */
export function historyPoints(
  first: ValueRow,
  buckets: readonly ValueRow[],
  current: HistoryPoint,
): HistoryPoint[] {
  const rest = buckets.filter((row) => row.id !== first.id);
  return [first, ...rest].map((row) => ({ t: row.at, v: row.value_after })).concat(current);
}
