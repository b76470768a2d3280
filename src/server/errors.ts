/**
 * Domain errors: what a caller must hear about, as an ErrorCode and SPEC's message, with no
 * transport in them. Core, security and store throw these; each edge says them its own way: the
 * REST edge as an HTTP status and `{ error }` body (routes/errors.ts), the live edge as an
 * `error` frame or a close code (live/errors.ts).
 */
import type { ErrorCode } from '../shared/api.js';
import { MESSAGES } from '../shared/messages.js';

export class DomainError extends Error {
  override name = 'DomainError';
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export const errors = {
  counterNotFound: () => new DomainError('counter_not_found', MESSAGES.counterNotFound),
  groupNotFound: () => new DomainError('group_not_found', MESSAGES.groupNotFound),
};
