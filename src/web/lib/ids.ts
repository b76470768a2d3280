import { GENERATED_KEY_BYTES } from '../../shared/limits.js';

/**
 * Random hex from the browser's CSPRNG. crypto.getRandomValues works in insecure contexts too
 * (crypto.randomUUID does not), so Tally also works over plain http on a LAN.
 */
export function randomHex(bytes: number): string {
  const buffer = new Uint8Array(bytes);
  crypto.getRandomValues(buffer);
  let hex = '';
  for (const byte of buffer) hex += byte.toString(16).padStart(2, '0');
  return hex;
}

/** A new access key: 32 random bytes as 64 hex characters (docs/product.md#access-keys). */
export function generateAccessKey(): string {
  return randomHex(GENERATED_KEY_BYTES);
}

/** An operation id (Idempotency-Key): 24 hex characters, unique per mutation. */
export function newOperationId(): string {
  return randomHex(12);
}
