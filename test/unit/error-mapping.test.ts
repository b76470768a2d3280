/**
 * Domain errors carry a code and a message only; each edge maps every ErrorCode its own way: the
 * REST edge to docs/api.md's HTTP status (and Retry-After), the live edge to an `error` payload
 * and, for a refused `auth`, a close code.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DomainError } from '../../src/server/errors.js';
import { CLOSE_CODE_OF, liveErrorOf } from '../../src/server/live/errors.js';
import { STATUS_OF, restAnswerOf } from '../../src/server/routes/errors.js';
import { RateLimitedError } from '../../src/server/security/key-guard.js';
import { StorageUnavailableError, StoreBusyError } from '../../src/server/store/types.js';
import { ErrorCodeSchema, type ErrorCode } from '../../src/shared/api.js';
import { CLOSE_CODES } from '../../src/shared/live.js';

const ALL_CODES: readonly ErrorCode[] = ErrorCodeSchema.options;

/** docs/api.md's "Error codes:" paragraph, as code → status. */
function documentedStatuses(): Map<string, number> {
  const doc = fs.readFileSync(path.join(import.meta.dirname, '../../docs/api.md'), 'utf8');
  const start = doc.indexOf('Error codes:');
  const paragraph = doc.slice(start, doc.indexOf('\n\n', start));
  return new Map(
    [...paragraph.matchAll(/`([a-z_]+)`\s+(\d{3})/g)].map(([, code, status]) => [
      code ?? '',
      Number(status),
    ]),
  );
}

describe('the REST edge', () => {
  it.each(ALL_CODES)('answers %s with its documented status and the { error } body', (code) => {
    const answer = restAnswerOf(new DomainError(code, `message of ${code}`));

    expect(answer.status).toBe(documentedStatuses().get(code));
    expect(answer.body).toEqual({ error: { code, message: `message of ${code}` } });
  });

  it('has a status for exactly the error codes there are', () => {
    expect(Object.keys(STATUS_OF).sort()).toEqual([...ALL_CODES].sort());
  });

  it('tells a busy caller to come back in a second and a rate-limited one when its wait ends', () => {
    expect(restAnswerOf(new StoreBusyError())).toMatchObject({
      status: 503,
      retryAfterSeconds: 1,
    });
    expect(restAnswerOf(new RateLimitedError(7))).toMatchObject({
      status: 429,
      retryAfterSeconds: 7,
    });
    expect(restAnswerOf(new StorageUnavailableError('disk full'))).toMatchObject({
      status: 503,
      retryAfterSeconds: undefined,
    });
  });
});

describe('the live edge', () => {
  it.each(ALL_CODES)('sends %s as an error payload with its code and message', (code) => {
    const unexpected: unknown[] = [];
    const payload = liveErrorOf(new DomainError(code, `message of ${code}`), (error) =>
      unexpected.push(error),
    );

    expect(payload).toEqual({ code, message: `message of ${code}` });
    expect(unexpected).toEqual([]);
  });

  it('has a close code, one of CLOSE_CODES, for exactly the error codes there are', () => {
    expect(Object.keys(CLOSE_CODE_OF).sort()).toEqual([...ALL_CODES].sort());
    const known: number[] = Object.values(CLOSE_CODES);
    for (const closeCode of Object.values(CLOSE_CODE_OF)) expect(known).toContain(closeCode);
  });

  it('closes a refused auth with the code that tells the client what to do', () => {
    expect(CLOSE_CODE_OF.wrong_key).toBe(CLOSE_CODES.forbidden);
    expect(CLOSE_CODE_OF.missing_key).toBe(CLOSE_CODES.forbidden);
    expect(CLOSE_CODE_OF.invalid_key_format).toBe(CLOSE_CODES.forbidden);
    expect(CLOSE_CODE_OF.group_not_found).toBe(CLOSE_CODES.groupNotFound);
    expect(CLOSE_CODE_OF.invalid_group_name).toBe(CLOSE_CODES.badMessage);
    expect(CLOSE_CODE_OF.rate_limited).toBe(CLOSE_CODES.tooManyMessages);
    expect(CLOSE_CODE_OF.storage_unavailable).toBe(CLOSE_CODES.goingAway);
  });

  it('answers an error that is not a domain error internal_error, without its detail, and reports it', () => {
    const unexpected: unknown[] = [];
    const failure = new Error('connection refused at 10.0.0.5');
    const payload = liveErrorOf(failure, (error) => unexpected.push(error));

    expect(payload.code).toBe('internal_error');
    expect(payload.message).not.toContain('10.0.0.5');
    expect(unexpected).toEqual([failure]);
  });

  it('passes store failures on as their domain codes', () => {
    const ignore = () => undefined;
    expect(liveErrorOf(new StoreBusyError(), ignore).code).toBe('busy');
    expect(liveErrorOf(new StorageUnavailableError('gone'), ignore).code).toBe(
      'storage_unavailable',
    );
  });
});
