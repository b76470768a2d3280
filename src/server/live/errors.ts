/**
 * The live edge's side of domain errors (../errors.ts): a refused `mutate` is answered with an
 * `error` frame carrying the code and message; a refused `auth` closes the socket with one of
 * CLOSE_CODES, whose number tells the client whether to reconnect (docs/api.md "Live channel").
 */
import type { ErrorCode } from '../../shared/api.js';
import { MESSAGES } from '../../shared/messages.js';
import { CLOSE_CODES } from '../../shared/live.js';
import { DomainError } from '../errors.js';

/** The `error` payload of a live answer. */
export interface LiveError {
  code: ErrorCode;
  message: string;
}

/**
 * The close code for an `auth` refused with each code. Only the key and group answers have
 * codes of their own; anything else (the store failing) is "going away": reconnect later.
 */
export const CLOSE_CODE_OF = {
  invalid_group_name: CLOSE_CODES.badMessage,
  missing_key: CLOSE_CODES.forbidden,
  invalid_key_format: CLOSE_CODES.forbidden,
  wrong_key: CLOSE_CODES.forbidden,
  group_not_found: CLOSE_CODES.groupNotFound,
  counter_not_found: CLOSE_CODES.goingAway,
  validation_failed: CLOSE_CODES.goingAway,
  value_out_of_range: CLOSE_CODES.goingAway,
  payload_too_large: CLOSE_CODES.goingAway,
  // Too many failed keys: the same back-off as too many messages.
  rate_limited: CLOSE_CODES.tooManyMessages,
  activity_not_found: CLOSE_CODES.goingAway,
  already_undone: CLOSE_CODES.goingAway,
  limit_reached: CLOSE_CODES.goingAway,
  cannot_undo: CLOSE_CODES.goingAway,
  invalid_order: CLOSE_CODES.goingAway,
  read_only: CLOSE_CODES.goingAway,
  not_found: CLOSE_CODES.goingAway,
  internal_error: CLOSE_CODES.goingAway,
  operation_id_reused: CLOSE_CODES.goingAway,
  operation_expired: CLOSE_CODES.goingAway,
  too_many_counters: CLOSE_CODES.goingAway,
  too_many_groups: CLOSE_CODES.goingAway,
  too_many_connections: CLOSE_CODES.goingAway,
  // Only heavy REST reads answer it; a live socket never does.
  too_many_reads: CLOSE_CODES.goingAway,
  busy: CLOSE_CODES.goingAway,
  storage_unavailable: CLOSE_CODES.goingAway,
  request_timeout: CLOSE_CODES.goingAway,
  headers_too_large: CLOSE_CODES.goingAway,
  // Only GET /metrics answers it; a live socket never does.
  invalid_metrics_token: CLOSE_CODES.goingAway,
  // Alerts are managed over HTTP only; a live socket never answers these.
  alert_not_found: CLOSE_CODES.goingAway,
  too_many_alerts: CLOSE_CODES.goingAway,
  destination_refused: CLOSE_CODES.goingAway,
  // A tap link's refused change is an `error` frame; links are managed over HTTP only.
  tap_only: CLOSE_CODES.goingAway,
  link_not_found: CLOSE_CODES.goingAway,
  too_many_links: CLOSE_CODES.goingAway,
  // Imports are made over HTTP only; a live socket never answers these.
  import_invalid: CLOSE_CODES.goingAway,
  too_many_entries: CLOSE_CODES.goingAway,
  // Notes are changed over HTTP only; a live socket never answers these.
  not_your_entry: CLOSE_CODES.goingAway,
  note_edit_closed: CLOSE_CODES.goingAway,
} as const satisfies Record<ErrorCode, number>;

/**
 * What a client is told of a failure: a domain error as it is; anything else is a fault of
 * ours, reported (`onUnexpected`, for the log) and answered `internal_error` without detail.
 */
export function liveErrorOf(error: unknown, onUnexpected: (error: unknown) => void): LiveError {
  if (error instanceof DomainError) return { code: error.code, message: error.message };
  onUnexpected(error);
  return { code: 'internal_error', message: MESSAGES.internalError };
}
