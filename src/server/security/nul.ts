/**
 * NUL characters (U+0000). SQLite stores them, PostgreSQL refuses them in text (a driver error,
 * which used to surface as a 500 and fail the whole batch), and no counter, group or member
 * name has a use for them. Text carrying one is refused the same way on both stores, REST and
 * live, before it reaches the batch (so it never touches its neighbours).
 *
 * NUL is the only text PostgreSQL refuses from Tally: JS strings are sent as UTF-8, where a
 * lone surrogate becomes U+FFFD on both drivers alike (test/hardening/fuzz-postgres.test.ts).
 */
import type { Mutation } from '../../shared/api.js';
import { MESSAGES } from '../../shared/messages.js';
import { HttpError, errors } from '../errors.js';

const NUL = '\u0000';

export const hasNul = (text: string): boolean => text.includes(NUL);

export function refuseNulCharacters(mutation: Mutation): void {
  // No counter id contains one, so such an id names no counter.
  if ('counterId' in mutation && hasNul(mutation.counterId)) throw errors.counterNotFound();
  const fields: object =
    'patch' in mutation ? mutation.patch : 'fields' in mutation ? mutation.fields : {};
  for (const [field, value] of Object.entries(fields)) {
    if (typeof value === 'string' && hasNul(value)) {
      throw new HttpError('validation_failed', `${field}: ${MESSAGES.textHasNul}`);
    }
  }
}

/** The member's name for the activity log (Tally-Member header, live `actor`). */
export function refuseNulInMemberName(name: string | undefined): void {
  if (name !== undefined && hasNul(name)) {
    throw new HttpError('validation_failed', MESSAGES.memberNameHasNul);
  }
}
