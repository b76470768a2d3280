/**
 * Per-member tallies and ended periods, as both SQL stores read them. Tallies come
 * from the activity log: each `counter.adjusted` entry is one member's taps on one counter in
 * one batch, with how much they added and took away. Undone taps and the undos themselves are
 * left out, so a tally is what a member's taps still contribute.
 */
import type { CounterPeriod } from '../../shared/activity.js';
import type { Tally } from '../../shared/api.js';
import { MAX_VALUE } from '../../shared/limits.js';

/** The entries a tally adds up (SQL condition on the activity table). */
export const TALLY_ENTRIES = "kind = 'counter.adjusted' AND undo_of IS NULL AND undone_by IS NULL";

/** When an entry's change was counted for: its earlier time if it has one, else its commit. */
export const COUNTED_TIME = 'coalesce(counted_at, at)';

/** An entry's amounts; entries written before tallies existed carry only
 * their delta. */
export const INCREMENTS = 'coalesce(increments, CASE WHEN delta > 0 THEN delta ELSE 0 END)';
export const DECREMENTS = 'coalesce(decrements, CASE WHEN delta < 0 THEN -delta ELSE 0 END)';

/**
 * What a tallies query selects and groups by: per member (and the tap link they used, a link's
 * label being fixed) or per link, with every member's taps through it together.
 */
export function tallyGrouping(by: 'member' | 'link'): { select: string; groupBy: string } {
  return by === 'member'
    ? { select: 'actor, max(link_label) AS link_label', groupBy: 'actor, link_id, counter_id' }
    : { select: "'' AS actor, max(link_label) AS link_label", groupBy: 'link_id, counter_id' };
}

/** A tap link's taps in an entry: its amounts (SQL on the activity table). */
export const LINK_TAPS = `${INCREMENTS} + ${DECREMENTS}`;

export interface TallyRow {
  actor: string;
  link_label: string | null;
  counter_id: string;
  /** Sums as doubles (SQLite TOTAL, PostgreSQL float8): exact to 2^53, never overflowing. */
  increments: number;
  decrements: number;
}

/** A sum held at the largest exact integer (only reachable by hostile alternating taps). */
const exact = (sum: number): number => Math.min(Math.round(sum), MAX_VALUE);

export function toTally(row: TallyRow): Tally {
  const increments = exact(row.increments);
  const decrements = exact(row.decrements);
  return {
    member: row.actor,
    link: row.link_label,
    counterId: row.counter_id,
    increments,
    decrements,
    net: increments - decrements,
  };
}

export const PERIOD_FIELDS = 'counter_id, start_at, end_at, final_value';

export interface PeriodRow {
  counter_id: string;
  start_at: number;
  end_at: number;
  final_value: number;
}

export const toPeriod = (row: PeriodRow): CounterPeriod => ({
  counterId: row.counter_id,
  start: new Date(row.start_at).toISOString(),
  end: new Date(row.end_at).toISOString(),
  value: row.final_value,
});
