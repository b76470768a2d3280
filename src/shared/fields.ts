/**
 * The editable fields of a counter and of a group, listed once: the API schemas, the activity
 * log, the CSV export, the SQL columns and the web client's optimistic copies derive from these.
 * No zod here, so the browser can import it without pulling the schema library.
 */

/** A counter's editable fields, in display order. */
export const COUNTER_FIELDS = [
  'name',
  'description',
  'value',
  'incrementStep',
  'decrementStep',
  'thumbnailUrl',
  // What a counter is for (ADR 19), all opt-in (null: none).
  'goal',
  'min',
  'max',
  'reset',
  'startValue',
  'section',
] as const;
export type CounterField = (typeof COUNTER_FIELDS)[number];

/** A group's editable fields. */
export const GROUP_FIELDS = ['displayName', 'profileImageUrl', 'timeZone', 'weekStart'] as const;
export type GroupField = (typeof GROUP_FIELDS)[number];

/**
 * How often a counter starts over, at midnight in the group's time zone (docs/product.md#periods).
 */
export const RESET_PERIODS = ['daily', 'weekly', 'monthly'] as const;
export type ResetPeriod = (typeof RESET_PERIODS)[number];
