/**
 * Access keys: stored only as SHA-256 (never the key itself, so a copy of the database opens no
 * group), compared in constant time.
 */
import { createHmac, hash, timingSafeEqual } from 'node:crypto';

// crypto.hash is the one-shot form: about twice as fast as createHash for a key-sized input, and
// every REST call hashes its key (ADR 18).

export function hashKey(key: string): string {
  return hash('sha256', key, 'hex');
}

/** The key's SHA-256, to compare with one or more stored hashes (digestMatches). */
export function keyDigest(key: string): Buffer {
  return hash('sha256', key, 'buffer');
}

export function digestMatches(digest: Buffer, storedHash: string): boolean {
  const stored = Buffer.from(storedHash, 'hex');
  return digest.length === stored.length && timingSafeEqual(digest, stored);
}

export function keyMatches(key: string, storedHash: string): boolean {
  return digestMatches(keyDigest(key), storedHash);
}

/**
 * The view-only link's key, derived from the access key (HMAC-SHA256, 64 hex characters): any
 * member can show the link again without the server ever storing a key, and replacing the
 * access key replaces the view-only key with it.
 */
export function viewKeyOf(accessKey: string): string {
  return createHmac('sha256', accessKey).update('tally view-only link v1').digest('hex');
}
