/**
 * The log's noted entries over the real server, on SQLite and PostgreSQL: `noted=true` lists only
 * the changes with a note or counted for an earlier time (of one counter with `counter`), and
 * `member` only one member's of them, looking through a bounded number per request. Each group is
 * written by the store before the server starts (1,100 noted changes in one commit), then read
 * over HTTP as any client would.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { encodeAnnouncements } from '../../src/server/bus/notify.js';
import { hashKey } from '../../src/server/core/access.js';
import type { DatabaseConfig } from '../../src/server/config.js';
import { PostgresStore } from '../../src/server/store/postgres/store.js';
import { parsePostgresUrl } from '../../src/server/store/postgres/connection.js';
import { SqliteStore } from '../../src/server/store/sqlite/store.js';
import type { Operation, Store } from '../../src/server/store/types.js';
import type { ActivityPage } from '../../src/shared/activity.js';
import type { ApiError } from '../../src/shared/api.js';
import { ACTIVITY_MEMBER_SCAN_MAX } from '../../src/shared/limits.js';
import { call, newKey, uniqueGroupName } from '../helpers/client.js';
import { dropSchemas, postgresDatabase, postgresUrl, uniqueSchema } from '../helpers/postgres.js';
import { startServer, type TestServer } from '../helpers/server.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tally-noted-'));
const schemas = new Set<string>();
afterAll(async () => {
  fs.rmSync(dir, { recursive: true, force: true });
  if (postgresUrl !== undefined) await dropSchemas(schemas);
});

interface Backend {
  database: DatabaseConfig;
  open: (clock: () => number) => Promise<Store>;
}

const backends: [string, () => Backend][] = [
  [
    'SQLite',
    () => {
      const file = path.join(dir, `${uniqueGroupName('db')}.sqlite`);
      return {
        database: { kind: 'sqlite', file },
        open: async (clock) => {
          const store = new SqliteStore(file, { clock });
          await store.migrate();
          return store;
        },
      };
    },
  ],
];
if (postgresUrl !== undefined) {
  backends.push([
    'PostgreSQL',
    () => {
      const schema = uniqueSchema();
      schemas.add(schema);
      const database = postgresDatabase(schema);
      return {
        database,
        open: async (clock) => {
          if (database.kind !== 'postgres') throw new Error('not postgres');
          const store = new PostgresStore({
            connection: parsePostgresUrl(database.url),
            poolSize: 2,
            clock,
            encodeAnnouncements: (groupId, changes) =>
              encodeAnnouncements({ instanceId: 'noted-test', groupId }, changes),
          });
          await store.migrate();
          return store;
        },
      };
    },
  ]);
}

/** Bob's noted taps after Ada's one: more than one member request looks through. */
const BOBS_NOTES = ACTIVITY_MEMBER_SCAN_MAX + 100;

