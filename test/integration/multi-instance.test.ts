/**
 * Several Tally instances on one PostgreSQL database: live changes cross instances through
 * LISTEN/NOTIFY, concurrent taps through both add up, and a dropped LISTEN connection heals.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PROTOCOL_VERSION } from '../../src/shared/protocol.js';
import type { Counter } from '../../src/shared/api.js';
import { call, createGroup } from '../helpers/client.js';
import { allChanges, joinLive, type LiveClient } from '../helpers/live.js';
import {
  adminQuery,
  dropSchemas,
  postgresDatabase,
  postgresUrl,
  uniqueSchema,
} from '../helpers/postgres.js';
import { startServer, type TestServer } from '../helpers/server.js';

const run = promisify(execFile);
const usedSchemas = new Set<string>();

describe.skipIf(postgresUrl === undefined)('two instances on one PostgreSQL', () => {
  let schema: string;
  let a: TestServer;
  let b: TestServer;
  const clients: LiveClient[] = [];

  beforeEach(async () => {
    schema = uniqueSchema();
    usedSchemas.add(schema);
    // Both start at once: the migration lock makes that safe.
    [a, b] = await Promise.all([
      startServer({ database: postgresDatabase(schema) }),
      startServer({ database: postgresDatabase(schema) }),
    ]);
  });
  afterEach(async () => {
    for (const client of clients.splice(0)) client.close();
    await Promise.all([a.close(), b.close()]);
  });
  afterAll(async () => {
    await dropSchemas(usedSchemas);
  });

  const live = async (server: TestServer, name: string, key: string) => {
    const client = await joinLive(server.wsUrl, name, key);
    clients.push(client);
    return client;
  };

  // How fast is the benchmark's business (bench/, docs/benchmarks.md): here only that it arrives.
  it("shows a client on instance A a change made through instance B's API, without a reload", async () => {
    const member = await createGroup(b.url);
    const watcher = await live(a, member.group.name, member.key);
    const counter = await member.addCounter({ name: 'From B' });
    await watcher.waitUntil(() => watcher.counters.has(counter.id), 10_000);
    expect(watcher.counters.get(counter.id)?.name).toBe('From B');
  });

  it('leaves a counter at exactly 1,000 when 4 clients on both instances send 250 increments each at once', async () => {
    const member = await createGroup(a.url);
    const counter = await member.addCounter();
    const members = await Promise.all(
      [a, b, a, b].map((server) => live(server, member.group.name, member.key)),
    );
    members.forEach((client, c) => {
      for (let i = 0; i < 250; i++) {
        client.send({
          type: 'mutate',
          opId: `m${c}-${i}`,
          mutation: { kind: 'adjustCounter', counterId: counter.id, direction: 'increment' },
        });
      }
    });
    await Promise.all(
      members.map((client) =>
        client.waitUntil(() => client.counters.get(counter.id)?.value === 1_000, 15_000),
      ),
    );
    const stored = await call<Counter[]>(b.url, 'GET', `${member.base}/counters`, {
      key: member.key,
    });
    expect(stored.body[0]?.value).toBe(1_000);
    // Every client saw every change number once, in order.
    for (const client of members) {
      const seqs = allChanges(client).map((change) => change.seq);
      expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
      expect(new Set(seqs).size).toBe(seqs.length);
    }
  });

  it('converges after the LISTEN connection is killed while clients are connected', async () => {
    const member = await createGroup(a.url);
    const counter = await member.addCounter();
    const onA = await live(a, member.group.name, member.key);
    const onB = await live(b, member.group.name, member.key);
    const killed = await adminQuery(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1`,
      [`tally-listen:${schema}`],
    );
    expect(killed.rowCount).toBe(2);
    // Changes made while the listeners are down are not announced to the other instance…
    for (let i = 0; i < 5; i++) {
      await call(a.url, 'POST', `${member.base}/counters/${counter.id}/increment`, {
        key: member.key,
      });
      await call(b.url, 'POST', `${member.base}/counters/${counter.id}/increment`, {
        key: member.key,
      });
    }
    const renamed = await call(b.url, 'PATCH', `${member.base}/counters/${counter.id}`, {
      key: member.key,
      body: { name: 'Renamed while deaf' },
    });
    expect(renamed.status).toBe(200);
    // …yet both clients end on the right values: the instances resync them after reconnecting.
    for (const client of [onA, onB]) {
      await client.waitUntil(() => {
        const seen = client.counters.get(counter.id);
        return seen?.value === 10 && seen.name === 'Renamed while deaf';
      }, 10_000);
    }
    // And the feed works again afterwards.
    await call(a.url, 'POST', `${member.base}/counters/${counter.id}/increment`, {
      key: member.key,
    });
    await onB.waitUntil(() => onB.counters.get(counter.id)?.value === 11, 5_000);
  });

  it('carries a change too large for one notification to the other instance', async () => {
    const member = await createGroup(a.url);
    const counter = await member.addCounter();
    const watcher = await live(b, member.group.name, member.key);
    // 1,000 four-byte characters in each text: over 8,000 bytes in one change.
    const long = '😀'.repeat(1_000);
    await call(a.url, 'PATCH', `${member.base}/counters/${counter.id}`, {
      key: member.key,
      body: { name: long, description: long },
    });
    await watcher.waitUntil(() => watcher.counters.get(counter.id)?.description === long, 5_000);
    expect(allChanges(watcher).some((change) => change.type === 'counter.updated')).toBe(true);
  });

  it('authenticates live clients against the shared database on either instance', async () => {
    const member = await createGroup(a.url);
    const client = await live(b, member.group.name, member.key);
    client.send({ type: 'ping', t: 1 });
    await client.waitUntil(() => client.messages.some((m) => m.type === 'pong'));
    expect(PROTOCOL_VERSION).toBe(1);
  });
});

describe.skipIf(postgresUrl === undefined)('starting on PostgreSQL', () => {
  const main = path.resolve('src/server/main.ts');
  const start = (databaseUrl: string) =>
    run(process.execPath, ['--import', 'tsx', main], {
      env: { ...process.env, DATABASE_URL: databaseUrl, PORT: '0', HOST: '127.0.0.1' },
      timeout: 15_000,
    }).then(
      () => ({ code: 0, stderr: '' }),
      (error: unknown) => {
        const failure = error as { code: number; stderr: string };
        return { code: failure.code, stderr: failure.stderr };
      },
    );

  it('fails with one clear line when PostgreSQL is unreachable, without echoing the password', async () => {
    const { code, stderr } = await start('postgres://tally:s3cret@127.0.0.1:1/tally');
    expect(code).toBe(1);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toMatch(/^tally: could not start: cannot use PostgreSQL: .*ECONNREFUSED/);
    expect(stderr).not.toContain('s3cret');
  });

  it('fails with one clear line when the database does not exist', async () => {
    const url = new URL(postgresUrl ?? '');
    url.pathname = '/no_such_database_for_tally';
    const { code, stderr } = await start(url.toString());
    expect(code).toBe(1);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toContain('does not exist');
  });
});
