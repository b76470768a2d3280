/**
 * Reads of the activity log both SQL stores share: the columns they select and the points of a
 * counter's chart. How an entry is recorded and read back is the domain's
 * (domain/entry-record.ts).
 */
import type { HistoryPoint } from '../../shared/activity.js';

/** The columns every activity read returns. */
export const ACTIVITY_FIELDS =
  'id, group_id, seq, at, actor, kind, counter_id, counter_name, value_after, delta, detail, undo_of, undone_by, increments, decrements, link_id, link_label, import_fingerprint, import_hash, note, counted_at';

/**
 * The entries with a note or counted for an earlier time: the condition of their partial
 * indexes (activity_noted, activity_noted_by_counter), word for word, so a query can use them.
 */
export const NOTED_ENTRIES = '(note IS NOT NULL OR counted_at IS NOT NULL)';

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

/** The columns of a change counted for an earlier time that charts read. */
export const EARLIER_COUNT_FIELDS = 'counter_id, at, counted_at, delta, detail';

/** A change counted for an earlier time, as a chart places it (epoch ms). */
export interface EarlierCount {
  counterId: string;
  countedAt: number;
  /** Until when it is missing from the recorded values: its commit, or its period's end. */
  until: number;
  delta: number;
}

/** A stored entry counted for an earlier time (`at` and `counted_at` epoch ms, or Dates). */
export interface EarlierCountRow {
  counter_id: string;
  at: number | Date | string;
  counted_at: number | Date | string;
  /** A number, or text where a driver reads bigint so. */
  delta: number | string | null;
  detail: string | null;
}

export function earlierCountOf(row: EarlierCountRow): EarlierCount {
  const at = new Date(row.at).getTime();
  const detail =
    row.detail === null ? null : (JSON.parse(row.detail) as { period?: { end: number } });
  // A count for an ended period never reached the value: only that period's points lack it.
  const until = detail?.period ? Math.min(at, detail.period.end) : at;
  return {
    counterId: row.counter_id,
    countedAt: new Date(row.counted_at).getTime(),
    until,
    delta: Number(row.delta ?? 0),
  };
}

/**
 * A chart's points with the counts entered afterwards placed at their time (ADR 36): every point
 * from the time a count was for until it was recorded (or its period ended) gains its delta, and
 * a point at that time shows the value it made. At most `max` points: thinned evenly, the first
 * and the last kept.
 */
export function placeEarlierCounts(
  points: readonly HistoryPoint[],
  earlier: readonly EarlierCount[],
  max: number,
): HistoryPoint[] {
  if (earlier.length === 0) return [...points];
  const shift = (t: number) =>
    earlier.reduce(
      (sum, count) => (count.countedAt <= t && t < count.until ? sum + count.delta : sum),
      0,
    );
  const placed = points.map((point) => ({ t: point.t, v: point.v + shift(point.t) }));
  for (const count of earlier) {
    const before = points.findLast((point) => point.t <= count.countedAt);
    if (before) placed.push({ t: count.countedAt, v: before.v + shift(count.countedAt) });
  }
  placed.sort((a, b) => a.t - b.t);
  if (placed.length <= max) return placed;
  const step = (placed.length - 1) / (max - 1);
  return Array.from(
    { length: max },
    (_, index) => placed[Math.round(index * step)] as HistoryPoint,
  );
}
