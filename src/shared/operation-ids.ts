/**
 * Operation ids (Idempotency-Key, a live `mutate`'s opId), the two forms (ADR 24):
 *
 * - opaque: 1 to 64 id characters, e.g. 24 random hex digits. The server remembers each one for
 *   24 hours with the answer it got, so a retry is answered again and never applied twice.
 * - numbered: `<session>.<n>`, a client's own session id and its operations numbered from 1.
 *   A numbered *tap* costs the group one row per session instead of one row per tap: the server
 *   keeps, per group and session, the highest number applied and one bit for each of the
 *   OPERATION_SESSION_WINDOW numbers below it. Every other change with a numbered id is remembered
 *   like an opaque one.
 *
 * No imports beyond the limits: the bench's load generator uses this module too.
 */
import {
  OPERATION_ID_MAX_LENGTH,
  OPERATION_NUMBER_MAX_DIGITS,
  OPERATION_SESSION_MAX_LENGTH,
  OPERATION_SESSION_MIN_LENGTH,
} from './limits.js';

const ID_CHARACTERS = '[A-Za-z0-9_-]';
const NUMBERED_SOURCE = `(${ID_CHARACTERS}{${OPERATION_SESSION_MIN_LENGTH},${OPERATION_SESSION_MAX_LENGTH}})\\.([1-9][0-9]{0,${OPERATION_NUMBER_MAX_DIGITS - 1}})`;

/** Either form, whole string. */
export const OPERATION_ID_PATTERN = new RegExp(
  `^(?:${ID_CHARACTERS}{1,${OPERATION_ID_MAX_LENGTH}}|${NUMBERED_SOURCE})$`,
);
const NUMBERED = new RegExp(`^${NUMBERED_SOURCE}$`);

export interface NumberedOperationId {
  session: string;
  /** From 1, below 10^15 (exact in a double). */
  n: number;
}

/** The session and number of a numbered operation id; undefined for an opaque one. */
export function parseNumberedId(opId: string): NumberedOperationId | undefined {
  // A dot only ever appears in the numbered form: the opaque one has none.
  if (!opId.includes('.')) return undefined;
  const match = NUMBERED.exec(opId);
  if (!match) return undefined;
  return { session: match[1] as string, n: Number(match[2]) };
}

/** The numbered id of `session`'s operation `n`. */
export const numberedId = (session: string, n: number): string => `${session}.${String(n)}`;
