/**
 * NUL characters (U+0000). SQLite stores them, PostgreSQL refuses them in text (a driver error,
 * which used to surface as a 500), and no counter or group field has a use for them. A mutation
 * carrying one is refused the same way on both stores, before it reaches the database.
 */
import type { Mutation } from '../../shared/api.js';
import { HttpError, errors } from '../errors.js';

const NUL = '\u0000';

export function refuseNulCharacters(mutation: Mutation): void {
  // No counter id contains one, so such an id names no counter.
  if ('counterId' in mutation && mutation.counterId.includes(NUL)) throw errors.counterNotFound();
  const fields: object =
    'patch' in mutation ? mutation.patch : 'fields' in mutation ? mutation.fields : {};
  for (const [field, value] of Object.entries(fields)) {
    if (typeof value === 'string' && value.includes(NUL)) {
      throw new HttpError('validation_failed', `${field}: Text must not contain NUL characters`);
    }
  }
}
