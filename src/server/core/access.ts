/** Access keys: stored only as SHA-256 (SPEC §9), compared in constant time. */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

export function hashKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export function keyMatches(key: string, storedHash: string): boolean {
  const given = Buffer.from(hashKey(key), 'hex');
  const stored = Buffer.from(storedHash, 'hex');
  return given.length === stored.length && timingSafeEqual(given, stored);
}

/**
 * The view-only link's key, derived from the access key (HMAC-SHA256, 64 hex characters): any
 * member can show the link again without the server ever storing a key, and replacing the
 * access key replaces the view-only key with it.
 */
export function viewKeyOf(accessKey: string): string {
  return createHmac('sha256', accessKey).update('tally view-only link v1').digest('hex');
}