describe.each(backends)('noted entries of the activity log on %s', (_label, backendOf) => {
  const servers: TestServer[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.close()));
  });

  /** A group with Coffees and Teas: plain taps, noted ones and back-dated ones, by three members. */
  async function prepare() {
    const backend = backendOf();
    // The counters are made an hour ago: a change may be counted for a time since then.
    const clock = { now: Date.now() - 3_600_000 };
    const store = await backend.open(() => clock.now);
    const name = uniqueGroupName('noted');
    const key = newKey();
    const { group } = await store.createGroup(name, hashKey(key));
    const ids: string[] = [];
    for (const counterName of ['Coffees', 'Teas']) {
      const [created] = await store.commit([
        { groupId: group.id, mutation: { kind: 'createCounter', fields: { name: counterName } } },
      ]);
      if (!created?.ok || created.result.kind !== 'counter') throw new Error('no counter');
      ids.push(created.result.counter.id);
    }
    const [coffees = '', teas = ''] = ids;
    clock.now = Date.now();
    // The store takes a parsed time: epoch ms.
    const earlier = Date.now() - 60_000;
    const tap = (
      actor: string,
      counterId: string,
      extra: { note?: string; at?: number } = {},
    ): Operation => ({
      groupId: group.id,
      actor,
      mutation: { kind: 'adjustCounter', counterId, direction: 'increment', times: 1, ...extra },
    });
    await store.commit([
      tap('Ada', coffees),
      tap('Ada', coffees, { note: 'table 4' }),
      tap('Cara', teas, { at: earlier }),
      tap('Ada', teas, { note: 'for the staff' }),
      tap('Cara', coffees),
    ]);
    await store.commit(
      Array.from({ length: BOBS_NOTES }, (_, index) => tap('Bob', coffees, { note: `n${index}` })),
    );
    await store.close();
    const server = await startServer({ database: backend.database });
    servers.push(server);
    const url = server.url;
    const page = (query: string) =>
      call<ActivityPage | ApiError>(url, 'GET', `/api/groups/${name}/activity?${query}`, { key });
    return { page, coffees, teas };
  }

  it('lists only the changes with a note or an earlier time, of one counter with counter, paged with before', async () => {
    const { page, coffees, teas } = await prepare();
    const newest = await page('noted=true&limit=3');
    expect(newest.status).toBe(200);
    const { entries, next } = newest.body as ActivityPage;
    expect(entries.map((entry) => entry.kind === 'counter.adjusted' && entry.note)).toEqual([
      `n${BOBS_NOTES - 1}`,
      `n${BOBS_NOTES - 2}`,
      `n${BOBS_NOTES - 3}`,
    ]);
    expect(next).toBe(entries[2]?.id);

    const ofTeas = (await page(`noted=true&counter=${teas}`)).body as ActivityPage;
    expect(
      ofTeas.entries.map((entry) => [
        entry.actor,
        entry.note ?? null,
        entry.kind === 'counter.adjusted' ? entry.countedAt !== undefined : null,
      ]),
    ).toEqual([
      ['Ada', 'for the staff', false],
      ['Cara', null, true],
    ]);
    expect(ofTeas.next).toBeNull();

    // Paged to its beginning: Bob's notes on Coffees, then Ada's one, and no plain tap.
    const all: ActivityPage['entries'] = [];
    let before = '';
    for (;;) {
      const next = (await page(`noted=true&counter=${coffees}&limit=200${before}`))
        .body as ActivityPage;
      all.push(...next.entries);
      if (next.next === null) break;
      before = `&before=${String(next.next)}`;
    }
    expect(all).toHaveLength(BOBS_NOTES + 1);
    expect(all.at(-1)).toMatchObject({ actor: 'Ada', note: 'table 4' });
    expect(all.every((entry) => entry.note !== undefined)).toBe(true);
  });

  it('lists one member’s noted changes with member, looking through a bounded number per request and going on from next', async () => {
    const { page, teas } = await prepare();
    // Ada's two notes lie behind Bob's 1,100: the first request looks through its bound only.
    const first = (await page('noted=true&member=Ada&limit=10')).body as ActivityPage;
    expect(first.entries).toEqual([]);
    expect(first.next).not.toBeNull();
    const second = (await page(`noted=true&member=Ada&limit=10&before=${String(first.next)}`))
      .body as ActivityPage;
    expect(second.entries.map((entry) => entry.note)).toEqual(['for the staff', 'table 4']);
    expect(second.next).toBeNull();

    const onTeas = (await page(`noted=true&member=%20Ada%20&counter=${teas}`)).body as ActivityPage;
    expect(onTeas.entries.map((entry) => entry.note)).toEqual(['for the staff']);
    const cara = (await page(`noted=true&member=Cara&counter=${teas}&limit=1`))
      .body as ActivityPage;
    expect(cara.entries.map((entry) => entry.actor)).toEqual(['Cara']);
    expect(cara.next).toBe(cara.entries[0]?.id);
  });

  it('refuses member without noted=true or with after, and a noted that is not true or false', async () => {
    const { page } = await prepare();
    for (const query of ['member=Ada', 'noted=true&member=Ada&after=1', 'noted=yes']) {
      const answer = await page(query);
      expect(answer.status, query).toBe(400);
      expect((answer.body as ApiError).error.code).toBe('validation_failed');
    }
    const tooLong = await page(`noted=true&member=${'a'.repeat(101)}`);
    expect(tooLong.status).toBe(400);
  });
});
