/**
 * TRUST_PROXY: behind a reverse proxy or load balancer every connection comes from the proxy, so
 * the per-address key limits (ADR 0005) must read the client's address from X-Forwarded-For, and
 * only when the proxy is trusted: otherwise a guesser would pick a new address for every guess.
 * Connections come from chosen loopback addresses (127.0.0.x), one of them playing the proxy.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLOSE_CODES } from '../../src/shared/protocol.js';
import { createGroup, newKey } from '../helpers/client.js';
import { callFrom, liveAuthFrom } from './support/from.js';
import { startHardenedServer, type HardenedServer } from './support/server.js';

/** Wrong keys one address may try before 429 (ADR 0005, default policy). */
const FAILURES_ALLOWED = 10;
const forwardedFor = (address: string) => ({ 'x-forwarded-for': address });

/**
 * Sends FAILURES_ALLOWED wrong keys from `from`, the i-th with headers `headersFor(i)`, checks
 * each was answered 403, and returns the status of one more wrong key (with `headersFor(-1)`).
 */
async function statusAfterFailures(
  server: HardenedServer,
  base: string,
  from: string,
  headersFor: (attempt: number) => Record<string, string>,
): Promise<number> {
  for (let i = 0; i < FAILURES_ALLOWED; i++) {
    const guess = await callFrom(from, server.url, 'GET', `${base}/counters`, {
      key: newKey(),
      headers: headersFor(i),
    });
    expect(guess.status).toBe(403);
  }
  const next = await callFrom(from, server.url, 'GET', `${base}/counters`, {
    key: newKey(),
    headers: headersFor(-1),
  });
  return next.status;
}

describe('without TRUST_PROXY', () => {
  let server: HardenedServer;
  beforeAll(async () => {
    server = await startHardenedServer();
  });
  afterAll(async () => {
    await server.close();
  });

  it('ignores X-Forwarded-For: a guesser cannot dodge the per-address limit by inventing addresses', async () => {
    const member = await createGroup(server.url);
    const guesser = '127.0.0.21';
    expect(
      await statusAfterFailures(server, member.base, guesser, (i) =>
        forwardedFor(`198.51.100.${String(i + 2)}`),
      ),
    ).toBe(429);
    const live = await liveAuthFrom(
      guesser,
      server.wsUrl,
      member.group.name,
      newKey(),
      forwardedFor('198.51.100.201'),
    );
    expect(live).toMatchObject({ outcome: 'closed', code: CLOSE_CODES.tooManyMessages });
  });
});

describe('with TRUST_PROXY naming the proxy', () => {
  const proxy = '127.0.0.31';
  let server: HardenedServer;
  beforeAll(async () => {
    server = await startHardenedServer({ trustProxy: [proxy] });
  });
  afterAll(async () => {
    await server.close();
  });

  it('limits each client behind the proxy on its own, over HTTP and the live channel', async () => {
    const member = await createGroup(server.url);
    const guesser = forwardedFor('203.0.113.7');
    expect(await statusAfterFailures(server, member.base, proxy, () => guesser)).toBe(429);
    expect(
      await liveAuthFrom(proxy, server.wsUrl, member.group.name, newKey(), guesser),
    ).toMatchObject({ outcome: 'closed', code: CLOSE_CODES.tooManyMessages });

    // Everyone else behind the same proxy is untouched: a newcomer, over HTTP and live.
    const newcomer = forwardedFor('198.51.100.4');
    const mistaken = await callFrom(proxy, server.url, 'GET', `${member.base}/counters`, {
      key: newKey(),
      headers: newcomer,
    });
    expect(mistaken.status).toBe(403);
    const joined = await callFrom(proxy, server.url, 'GET', `${member.base}/counters`, {
      key: member.key,
      headers: newcomer,
    });
    expect(joined.status).toBe(200);
    expect(
      await liveAuthFrom(proxy, server.wsUrl, member.group.name, member.key, newcomer),
    ).toEqual({ outcome: 'ready' });
  });

  it('believes X-Forwarded-For only from the proxy: a client connecting directly keeps its own address', async () => {
    const member = await createGroup(server.url);
    const direct = '127.0.0.32';
    expect(
      await statusAfterFailures(server, member.base, direct, (i) =>
        forwardedFor(`192.0.2.${String(i + 2)}`),
      ),
    ).toBe(429);
  });

  it('walks back only through trusted hops: a client cannot prepend an address of its choosing', async () => {
    const member = await createGroup(server.url);
    // The proxy appends the address it saw (203.0.113.50) to whatever the client sent.
    expect(
      await statusAfterFailures(server, member.base, proxy, (i) =>
        forwardedFor(`192.0.2.${String(i + 2)}, 203.0.113.50`),
      ),
    ).toBe(429);
  });
});
