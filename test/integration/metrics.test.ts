/**
 * GET /metrics for operators (docs/api.md#metrics): absent unless METRICS_TOKEN is set, then only
 * for that bearer token; Prometheus text that follows real taps over REST and the live channel,
 * real sockets, store failures and, on PostgreSQL, announcements between instances; and never a
 * group name, key or id in it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ApiError } from '../../src/shared/api.js';
import { MESSAGES } from '../../src/shared/messages.js';
import type { ServerMessage } from '../../src/shared/protocol.js';
import { call, createGroup } from '../helpers/client.js';
import { connectLive, joinLive, type LiveClient } from '../helpers/live.js';
import { parseExposition, scrape, valueOf, type Sample } from '../helpers/metrics.js';
import { dropSchemas, postgresDatabase, postgresUrl, uniqueSchema } from '../helpers/postgres.js';
import { startServer, type TestServer } from '../helpers/server.js';

const TOKEN = 'test-metrics-token-0123456789abcdef';
const unauthorized = { code: 'invalid_metrics_token', message: MESSAGES.invalidMetricsToken };

const started: TestServer[] = [];
const clients: LiveClient[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  for (const server of started.splice(0)) await server.close();
});

async function start(options: Parameters<typeof startServer>[0] = {}): Promise<TestServer> {
  const server = await startServer(options);
  started.push(server);
  return server;
}

async function live(server: TestServer, name: string, key: string): Promise<LiveClient> {
  const client = await joinLive(server.wsUrl, name, key);
  clients.push(client);
  return client;
}

/** Scrapes until `read` of the samples is `expected` (sockets close asynchronously). */
async function scrapeUntil(
  server: TestServer,
  read: (samples: Sample[]) => number,
  expected: number,
): Promise<void> {
  let value = Number.NaN;
  for (let attempt = 0; attempt < 200; attempt += 1) {
    value = read(await scrape(server, TOKEN));
    if (value === expected) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  expect(value).toBe(expected);
}

const sockets = (samples: Sample[]) => valueOf(samples, 'tally_live_sockets');
const taps = (samples: Sample[], direction = 'increment') =>
  valueOf(samples, 'tally_taps_total', { direction });
const applied = (samples: Sample[], kind: string) =>
  valueOf(samples, 'tally_mutations_total', { kind, outcome: 'applied' });
const batches = (samples: Sample[]) => valueOf(samples, 'tally_commit_batch_size_count');
const batchedOperations = (samples: Sample[]) => valueOf(samples, 'tally_commit_batch_size_sum');

describe('GET /metrics without METRICS_TOKEN', () => {
  it('does not exist: 404 like any unknown path, whatever the Authorization', async () => {
    const server = await start();
    const attempts: Record<string, string>[] = [{}, { authorization: `Bearer ${TOKEN}` }];
    for (const headers of attempts) {
      const answer = await call<ApiError>(server.url, 'GET', '/metrics', { headers });
      expect(answer.status).toBe(404);
      expect(answer.body.error.code).toBe('not_found');
    }
  });
});

describe('GET /metrics with METRICS_TOKEN', () => {
  it('answers 401 in the error shape without the token, with a wrong one or another scheme', async () => {
    const server = await start({ metricsToken: TOKEN });
    const attempts: Record<string, string>[] = [
      {},
      { authorization: 'Bearer ' },
      { authorization: `Bearer ${TOKEN.slice(0, -1)}x` },
      { authorization: `Bearer ${TOKEN}x` },
      { authorization: `Bearer ${TOKEN.slice(0, 16)}` },
      { authorization: `Basic ${Buffer.from(`metrics:${TOKEN}`).toString('base64')}` },
      { authorization: TOKEN },
    ];
    for (const headers of attempts) {
      const answer = await call<ApiError>(server.url, 'GET', '/metrics', { headers });
      expect(answer.status).toBe(401);
      expect(answer.body).toEqual({ error: unauthorized });
      expect(answer.headers.get('www-authenticate')).toBe('Bearer realm="metrics"');
    }
    // The token is a secret like a key: never in a log line, even at the most verbose level.
    expect(server.logs()).not.toContain(TOKEN);
  });

  it('gives a browser the web app at /metrics (a group named "metrics" opens), scrapers and tokens the route', async () => {
    const webRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'tally-metrics-web-'));
    fs.writeFileSync(path.join(webRoot, 'index.html'), '<!doctype html><title>Tally</title>');
    try {
      const server = await start({ metricsToken: TOKEN, webRoot });
      // A browser's navigation: HTML asked for by name, no credentials.
      const page = await fetch(`${server.url}/metrics`, {
        headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' },
      });
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      expect(await page.text()).toContain('<title>Tally</title>');
      // Prometheus' own Accept, curl's */*, and any Authorization, right or wrong, get the route.
      const scraper = 'application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5';
      const attempts: Record<string, string>[] = [{ accept: scraper }, { accept: '*/*' }, {}];
      for (const headers of attempts) {
        const answer = await call<ApiError>(server.url, 'GET', '/metrics', { headers });
        expect(answer.status).toBe(401);
        expect(answer.body).toEqual({ error: unauthorized });
      }
      const wrong = await call<ApiError>(server.url, 'GET', '/metrics', {
        headers: { accept: 'text/html', authorization: `Bearer ${TOKEN}x` },
      });
      expect(wrong.status).toBe(401);
      const right = await fetch(`${server.url}/metrics`, {
        headers: { accept: 'text/html', authorization: `Bearer ${TOKEN}` },
      });
      expect(right.status).toBe(200);
      expect(right.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    } finally {
      fs.rmSync(webRoot, { recursive: true, force: true });
    }
  });

  it('answers the token with Prometheus text, never cached', async () => {
    const server = await start({ metricsToken: TOKEN, logLevel: 'trace' });
    const response = await fetch(`${server.url}/metrics`, {
      headers: { authorization: `bearer ${TOKEN}` },
    });
    const text = await response.text();
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-store');
    const names = new Set(parseExposition(text).map((sample) => sample.name));
    for (const name of [
      'tally_taps_total',
      'tally_mutations_total',
      'tally_commit_batch_size_count',
      'tally_commit_duration_seconds_bucket',
      'tally_store_errors_total',
      'tally_live_sockets',
      'tally_bus_lag_seconds_count',
      // prom-client's process metrics: event-loop delay, GC, heap.
      'nodejs_eventloop_lag_p99_seconds',
      'nodejs_heap_size_used_bytes',
      'process_cpu_seconds_total',
    ]) {
      expect(names, name).toContain(name);
    }
    expect(text).toMatch(/^# TYPE nodejs_gc_duration_seconds histogram$/m);
    expect(server.logs()).not.toContain(TOKEN);
  });

  it('counts taps over REST and the live channel, and their batches', async () => {
    const server = await start({ metricsToken: TOKEN });
    const member = await createGroup(server.url);
    const counter = await member.addCounter();
    const before = await scrape(server, TOKEN);

    // One at a time, each answered before the next is sent: one batch each.
    const restTaps = 4;
    for (let i = 0; i < restTaps; i++) {
      const tap = await call(
        server.url,
        'POST',
        `${member.base}/counters/${counter.id}/increment`,
        {
          key: member.key,
        },
      );
      expect(tap.status).toBe(200);
    }
    const decrement = await call(
      server.url,
      'POST',
      `${member.base}/counters/${counter.id}/decrement`,
      { key: member.key },
    );
    expect(decrement.status).toBe(200);
    const afterRest = await scrape(server, TOKEN);
    expect(taps(afterRest) - taps(before)).toBe(restTaps);
    expect(taps(afterRest, 'decrement') - taps(before, 'decrement')).toBe(1);
    expect(applied(afterRest, 'adjustCounter') - applied(before, 'adjustCounter')).toBe(
      restTaps + 1,
    );
    expect(batches(afterRest) - batches(before)).toBe(restTaps + 1);
    expect(batchedOperations(afterRest) - batchedOperations(before)).toBe(restTaps + 1);

    // Live taps sent at once: the batcher may commit them together; `times` counts as taps.
    const tapper = await live(server, member.group.name, member.key);
    const times = [1, 3, 5];
    times.forEach((count, index) => {
      tapper.send({
        type: 'mutate',
        opId: `metrics-tap-${index}`,
        mutation: {
          kind: 'adjustCounter',
          counterId: counter.id,
          direction: 'increment',
          times: count,
        },
      });
    });
    await tapper.waitUntil(
      () => tapper.messages.filter((message: ServerMessage) => message.type === 'ack').length === 3,
    );
    // A retry of an operation id is answered, not applied again: no new tap.
    tapper.send({
      type: 'mutate',
      opId: 'metrics-tap-0',
      mutation: { kind: 'adjustCounter', counterId: counter.id, direction: 'increment', times: 1 },
    });
    await tapper.waitUntil(
      () => tapper.messages.filter((message: ServerMessage) => message.type === 'ack').length === 4,
    );
    const afterLive = await scrape(server, TOKEN);
    expect(taps(afterLive) - taps(afterRest)).toBe(1 + 3 + 5);
    expect(applied(afterLive, 'adjustCounter') - applied(afterRest, 'adjustCounter')).toBe(3);
    expect(
      valueOf(afterLive, 'tally_mutations_total', { kind: 'adjustCounter', outcome: 'replayed' }),
    ).toBe(1);
    expect(batchedOperations(afterLive) - batchedOperations(afterRest)).toBe(4);
    const liveBatches = batches(afterLive) - batches(afterRest);
    expect(liveBatches).toBeGreaterThanOrEqual(2);
    expect(liveBatches).toBeLessThanOrEqual(4);
    const committed = valueOf(afterLive, 'tally_commit_duration_seconds_count', {
      store: 'sqlite',
    });
    expect(committed).toBe(batches(afterLive));
  });

  it('counts open live sockets as clients connect and leave', async () => {
    const server = await start({ metricsToken: TOKEN });
    const member = await createGroup(server.url);
    expect(sockets(await scrape(server, TOKEN))).toBe(0);

    const first = await live(server, member.group.name, member.key);
    // Not signed in yet: an open socket all the same.
    const second = await connectLive(server.wsUrl, member.group.name);
    clients.push(second);
    await scrapeUntil(server, sockets, 2);

    first.close();
    await first.closed;
    await scrapeUntil(server, sockets, 1);
    second.close();
    await second.closed;
    await scrapeUntil(server, sockets, 0);
  });

  it('counts commits the store refuses, by store and code', async () => {
    const server = await start({ metricsToken: TOKEN });
    const member = await createGroup(server.url);
    const counter = await member.addCounter();
    fs.rmSync(server.databaseFile);

    for (let i = 0; i < 3; i++) {
      const tap = await call<ApiError>(
        server.url,
        'POST',
        `${member.base}/counters/${counter.id}/increment`,
        { key: member.key },
      );
      expect([tap.status, tap.body.error.code]).toEqual([503, 'storage_unavailable']);
    }
    const samples = await scrape(server, TOKEN);
    expect(
      valueOf(samples, 'tally_store_errors_total', {
        store: 'sqlite',
        code: 'storage_unavailable',
      }),
    ).toBe(3);
    expect(
      valueOf(samples, 'tally_mutations_total', {
        kind: 'adjustCounter',
        outcome: 'storage_unavailable',
      }),
    ).toBe(3);
    expect(taps(samples)).toBe(0);
  });

  it('puts no group name, key, counter id or member name anywhere in its output', async () => {
    const server = await start({ metricsToken: TOKEN });
    const member = await createGroup(server.url);
    const counter = await member.addCounter({ name: 'Secret counter name' });
    await call(server.url, 'POST', `${member.base}/counters/${counter.id}/increment`, {
      key: member.key,
      headers: { 'tally-member': 'Ada-the-member' },
    });
    await call(server.url, 'POST', `${member.base}/counters/not-a-counter/increment`, {
      key: member.key,
    });
    const tapper = await live(server, member.group.name, member.key);
    tapper.send({
      type: 'mutate',
      opId: 'metrics-private-op',
      mutation: { kind: 'updateCounter', counterId: counter.id, patch: { name: 'Renamed' } },
    });
    await tapper.waitUntil(() => tapper.messages.some((message) => message.type === 'ack'));

    const response = await fetch(`${server.url}/metrics`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    const text = await response.text();
    const secrets = [
      member.group.name,
      member.group.id,
      member.key,
      counter.id,
      'Secret counter name',
      'Renamed',
      'Ada-the-member',
      'not-a-counter',
      'metrics-private-op',
      TOKEN,
    ];
    for (const secret of secrets) expect(text).not.toContain(secret);
    // Every label value is one of a few fixed words: kinds, directions, codes, store kinds.
    for (const sample of parseExposition(text)) {
      for (const value of Object.values(sample.labels)) {
        for (const secret of secrets) expect(value).not.toContain(secret);
      }
    }
  });
});

describe.skipIf(postgresUrl === undefined)('two instances on PostgreSQL', () => {
  const schema = uniqueSchema();
  let a: TestServer;
  let b: TestServer;
  beforeAll(async () => {
    [a, b] = await Promise.all([
      startServer({ database: postgresDatabase(schema), metricsToken: TOKEN }),
      startServer({ database: postgresDatabase(schema), metricsToken: TOKEN }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([a.close(), b.close()]);
    await dropSchemas([schema]);
  });

  it("measures on instance B the lag of each of A's announcements, and none of its own", async () => {
    const member = await createGroup(a.url);
    const watcher = await joinLive(b.wsUrl, member.group.name, member.key);
    const lagOnA = valueOf(await scrape(a, TOKEN), 'tally_bus_lag_seconds_count');
    const lagOnB = valueOf(await scrape(b, TOKEN), 'tally_bus_lag_seconds_count');
    const batchesOnA = batches(await scrape(a, TOKEN));

    const counter = await member.addCounter();
    const restTaps = 3;
    for (let i = 0; i < restTaps; i++) {
      await call(a.url, 'POST', `${member.base}/counters/${counter.id}/increment`, {
        key: member.key,
      });
    }
    // Announcements arrive in commit order: the last value seen means every one has arrived.
    await watcher.waitUntil(() => watcher.counters.get(counter.id)?.value === restTaps, 10_000);
    watcher.close();

    const onA = await scrape(a, TOKEN);
    const onB = await scrape(b, TOKEN);
    // Each of A's batches here changed the group and was announced in one payload.
    const announced = batches(onA) - batchesOnA;
    expect(announced).toBe(1 + restTaps);
    expect(valueOf(onB, 'tally_bus_lag_seconds_count') - lagOnB).toBe(announced);
    expect(valueOf(onA, 'tally_bus_lag_seconds_count') - lagOnA).toBe(0);
    expect(valueOf(onA, 'tally_commit_batch_size_count', { store: 'postgres' })).toBe(batches(onA));
  });
});
