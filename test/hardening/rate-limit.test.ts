/**
 * Failed access keys are rate-limited per client address and per group (ADR 0005):
 *   - only wrong keys count (a missing or malformed key guesses nothing);
 *   - per address: 10 failures at once, then one every 6 s;
 *   - per group: 30 failures at once (all addresses together), then one every 2 s;
 *   - a failure over a limit is answered 429 `rate_limited` with Retry-After instead of 403;
 *   - the key is always checked and a right key always gets in, whatever the buckets say: no
 *     number of wrong keys from other addresses locks a member or a newcomer out, and successful
 *     calls never use up anything.
 * The live channel's auth counts the same and is refused with close code 4429.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DomainError } from '../../src/server/errors.js';
import { KeyGuard, RateLimitedError } from '../../src/server/security/key-guard.js';
import { DEFAULT_KEY_FAILURE_POLICY } from '../../src/server/security/policy.js';
import type { ApiError, Counter } from '../../src/shared/api.js';
import { CLOSE_CODES } from '../../src/shared/protocol.js';
import { createGroup, newKey } from '../helpers/client.js';
import { callFrom, liveAuthFrom } from './support/from.js';
import { LiveFairShare } from '../../src/server/live/fair-share.js';
import { startHardenedServer, type HardenedServer } from './support/server.js';

describe('the key guard policy (fake clock)', () => {
  const wrongKey = () => Promise.reject(new DomainError('wrong_key', 'wrong'));
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
          if (error instanceof DomainError) return error.code;
          throw error;
        }
      },
    };
  }

  it('lets 10 failures from one address through, then answers failures 429 with Retry-After 6 s', async () => {
    const { attempt, advance } = guard();
    for (let i = 0; i < 10; i++) expect(await attempt('a', `g${i}`, wrongKey)).toBe('wrong_key');
    expect(await attempt('a', 'g-new', wrongKey)).toBe('429 after 6');
    // A right key is always checked and always passes, even from an address over its limit …
    expect(await attempt('a', 'g-new', rightKey)).toBe('ok');
    advance(3_000);
    expect(await attempt('a', 'g-new', wrongKey)).toBe('429 after 3');
    // … and one more failure is answered as such every 6 s.
    advance(6_000);
    expect(await attempt('a', 'g-new', wrongKey)).toBe('wrong_key');
    expect(await attempt('a', 'g-new', wrongKey)).toBe('429 after 6');
    // Other addresses are not affected.
    expect(await attempt('b', 'g-other', wrongKey)).toBe('wrong_key');
  });

  it('answers failures on one group 429 after 30 from all addresses; a newcomer with the right key gets in at once', async () => {
    const { attempt } = guard();
    for (let i = 0; i < 30; i++) expect(await attempt(`a${i}`, 'g', wrongKey)).toBe('wrong_key');
    expect(await attempt('fresh', 'g', wrongKey)).toBe('429 after 2');
    expect(await attempt('newcomer', 'g', rightKey)).toBe('ok');
  });

  it('lets members and newcomers with the right key in however many failures strangers cause', async () => {
    const { attempt } = guard();
    expect(await attempt('member', 'g', rightKey)).toBe('ok');
    // 100,000 failures from 100,000 addresses: nothing a stranger does can evict anyone.
    for (let i = 0; i < 100_000; i++) await attempt(`attacker${i}`, 'g', wrongKey);
    expect(await attempt('member', 'g', rightKey)).toBe('ok');
    expect(await attempt('stranger', 'g', rightKey)).toBe('ok');
    expect(await attempt('stranger', 'g', wrongKey)).toMatch(/^429/);
  });

  it('never counts successful checks', async () => {
    const { attempt } = guard();
    for (let i = 0; i < 1_000; i++) expect(await attempt('a', 'g', rightKey)).toBe('ok');
    for (let i = 0; i < 10; i++) expect(await attempt('a', `h${i}`, wrongKey)).toBe('wrong_key');
  });

  it('does not count a missing or malformed key: it guesses nothing', async () => {
    const { attempt } = guard();
    const missing = () => Promise.reject(new DomainError('missing_key', 'no key'));
    const malformed = () => Promise.reject(new DomainError('invalid_key_format', 'bad'));
    for (let i = 0; i < 50; i++) expect(await attempt('a', 'g', missing)).toBe('missing_key');
    for (let i = 0; i < 50; i++)
      expect(await attempt('a', 'g', malformed)).toBe('invalid_key_format');
    expect(await attempt('a', 'g', wrongKey)).toBe('wrong_key');
  });

  it('does not count answers that are not key failures (unknown group)', async () => {
    const { attempt } = guard();
    const unknown = () => Promise.reject(new DomainError('group_not_found', 'nope'));
    for (let i = 0; i < 50; i++) expect(await attempt('a', 'g', unknown)).toBe('group_not_found');
    expect(await attempt('a', 'g', wrongKey)).toBe('wrong_key');
  });
});

describe('rate limits on a real server (default policy)', () => {
  let server: HardenedServer;
  beforeAll(async () => {
    // The fair share refuses taps only while the event loop is behind (ADR 32, tested in
    // fair-share.test.ts); this suite is about rate limits, so a loaded machine must not trip it.
    server = await startHardenedServer({ fairShare: new LiveFairShare({ sample: false }) });
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
    // The limit only holds back answers to wrong keys: the right key opens from there too.
    const right = await callFrom(attacker, server.url, 'GET', `${member.base}/counters`, {
      key: member.key,
    });
    expect(right.status).toBe(200);

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

  it('counts failed live auths per address and closes the 11th failure with 4429; the right key still opens', async () => {
    const member = await createGroup(server.url);
    const attacker = '127.0.0.5';
    for (let i = 0; i < 10; i++) {
      const attempt = await liveAuthFrom(attacker, server.wsUrl, member.group.name, newKey());
      expect(attempt).toMatchObject({ outcome: 'closed', code: CLOSE_CODES.forbidden });
    }
    const refused = await liveAuthFrom(attacker, server.wsUrl, member.group.name, newKey());
    expect(refused).toMatchObject({ outcome: 'closed', code: CLOSE_CODES.tooManyMessages });
    if (refused.outcome === 'closed') expect(refused.reason).toMatch(/try again in \d+ s/);
    const restWrong = await callFrom(attacker, server.url, 'GET', `${member.base}/counters`, {
      key: newKey(),
    });
    expect(restWrong.status).toBe(429);
    expect(await liveAuthFrom(attacker, server.wsUrl, member.group.name, member.key)).toEqual({
      outcome: 'ready',
    });
    const rest = await callFrom(attacker, server.url, 'GET', `${member.base}/counters`, {
      key: member.key,
    });
    expect(rest.status).toBe(200);
  });

  it('limits a group attacked from many addresses and lets a newcomer with the right key in at once', async () => {
    const member = await createGroup(server.url);
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
    const retryAfter = Number(distributed.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(2);
    const newcomer = await callFrom('127.0.2.1', server.url, 'POST', `${member.base}/join`, {
      body: { key: member.key },
    });
    expect(newcomer.status).toBe(200);
    const memberCall = await callFrom('127.0.0.1', server.url, 'GET', `${member.base}/counters`, {
      key: member.key,
    });
    expect(memberCall.status).toBe(200);
  });

  it('lets newcomers with the right key in every time while four addresses flood the group with wrong keys', async () => {
    const member = await createGroup(server.url);
    const counter = await member.addCounter();
    let flooding = true;
    let wrongAnswers = 0;
    const flood = async (address: string) => {
      while (flooding) {
        const guess =
          wrongAnswers % 2 === 0
            ? await callFrom(address, server.url, 'GET', `${member.base}/counters`, {
                key: newKey(),
              })
            : await callFrom(address, server.url, 'POST', `${member.base}/join`, {
                body: { key: newKey() },
              });
        expect([403, 429]).toContain(guess.status);
        wrongAnswers++;
      }
    };
    const attackers = ['127.0.3.1', '127.0.3.2', '127.0.3.3', '127.0.3.4'].map(flood);
    try {
      // Let the flood exhaust both the attackers' and the group's buckets first.
      while (wrongAnswers < 100) await new Promise((resolve) => setTimeout(resolve, 5));
      for (let i = 1; i <= 16; i++) {
        const newcomer = `127.0.4.${i}`;
        const join = await callFrom(newcomer, server.url, 'POST', `${member.base}/join`, {
          body: { key: member.key },
        });
        expect(join.status).toBe(200);
        const tap = await callFrom<Counter>(
          newcomer,
          server.url,
          'POST',
          `${member.base}/counters/${counter.id}/increment`,
          { key: member.key },
        );
        expect(tap.status).toBe(200);
        expect(await liveAuthFrom(newcomer, server.wsUrl, member.group.name, member.key)).toEqual({
          outcome: 'ready',
        });
      }
    } finally {
      flooding = false;
      await Promise.all(attackers);
    }
    expect((await member.counters())[0]?.value).toBe(16);
    const lastGuess = await callFrom('127.0.3.1', server.url, 'GET', `${member.base}/counters`, {
      key: newKey(),
    });
    expect(lastGuess.status).toBe(429);
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
