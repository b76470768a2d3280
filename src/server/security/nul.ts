/**
 * NUL characters (U+0000). SQLite stores them, PostgreSQL refuses them in text (a driver error,
 * which used to surface as a 500 and fail the whole batch), and no counter, group or member
 * name has a use for them. Text carrying one is refused the same way on both stores, REST and
 * live, before it reaches the batch (so it never touches its neighbours).
 *
 * The other text the two stores disagree on is a lone UTF-16 surrogate (JSON's "\ud800"):
 * PostgreSQL's driver sends it as one U+FFFD, SQLite's stores three bytes that read back as
 * three. wellFormed() makes it one U+FFFD before either store sees it.
 */
import type { Mutation } from '../../shared/api.js';
import { MESSAGES } from '../../shared/messages.js';
import { DomainError, errors } from '../errors.js';

const NUL = '\u0000';

export const hasNul = (text: string): boolean => text.includes(NUL);

/** A high surrogate without its low half, or a low one without its high half. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** The text with each lone surrogate replaced by U+FFFD (what UTF-8 can carry). */
export const wellFormed = (text: string): string => text.replace(LONE_SURROGATE, '\uFFFD');

/** The mutation with its text fields well-formed (a copy only when one had to change). */
export function wellFormedMutation(mutation: Mutation): Mutation {
  if (mutation.kind === 'updateSection') {
    const section = wellFormed(mutation.section);
    return section === mutation.section ? mutation : { ...mutation, section };
  }
  const fields: object | undefined =
    'patch' in mutation ? mutation.patch : 'fields' in mutation ? mutation.fields : undefined;
  if (fields === undefined) return mutation;
  let changed = false;
  const cleaned: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(fields as Record<string, unknown>)) {
    const next = typeof value === 'string' ? wellFormed(value) : value;
    if (next !== value) changed = true;
    cleaned[field] = next;
  }
  if (!changed) return mutation;
  return 'patch' in mutation
    ? { ...mutation, patch: cleaned }
    : ({ ...mutation, fields: cleaned } as Mutation);
}

export function refuseNulCharacters(mutation: Mutation): void {
  // No counter id contains one, so such an id names no counter.
  if ('counterId' in mutation && hasNul(mutation.counterId)) throw errors.counterNotFound();
  if (mutation.kind === 'reorderCounters' && mutation.counterIds.some(hasNul)) {
    throw new DomainError('validation_failed', MESSAGES.invalidOrder);
  }
  if (mutation.kind === 'updateSection' && hasNul(mutation.section)) {
    throw new DomainError('validation_failed', `section: ${MESSAGES.textHasNul}`);
  }
  const fields: object =
    'patch' in mutation ? mutation.patch : 'fields' in mutation ? mutation.fields : {};
  for (const [field, value] of Object.entries(fields)) {
    if (typeof value === 'string' && hasNul(value)) {
      throw new DomainError('validation_failed', `${field}: ${MESSAGES.textHasNul}`);
    }
  }
}

/** The member's name for the activity log (Tally-Member header, live `actor`). */
export function refuseNulInMemberName(name: string | undefined): void {
  if (name !== undefined && hasNul(name)) {
    throw new DomainError('validation_failed', MESSAGES.memberNameHasNul);
  }
}
