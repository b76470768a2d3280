/**
 * The landing page has just joined the group to check the key; it hands the snapshot to the group
 * screen so opening it costs no second request. Used once, and only within a few seconds.
 */
import type { GroupSnapshot } from '../../shared/api.js';

/** A handed-over snapshot older than this is not used, ms. */
const HANDOFF_MAX_AGE_MS = 5_000;

let pending: { key: string; snapshot: GroupSnapshot; at: number } | null = null;

export function handOver(key: string, snapshot: GroupSnapshot): void {
  pending = { key, snapshot, at: Date.now() };
}

export function takeHandOver(slug: string, key: string): GroupSnapshot | null {
  const taken = pending;
  pending = null;
  if (!taken || taken.key !== key || taken.snapshot.group.name !== slug) return null;
  return Date.now() - taken.at <= HANDOFF_MAX_AGE_MS ? taken.snapshot : null;
}
