/** Access keys: stored only as SHA-256 (SPEC §9), compared in constant time. */
import { createHash, timingSafeEqual } from 'node:crypto';

export function hashKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export function keyMatches(key: string, storedHash: string): boolean {
  const given = Buffer.from(hashKey(key), 'hex');
  const stored = Buffer.from(storedHash, 'hex');
  return given.length === stored.length && timingSafeEqual(given, stored);
}
