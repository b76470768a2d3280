/** Column names shared by the SQL stores: the only columns a patch can ever write. */
import type { CounterPatch, GroupPatch } from '../../shared/api.js';

export const COUNTER_COLUMNS = {
  name: 'name',
  description: 'description',
  value: 'value',
  incrementStep: 'increment_step',
  decrementStep: 'decrement_step',
  thumbnailUrl: 'thumbnail_url',
} as const satisfies Record<keyof CounterPatch, string>;

export const GROUP_COLUMNS = {
  displayName: 'display_name',
  profileImageUrl: 'profile_image_url',
} as const satisfies Record<keyof GroupPatch, string>;

/** The counter columns every read returns. */
export const COUNTER_FIELDS =
  'id, name, description, value, increment_step, decrement_step, thumbnail_url, created_at, version';
