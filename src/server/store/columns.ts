/** Rows as both SQL stores read them, and their API shapes. */
import type { Counter, Group } from '../../shared/api.js';
import type { StoredCounter } from './commit-io.js';
import type { GroupRecord } from './types.js';

/** The counter columns every read returns. */
export const COUNTER_FIELDS =
  'id, name, description, value, increment_step, decrement_step, thumbnail_url, created_at, version';

/** A counter_groups row as both SQL stores read it. */
export interface GroupRow {
  id: string;
  name: string;
  display_name: string;
  profile_image_url: string | null;
  access_key_hash: string;
  view_key_hash: string | null;
  seq: number;
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
}

export const toGroup = (row: GroupRow): GroupRecord => ({
  id: row.id,
  name: row.name,
  displayName: row.display_name,
  profileImageUrl: row.profile_image_url,
  keyHash: row.access_key_hash,
  viewKeyHash: row.view_key_hash,
});

/** A group as clients may see it: without its key hashes. */
export const publicGroup = ({ keyHash: _key, viewKeyHash: _view, ...group }: GroupRecord): Group =>
  group;

export const toCounter = (row: CounterRow): Counter => ({
  id: row.id,
  name: row.name,
  description: row.description,
  value: row.value,
  incrementStep: row.increment_step,
  decrementStep: row.decrement_step,
  thumbnailUrl: row.thumbnail_url,
  createdAt: new Date(row.created_at).toISOString(),
  version: row.version,
});

/** A counters row with the columns the commit needs besides COUNTER_FIELDS. */
export interface StoredCounterRow extends CounterRow {
  group_id: string;
  created_seq: number;
}

export const toStoredCounter = (row: StoredCounterRow): StoredCounter => ({
  groupId: row.group_id,
  createdSeq: row.created_seq,
  counter: toCounter(row),
});
