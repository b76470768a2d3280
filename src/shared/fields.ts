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
] as const;
export type CounterField = (typeof COUNTER_FIELDS)[number];

/** A group's editable fields. */
export const GROUP_FIELDS = ['displayName', 'profileImageUrl'] as const;
export type GroupField = (typeof GROUP_FIELDS)[number];
