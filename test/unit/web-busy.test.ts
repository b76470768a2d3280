/**
 * The web app and a busy server (ADR 13): a 503 `busy` answer is a retriable error
 * that carries the server's Retry-After, which the outbox uses as the floor of its next delay.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MESSAGES } from '../../src/shared/messages.js';
import { ApiRequestError, request } from '../../src/web/lib/api.js';

afterEach(() => {
  vi.unstubAllGlobals();
});

function answerWith(status: number, headers: Record<string, string>, body: unknown): void {
  vi.stubGlobal('fetch', () =>
    Promise.resolve(new Response(JSON.stringify(body), { status, headers })),
  );
}

async function failure(): Promise<ApiRequestError> {
  try {
    await request('POST', '/api/groups/g/counters/c/increment', { key: 'k', opId: 'op-1' });
  } catch (error) {
    if (error instanceof ApiRequestError) return error;
    throw error;
  }
  throw new Error('the request succeeded');
}

describe('a busy answer', () => {
  it('is a retriable error carrying Retry-After in ms', async () => {
    answerWith(503, { 'retry-after': '1' }, { error: { code: 'busy', message: MESSAGES.busy } });
    const error = await failure();
    expect(error.code).toBe('busy');
    expect(error.retriable).toBe(true);
    expect(error.retryAfterMs).toBe(1_000);
    expect(error.serverMessage).toBe(MESSAGES.busy);
  });

  it('without Retry-After, or with a date or nonsense, has no floor; a huge one is capped', async () => {
    answerWith(503, {}, { error: { code: 'busy', message: MESSAGES.busy } });
    expect((await failure()).retryAfterMs).toBe(0);
    answerWith(
      503,
      { 'retry-after': 'Wed, 21 Oct 2015 07:28:00 GMT' },
      { error: { code: 'busy', message: MESSAGES.busy } },
    );
    expect((await failure()).retryAfterMs).toBe(0);
    answerWith(
      503,
      { 'retry-after': '86400' },
      { error: { code: 'busy', message: MESSAGES.busy } },
    );
    expect((await failure()).retryAfterMs).toBe(60_000);
  });
});
