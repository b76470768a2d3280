/**
 * A large group's snapshot is read and serialised once per change number (core/snapshots.ts),
 * so a loop of joins on a group of many counters costs one read, not one per join. What must
 * never happen is a stale answer: every join and every live `ready` after a change carries it.
 * Real server, both stores.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Counter, GroupSnapshot } from '../../src/shared/api.js';
import {
  SnapshotCache,
  countersBytes,
  keptBytes,
  viewWith,
} from '../../src/server/core/snapshots.js';
import { call, createGroup } from '../helpers/client.js';
import { isReady, joinLive } from '../helpers/live.js';
import { dropSchemas, postgresDatabase, postgresUrl, uniqueSchema } from '../helpers/postgres.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { GROUP_CALENDAR_DEFAULTS, noPurpose } from '../helpers/fixtures.js';

/** A large group: its snapshot is several tens of KB. */
const LARGE = 60;

const stores = [
  { name: 'SQLite', database: () => undefined, skip: false },
  { name: 'PostgreSQL', database: () => postgresDatabase(schema), skip: postgresUrl === undefined },
];
const schema = uniqueSchema();

describe.each(stores)('snapshots of a large group on $name', ({ database, skip }) => {
  let server: TestServer;
  beforeAll(async () => {
    if (skip) return;
    const db = database();
    server = await startServer(db === undefined ? {} : { database: db });
  });
  afterAll(async () => {
    if (skip) return;
    await server.close();
    if (postgresUrl !== undefined) await dropSchemas([schema]);
  });

  it.skipIf(skip)('answers every join and live ready with the latest change', async () => {
    const member = await createGroup(server.url);
    const counters = [];
    // Names of several UTF-8 bytes per character: the answers are measured in bytes, not characters.
    for (let i = 0; i < LARGE; i++)
      counters.push(await member.addCounter({ name: `c${i} Café ☕ 𝄞` }));
    const join = () =>
      call<GroupSnapshot>(server.url, 'POST', `${member.base}/join`, { body: { key: member.key } });

    const first = await join();
    const again = await join();
    expect(again.body).toEqual(first.body);
    expect(first.body.counters).toHaveLength(LARGE);
    expect(first.body.access).toBe('full');
    expect(first.body.counters[3]?.name).toBe('c3 Café ☕ 𝄞');

    const target = counters[7];
    if (!target) throw new Error('no counter');
    const tap = await call(server.url, 'POST', `${member.base}/counters/${target.id}/increment`, {
      key: member.key,
    });
    expect(tap.status).toBe(200);
    const after = await join();
    expect(after.body.seq).toBe(first.body.seq + 1);
    expect(after.body.counters.find((c) => c.id === target.id)?.value).toBe(1);

    const live = await joinLive(server.wsUrl, member.group.name, member.key);
    const ready = await live.waitFor(isReady);
    expect(ready.seq).toBe(after.body.seq);
    expect(ready.access).toBe('full');
    expect(ready.counters.find((c) => c.id === target.id)?.value).toBe(1);
    live.close();

    const renamed = await call(server.url, 'PATCH', `${member.base}/counters/${target.id}`, {
      key: member.key,
      body: { name: 'Renamed' },
    });
    expect(renamed.status).toBe(200);
    expect((await join()).body.counters.find((c) => c.id === target.id)?.name).toBe('Renamed');
  });

  it.skipIf(skip)(
    'answers GET …/counters of a small group with every change, from the kept snapshot',
    async () => {
      const member = await createGroup(server.url);
      const first = await member.addCounter({ name: 'Coffees' });
      await member.addCounter({ name: 'Teas' });
      const list = async () => {
        const answer = await call<Counter[]>(server.url, 'GET', `${member.base}/counters`, {
          key: member.key,
        });
        expect(answer.status).toBe(200);
        expect(answer.headers.get('content-type')).toBe('application/json; charset=utf-8');
        return answer.body;
      };
      const before = await list();
      expect(await list()).toEqual(before);
      expect(before.map((c) => c.name)).toEqual(['Coffees', 'Teas']);

      for (let tap = 1; tap <= 3; tap++) {
        const answer = await call(
          server.url,
          'POST',
          `${member.base}/counters/${first.id}/increment`,
          {
            key: member.key,
          },
        );
        expect(answer.status).toBe(200);
        expect((await list()).find((c) => c.id === first.id)?.value).toBe(tap);
      }
      await member.addCounter({ name: 'Juices' });
      expect((await list()).map((c) => c.name)).toEqual(['Coffees', 'Teas', 'Juices']);
    },
  );
});

describe('the snapshot cache', () => {
  const view = (seq: number, counters: number) => ({
    group: {
      id: 'g',
      name: 'g',
      displayName: 'g',
      profileImageUrl: null,
      ...GROUP_CALENDAR_DEFAULTS,
    },
    counters: Array.from({ length: counters }, (_, i) => ({
      id: `c${i}`,
      name: 'x'.repeat(100),
      description: '',
      value: i,
      incrementStep: 1,
      decrementStep: 1,
      thumbnailUrl: null,
      ...noPurpose(i),
      createdAt: '2026-11-23T00:00:00.000Z',
      version: seq,
    })),
    seq,
  });

  it('keeps a snapshot only while its change number is current', () => {
    const cache = new SnapshotCache();
    const at5 = view(5, 100);
    expect(cache.holds('g')).toBe(false);
    cache.remember('g', at5);
    expect(cache.holds('g')).toBe(true);
    expect(cache.get('g', 5)).toBe(at5);
    expect(cache.get('g', 6)).toBeUndefined();
  });

  it('keeps small groups too, and stays within its size bound', () => {
    const small = new SnapshotCache();
    const fewCounters = view(1, 5);
    small.remember('small', fewCounters);
    expect(small.get('small', 1)).toBe(fewCounters);

    const cache = new SnapshotCache(3 * keptBytes(view(1, 100)));
    cache.remember('huge', view(1, 400));
    expect(cache.size).toBe(0);
    for (const id of ['a', 'b', 'c', 'd']) cache.remember(id, view(1, 100));
    expect(cache.size).toBe(3);
    expect(cache.get('a', 1)).toBeUndefined();
    expect(cache.get('d', 1)).toBeDefined();
  });

  it('serialises a view once and adds fields without serialising it again', () => {
    const v = view(3, 2);
    const ready = viewWith(v, { type: 'ready', access: 'view' });
    expect(JSON.parse(Buffer.concat([ready.head, ready.tail]).toString())).toEqual({
      type: 'ready',
      access: 'view',
      ...v,
    });
    const join = viewWith(v, { access: 'full' });
    // The same bytes, not a copy: every answer carrying this view shares them.
    expect(join.tail).toBe(ready.tail);
    expect(`{${join.tail.toString()}`).toBe(JSON.stringify(v));
    expect(JSON.parse(countersBytes(v).toString())).toEqual(v.counters);
    expect(countersBytes(v).buffer).toBe(ready.tail.buffer);
  });
});
