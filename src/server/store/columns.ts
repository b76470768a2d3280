/** Rows as both SQL stores read them, and their API shapes. */
import type { Counter } from '../../shared/api.js';
import type { ResetPeriod } from '../../shared/fields.js';
import type { StoredCounter } from '../domain/commit-io.js';
import type { GroupRecord } from '../domain/operations.js';
import { allTimeOf } from '../domain/periods.js';
import { parseTapLinks } from '../domain/tap-links.js';

/** The counter columns every read returns. */
export const COUNTER_FIELDS =
  'id, name, description, value, increment_step, decrement_step, thumbnail_url, created_at, version, ' +
  'goal, min_value, max_value, reset_period, start_value, section, period_start, closed_total';

/** A counter_groups row as both SQL stores read it. */
export interface GroupRow {
  id: string;
  name: string;
  display_name: string;
  profile_image_url: string | null;
  access_key_hash: string;
  view_key_hash: string | null;
  seq: number;
  time_zone: string;
  week_start: number;
  /** JSON object section → maximum; null when no section has one. */
  section_limits: string | null;
  /** The group's alert rules as JSON (domain/alert-config.ts); null when it has none. */
  alerts: string | null;
  /** Its tap links as JSON (domain/tap-links.ts); null when it has none. */
  tap_links: string | null;
  /** Its activity log's newest hash and the hash of the last entry pruned (ADR 30). */
  log_head: string | null;
  log_anchor: string | null;
}

/** A counters row (COUNTER_FIELDS); created_at is epoch ms in SQLite, a Date in PostgreSQL. */
export interface CounterRow {
  id: string;
  name: string;
  description: string;
  value: number;
  increment_step: number;
  decrement_step: number;
  thumbnail_url: string | null;
  created_at: number | Date;
  version: number;
  goal: number | null;
  min_value: number | null;
  max_value: number | null;
  reset_period: string | null;
  start_value: number;
  section: string | null;
  /** Epoch ms of the current period's start (counters that reset). */
  period_start: number | null;
  /** The final values of every ended period, added up. */
  closed_total: number;
}

export const toGroup = (row: GroupRow): GroupRecord => ({
  id: row.id,
  name: row.name,
  displayName: row.display_name,
  profileImageUrl: row.profile_image_url,
  keyHash: row.access_key_hash,
  viewKeyHash: row.view_key_hash,
  timeZone: row.time_zone,
  weekStart: row.week_start,
  sectionLimits: row.section_limits === null ? {} : parseSectionLimits(row.section_limits),
  tapLinks: parseTapLinks(row.tap_links),
});

function parseSectionLimits(text: string): Record<string, number> {
  const parsed = JSON.parse(text) as unknown;
  return parsed !== null && typeof parsed === 'object' ? (parsed as Record<string, number>) : {};
}

/** A group's section limits as stored: null when there are none. */
export const sectionLimitsText = (limits: Record<string, number>): string | null =>
  Object.keys(limits).length === 0 ? null : JSON.stringify(limits);

export const toCounter = (row: CounterRow): Counter => ({
  id: row.id,
  name: row.name,
  description: row.description,
  value: row.value,
  incrementStep: row.increment_step,
  decrementStep: row.decrement_step,
  thumbnailUrl: row.thumbnail_url,
  goal: row.goal,
  min: row.min_value,
  max: row.max_value,
  reset: row.reset_period as ResetPeriod | null,
  startValue: row.start_value,
  section: row.section,
  periodStart: row.period_start === null ? null : new Date(row.period_start).toISOString(),
  allTime: allTimeOf(row.closed_total, row.value),
  createdAt: new Date(row.created_at).toISOString(),
  version: row.version,
});

/** A counters row with the columns the commit needs besides COUNTER_FIELDS. */
export interface StoredCounterRow extends CounterRow {
  group_id: string;
  created_seq: number;
  position: number | null;
  next_reset_at: number | null;
}

/** The columns the commit reads of a counter: COUNTER_FIELDS and its own. */
export const STORED_COUNTER_FIELDS = `group_id, created_seq, position, next_reset_at, ${COUNTER_FIELDS}`;

export const toStoredCounter = (row: StoredCounterRow): StoredCounter => ({
  groupId: row.group_id,
  createdSeq: row.created_seq,
  position: row.position,
  nextResetAt: row.next_reset_at,
  closedTotal: row.closed_total,
  counter: toCounter(row),
});

/** Counters in their shown order: reordered ones by position, then never-placed ones by age. */
export const COUNTER_ORDER = 'position IS NULL, position, created_at, created_seq';
