/**
 * Failed access keys are rate-limited per client address and per group (ADR 0005):
 *   - per address: 10 failures at once, then one every 6 s;
 *   - per group: 30 failures at once (all addresses together), then one every 2 s;
 *   - over a limit: 429 `rate_limited` with Retry-After, the key is not even looked at;
 *   - an address that got the group's key right in the last hour is never refused for that group,
 *     and successful calls never use up anything.
 * The live channel's auth counts the same and is refused with close code 4429.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpError } from '../../src/server/errors.js';
import { KeyGuard, RateLimitedError } from '../../src/server/security/key-guard.js';
import { DEFAULT_KEY_FAILURE_POLICY } from '../../src/server/security/policy.js';
import type { ApiError, Counter } from '../../src/shared/api.js';
import { CLOSE_CODES } from '../../src/shared/protocol.js';
import { createGroup, newKey } from '../helpers/client.js';
import { callFrom, liveAuthFrom } from './support/from.js';
import { startHardenedServer, type HardenedServer } from './support/server.js';

describe('the key guard policy (fake clock)', () => {
  const wrongKey = () => Promise.reject(new HttpError('wrong_key', 'wrong'));
  const rightKey = () => Promise.resolve('ok');

  function guard() {
    let now = 1_000_000;
    const keyGuard = new KeyGuard(DEFAULT_KEY_FAILURE_POLICY, () => now);
    return {
      keyGuard,
      advance: (ms: number) => (now += ms),
      attempt: async (client: string, group: string, run: () => Promise<string>) => {
        try {
          return await keyGuard.check(client, group, run);
        } catch (error) {
          if (error instanceof RateLimitedError) return `429 after ${error.retryAfterSeconds}`;
          if (error instanceof HttpError) return error.code;
          throw error;
        }
      },
    };
  }

  it('lets 10 failures from one address through, then refuses with Retry-After 6 s', async () => {
    const { attempt, advance } = guard();
    for (let i = 0; i < 10; i++) expect(await attempt('a', `g${i}`, wrongKey)).toBe('wrong_key');
    expect(await attempt('a', 'g-new', wrongKey)).toBe('429 after 6');
    // Refused requests are not checked, so a right key is refused too (no oracle) …
    expect(await attempt('a', 'g-new', rightKey)).toBe('429 after 6');
    advance(3_000);
    expect(await attempt('a', 'g-new', rightKey)).toBe('429 after 3');
    // … and one more attempt comes back every 6 s.
    advance(3_000);
    expect(await attempt('a', 'g-new', wrongKey)).toBe('wrong_key');
    expect(await attempt('a', 'g-new', wrongKey)).toBe('429 after 6');
    // Other addresses are not affected.
    expect(await attempt('b', 'g-new', rightKey)).toBe('ok');
  });

  it('lets 30 failures on one group through from all addresses, then refuses for 2 s', async () => {
    const { attempt, advance } = guard();
    for (let i = 0; i < 30; i++) expect(await attempt(`a${i}`, 'g', wrongKey)).toBe('wrong_key');
    expect(await attempt('fresh', 'g', wrongKey)).toBe('429 after 2');
    expect(await attempt('newcomer', 'g', rightKey)).toBe('429 after 2');
    advance(2_000);
    expect(await attempt('newcomer', 'g', rightKey)).toBe('ok');
  });

  it('never refuses an address that proved the key in the last hour', async () => {
    const { attempt, advance } = guard();
    expect(await attempt('member', 'g', rightKey)).toBe('ok');
    for (let i = 0; i < 100; i++) await attempt(`attacker${i}`, 'g', wrongKey);
    expect(await attempt('stranger', 'g', rightKey)).toMatch(/^429/);
    expect(await attempt('member', 'g', rightKey)).toBe('ok');
    advance(59 * 60_000);
    expect(await attempt('member', 'g', rightKey)).toBe('ok');
  });

  it('never counts successful checks', async () => {
    const { attempt } = guard();
    for (let i = 0; i < 1_000; i++) expect(await attempt('a', 'g', rightKey)).toBe('ok');
    for (let i = 0; i < 10; i++) expect(await attempt('a', `h${i}`, wrongKey)).toBe('wrong_key');
  });

  it('does not count answers that are not key failures (unknown group)', async () => {
    const { attempt } = guard();
    const unknown = () => Promise.reject(new HttpError('group_not_found', 'nope'));
    for (let i = 0; i < 50; i++) expect(await attempt('a', 'g', unknown)).toBe('group_not_found');
    expect(await attempt('a', 'g', wrongKey)).toBe('wrong_key');
  });
});

describe('rate limits on a real server (default policy)', () => {
  let server: HardenedServer;
  beforeAll(async () => {
    server = await startHardenedServer();
  });
  afterAll(async () => {
    await server.close();
  });

  it('answers the 11th failed key from one address with 429 and Retry-After; the key holder keeps working', async () => {
    // The member joins from 127.0.0.1 (createGroup), the attacker works from 127.0.0.2.
    const member = await createGroup(server.url);
    const counter = await member.addCounter();
    const attacker = '127.0.0.2';
    for (let i = 0; i < 10; i++) {
      const guess = await callFrom(attacker, server.url, 'GET', `${member.base}/counters`, {
        key: newKey(),
      });
      expect(guess.status).toBe(403);
    }
    const refused = await callFrom<ApiError>(
      attacker,
      server.url,
      'GET',
      `${member.base}/counters`,
      {
        key: newKey(),
      },
    );
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('rate_limited');
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(6);
    expect(refused.body.error.message).toContain(`${retryAfter} s`);
    // Join counts too, and so does the live channel.
    const join = await callFrom(attacker, server.url, 'POST', `${member.base}/join`, {
      body: { key: newKey() },
    });
    expect(join.status).toBe(429);
    const live = await liveAuthFrom(attacker, server.wsUrl, member.group.name, newKey());
    expect(live).toMatchObject({ outcome: 'closed', code: CLOSE_CODES.tooManyMessages });

    // The rightful holder (another address) is not slowed down at all.
    const holder = await callFrom<Counter>(
      '127.0.0.1',
      server.url,
      'POST',
      `${member.base}/counters/${counter.id}/increment`,
      { key: member.key },
    );
    expect(holder.status).toBe(200);
    expect(holder.body.value).toBe(1);
    expect(await liveAuthFrom('127.0.0.1', server.wsUrl, member.group.name, member.key)).toEqual({
      outcome: 'ready',
    });
  });

  it('counts failed live auths per address and closes the 11th with 4429', async () => {
    const member = await createGroup(server.url);
    const attacker = '127.0.0.5';
    for (let i = 0; i < 10; i++) {
      const attempt = await liveAuthFrom(attacker, server.wsUrl, member.group.name, newKey());
      expect(attempt).toMatchObject({ outcome: 'closed', code: CLOSE_CODES.forbidden });
    }
    const refused = await liveAuthFrom(attacker, server.wsUrl, member.group.name, member.key);
    expect(refused).toMatchObject({ outcome: 'closed', code: CLOSE_CODES.tooManyMessages });
    if (refused.outcome === 'closed') expect(refused.reason).toMatch(/try again in \d+ s/);
    const rest = await callFrom(attacker, server.url, 'GET', `${member.base}/counters`, {
      key: member.key,
    });
    expect(rest.status).toBe(429);
  });

  it('limits a group attacked from many addresses, lets its members in, and lets a newcomer in within seconds', async () => {
    const member = await createGroup(server.url); // trusted: 127.0.0.1
    for (let i = 1; i <= 30; i++) {
      const guess = await callFrom(`127.0.1.${i}`, server.url, 'GET', `${member.base}/counters`, {
        key: newKey(),
      });
      expect(guess.status).toBe(403);
    }
    const distributed = await callFrom(`127.0.1.31`, server.url, 'GET', `${member.base}/counters`, {
      key: newKey(),
    });
    expect(distributed.status).toBe(429);
    // A newcomer with the right key (never seen before) waits briefly …
    const newcomer = '127.0.2.1';
    const first = await callFrom(newcomer, server.url, 'POST', `${member.base}/join`, {
      body: { key: member.key },
    });
    expect(first.status).toBe(429);
    const retryAfter = Number(first.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(2);
    // … while the member who already proved the key is never refused.
    const memberCall = await callFrom('127.0.0.1', server.url, 'GET', `${member.base}/counters`, {
      key: member.key,
    });
    expect(memberCall.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000));
    const second = await callFrom(newcomer, server.url, 'POST', `${member.base}/join`, {
      body: { key: member.key },
    });
    expect(second.status).toBe(200);
  });

  it('never limits successful calls: 300 calls with the right key from one address', async () => {
    const member = await createGroup(server.url);
    const counter = await member.addCounter();
    const address = '127.0.0.7';
    for (let round = 0; round < 15; round++) {
      const answers = await Promise.all(
        Array.from({ length: 20 }, () =>
          callFrom(address, server.url, 'POST', `${member.base}/counters/${counter.id}/increment`, {
            key: member.key,
          }),
        ),
      );
      expect(answers.map((answer) => answer.status)).toEqual(Array(20).fill(200));
    }
    expect((await member.counters())[0]?.value).toBe(300);
  });
});
