/** Errors that become `{ error: { code, message } }` answers with the right status. */
import type { ErrorCode } from '../shared/api.js';
import { MESSAGES } from '../shared/messages.js';

export const STATUS_OF: Record<ErrorCode, number> = {
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
  read_only: 403,
  not_found: 404,
  internal_error: 500,
  operation_id_reused: 422,
  too_many_counters: 409,
  too_many_groups: 429,
  too_many_connections: 429,
  busy: 503,
  storage_unavailable: 503,
  request_timeout: 408,
  headers_too_large: 431,
};

export class HttpError extends Error {
  override name = 'HttpError';
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    status?: number,
  ) {
    super(message);
    this.status = status ?? STATUS_OF[code];
  }
}

export const errors = {
  counterNotFound: () => new HttpError('counter_not_found', MESSAGES.counterNotFound),
  groupNotFound: () => new HttpError('group_not_found', MESSAGES.groupNotFound),
  valueOutOfRange: () => new HttpError('value_out_of_range', MESSAGES.valueOutOfRange),
};
