/**
 * Heavy reads have a budget per client address (ADR 34, docs/api.md "Limits"): exports, the
 * activity chain check, history and activity pages of more than 50 entries.
 *   - each address may run only so many at once and start them at a bounded rate; past either,
 *     429 `too_many_reads` with Retry-After, before anything is read;
 *   - the budget is the address's own: another address's heavy reads, and the greedy address's
 *     ordinary calls, are answered as before;
 *   - a long activity page counts only when it returned many entries (a catch-up does not);
 *   - a refusal is held a moment before it is answered, so resending at once gains nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RateLimitedError } from '../../src/server/security/key-guard.js';
import { HeavyReads } from '../../src/server/security/heavy-reads.js';
import type { ApiError, Counter } from '../../src/shared/api.js';
import type { ActivityPage } from '../../src/shared/activity.js';
import { MESSAGES } from '../../src/shared/messages.js';
import { call, createGroup } from '../helpers/client.js';
import { callFrom } from './support/from.js';
import { startHardenedServer, type HardenedServer } from './support/server.js';

describe('the heavy read budget (fake clock)', () => {
  function budget(atOnce: number, burst: number, refillMs: number) {
    let now = 1_000_000;
    const reads = new HeavyReads({ atOnce, rate: { burst, refillMs } }, () => now);
    const refusal = (run: () => unknown) => {
      try {
        run();
      } catch (error) {
        if (error instanceof RateLimitedError)
          return `${error.code} after ${error.retryAfterSeconds}`;
        throw error;
      }
      return 'started';
    };
    return { reads, refusal, advance: (ms: number) => (now += ms) };
  }

  it('runs only so many of one address at once, and frees a place when one ends', () => {
    const { reads, refusal } = budget(2, 100, 1_000);
    const first = reads.begin('a');
    reads.begin('a');
    expect(refusal(() => reads.begin('a'))).toBe('too_many_reads after 1');
    // Another address has places of its own.
    expect(refusal(() => reads.begin('b'))).toBe('started');
    first();
    first();
    expect(reads.runningFor('a')).toBe(1);
    expect(refusal(() => reads.begin('a'))).toBe('started');
  });

  it('lets a burst through, then one read per refill, saying how long to wait', () => {
    const { reads, refusal, advance } = budget(100, 3, 2_000);
    for (let i = 0; i < 3; i++) reads.begin('a')();
    expect(refusal(() => reads.begin('a'))).toBe('too_many_reads after 2');
    advance(1_000);
    expect(refusal(() => reads.begin('a'))).toBe('too_many_reads after 1');
    advance(1_000);
    expect(refusal(() => reads.begin('a'))).toBe('started');
    expect(refusal(() => reads.begin('b'))).toBe('started');
  });

  it('charges a read counted at its end only when its end says so', () => {
    const { reads, refusal } = budget(100, 1, 60_000);
    for (let i = 0; i < 5; i++) reads.begin('a', { chargeAtEnd: true })(false);
    reads.begin('a', { chargeAtEnd: true })(true);
    expect(refusal(() => reads.begin('a', { chargeAtEnd: true }))).toBe('too_many_reads after 60');
  });

  it('never limits a caller without an address (in-process)', () => {
    const { reads } = budget(1, 1, 60_000);
    for (let i = 0; i < 5; i++) reads.begin(undefined);
    expect(reads.runningFor('undefined')).toBe(0);
  });
});

describe('heavy reads from several addresses (real server)', () => {
  const GREEDY = '127.0.0.2';
  const OTHER = '127.0.0.3';
  /** Heavy reads each address may start before it must wait; none come back during the test. */
  const BURST = 3;
  let server: HardenedServer;
  let group: Awaited<ReturnType<typeof createGroup>>;
  let counter: Counter;

  beforeAll(async () => {
    server = await startHardenedServer({
      security: { heavyReads: { atOnce: 10, rate: { burst: BURST, refillMs: 600_000 } } },
    });
    group = await createGroup(server.url);
    counter = await group.addCounter({ name: 'Coffees' });
    // More entries than a light page holds, so that a long page is a heavy one.
    for (let i = 0; i < 60; i++) {
      await call(server.url, 'POST', `${group.base}/counters/${counter.id}/increment`, {
        key: group.key,
      });
    }
  });
  afterAll(async () => {
    await server.close();
  });

  const read = (from: string, path: string) =>
    callFrom<ApiError>(from, server.url, 'GET', `${group.base}${path}`, { key: group.key });

  it('refuses an address past its budget 429 too_many_reads with Retry-After, and answers another address', async () => {
    const heavy = [
      `/counters/${counter.id}/history?points=100`,
      '/export?format=json',
      '/activity?limit=200',
    ];
    for (const path of heavy) expect((await read(GREEDY, path)).status).toBe(200);

    for (const path of [...heavy, '/activity/verify', '/history', '/export?format=csv']) {
      const refused = await read(GREEDY, path);
      expect(refused.status).toBe(429);
      expect(refused.body.error.code).toBe('too_many_reads');
      const seconds = Number(refused.headers['retry-after']);
      expect(seconds).toBeGreaterThanOrEqual(1);
      expect(refused.body.error.message).toBe(MESSAGES.tooManyReads(seconds));
    }

    // The greedy address's ordinary calls are not heavy reads: still answered.
    expect((await read(GREEDY, '/counters')).status).toBe(200);
    expect((await read(GREEDY, '/activity?limit=50')).status).toBe(200);
    const tap = await callFrom(
      GREEDY,
      server.url,
      'POST',
      `${group.base}/counters/${counter.id}/increment`,
      {
        key: group.key,
      },
    );
    expect(tap.status).toBe(200);

    // Another address has its own budget, untouched by the greedy one.
    for (const path of heavy) expect((await read(OTHER, path)).status).toBe(200);
  });

  it('holds a refusal the address earned before answering it, and answers another address meanwhile', async () => {
    const address = '127.0.0.5';
    for (let i = 0; i < BURST; i++) expect((await read(address, '/history')).status).toBe(200);
    // A client that resends at once is answered only after a pause: the other address's read,
    // sent after the refused one, is answered first.
    const finished: string[] = [];
    const refused = read(address, '/history').then((answer) => {
      finished.push(`refused ${String(answer.status)}`);
    });
    const other = read('127.0.0.6', '/history').then((answer) => {
      finished.push(`other ${String(answer.status)}`);
    });
    await Promise.all([refused, other]);
    expect(finished).toEqual(['other 200', 'refused 429']);
  });

  it('does not count a long activity page that found only a few entries (a catch-up)', async () => {
    const address = '127.0.0.4';
    const newest = await read(address, '/activity?limit=1');
    const after = (newest.body as unknown as ActivityPage).entries[0]?.id ?? 0;
    // Many catch-ups with nothing or little new: none of them uses the budget.
    for (let i = 0; i < BURST + 3; i++) {
      const catchUp = await read(address, `/activity?after=${String(after - 2)}&limit=200`);
      expect(catchUp.status).toBe(200);
      expect((catchUp.body as unknown as ActivityPage).entries.length).toBeLessThanOrEqual(2);
    }
    for (let i = 0; i < BURST; i++)
      expect((await read(address, '/activity?limit=200')).status).toBe(200);
    expect((await read(address, '/activity?limit=200')).status).toBe(429);
  });
});

describe('heavy reads one at a time (real server)', () => {
  const ADDRESS = '127.0.0.7';
  let server: HardenedServer;
  beforeAll(async () => {
    server = await startHardenedServer({
      security: { heavyReads: { atOnce: 1, rate: { burst: 1_000, refillMs: 1 } } },
    });
  });
  afterAll(async () => {
    await server.close();
  });

  it("frees an address's place when each answer has been sent, a streamed export's included", async () => {
    const group = await createGroup(server.url);
    const counter = await group.addCounter({ name: 'Coffees' });
    const paths = [
      '/export?format=json',
      `/counters/${counter.id}/history?points=10`,
      '/history',
      '/activity/verify',
      '/activity?limit=200',
    ];
    for (const path of [...paths, ...paths]) {
      const answer = await callFrom(ADDRESS, server.url, 'GET', `${group.base}${path}`, {
        key: group.key,
      });
      expect(answer.status).toBe(200);
    }
  });
});
