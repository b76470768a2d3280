/**
 * The REST edge's side of domain errors (../errors.ts): each ErrorCode's HTTP status, and the
 * Fastify error handler that turns any thrown error into a `{ error: { code, message } }` answer.
 * Only this module knows that `busy` is a 503; core and the live channel never see a status.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { ApiError, ErrorCode } from '../../shared/api.js';
import { MESSAGES } from '../../shared/messages.js';
import { DomainError } from '../errors.js';
import { RateLimitedError } from '../security/key-guard.js';

/** docs/api.md's status of each error code. */
export const STATUS_OF = {
  invalid_group_name: 400,
  missing_key: 401,
  invalid_key_format: 400,
  wrong_key: 403,
  group_not_found: 404,
  counter_not_found: 404,
  validation_failed: 400,
  value_out_of_range: 422,
  payload_too_large: 413,
  rate_limited: 429,
  activity_not_found: 404,
  already_undone: 409,
  limit_reached: 409,
  cannot_undo: 409,
  invalid_order: 422,
  read_only: 403,
  not_found: 404,
  internal_error: 500,
  operation_id_reused: 422,
  operation_expired: 409,
  too_many_counters: 409,
  too_many_groups: 429,
  too_many_connections: 429,
  too_many_reads: 429,
  busy: 503,
  storage_unavailable: 503,
  request_timeout: 408,
  headers_too_large: 431,
  invalid_metrics_token: 401,
  alert_not_found: 404,
  too_many_alerts: 409,
  destination_refused: 422,
  tap_only: 403,
  link_not_found: 404,
  too_many_links: 409,
  import_invalid: 400,
  too_many_entries: 409,
  not_your_entry: 403,
  note_edit_closed: 409,
} as const satisfies Record<ErrorCode, number>;

/**
 * Retry-After for codes that always carry one, seconds: a `busy` refusal is over within moments
 * (the commit queue drains in well under a second). Rate limits carry their own wait.
 */
const RETRY_AFTER_SECONDS: Partial<Record<ErrorCode, number>> = { busy: 1 };

export function errorBody(code: ErrorCode, message: string): ApiError {
  return { error: { code, message } };
}

/** How a domain error is answered over HTTP. */
export interface RestAnswer {
  status: number;
  body: ApiError;
  /** The Retry-After header, seconds; undefined when the answer has none. */
  retryAfterSeconds: number | undefined;
}

export function restAnswerOf(error: DomainError): RestAnswer {
  return {
    status: STATUS_OF[error.code],
    body: errorBody(error.code, error.message),
    retryAfterSeconds:
      error instanceof RateLimitedError ? error.retryAfterSeconds : RETRY_AFTER_SECONDS[error.code],
  };
}

/**
 * How long a refusal that an address earned by its own excess is held before it is answered, ms:
 * `too_many_reads`, and `busy` for an address over its share of the taps. A client that resends
 * at once, or a loop of them, then costs the server a couple of refusals a second per connection
 * instead of thousands, which would otherwise take the time the fair share freed for others.
 * What is held is bounded by the address's sockets (one request at a time on each, and at most
 * the per-address connection limit of them); the answer still says Retry-After.
 */
export const EXCESS_REFUSAL_HOLD_MS = 500;

/** Refusals held EXCESS_REFUSAL_HOLD_MS before they are answered (besides every too_many_reads). */
const heldRefusals = new WeakSet<DomainError>();

/** `error`, marked to be answered only after EXCESS_REFUSAL_HOLD_MS. */
export function heldRefusal(error: DomainError): DomainError {
  heldRefusals.add(error);
  return error;
}

const isHeld = (error: DomainError) => error.code === 'too_many_reads' || heldRefusals.has(error);

/**
 * Fastify's error handler: domain errors with their status, Fastify's own 4xx as
 * validation_failed (413 for a body over the limit), anything else as a logged 500.
 */
export async function answerError(
  error: FastifyError | DomainError,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> {
  if (error instanceof DomainError) {
    if (isHeld(error)) await sleep(EXCESS_REFUSAL_HOLD_MS);
    const answer = restAnswerOf(error);
    if (answer.retryAfterSeconds !== undefined)
      void reply.header('retry-after', String(answer.retryAfterSeconds));
    return reply.code(answer.status).send(answer.body);
  }
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    return reply
      .code(STATUS_OF.payload_too_large)
      .send(errorBody('payload_too_large', MESSAGES.bodyTooLarge));
  }
  const status = error.statusCode ?? 500;
  if (status < 500) {
    return reply.code(status).send(errorBody('validation_failed', clientMessage(error)));
  }
  request.log.error({ err: error }, 'request failed');
  return reply.code(500).send(errorBody('internal_error', MESSAGES.internalError));
}

/** Fastify's own 4xx messages are fine to show, but never echo body content. */
function clientMessage(error: FastifyError): string {
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return 'Content-Type must be application/json';
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return 'Content-Length does not match the body';
    default:
      return MESSAGES.invalidBody;
  }
}
