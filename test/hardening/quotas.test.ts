/**
 * Quotas (docs/api.md#limits), on both stores:
 *   - counters per group (MAX_COUNTERS_PER_GROUP): a create over it is 409 too_many_counters and
 *     stores nothing, also for concurrent creates, creates in one live batch, and an undo that
 *     would bring a deleted counter back; data already over a lowered quota keeps working;
 *   - activity entries kept per group (ACTIVITY_MAX_ENTRIES_PER_GROUP): the oldest beyond the
 *     cap are deleted in the background, the count never more than cap + slack;
 *   - groups created per client address per hour (MAX_GROUPS_PER_ADDRESS_PER_HOUR): 429
 *     too_many_groups with Retry-After; joining an existing group is not counted, and another
 *     address still creates.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { ActivityPage } from '../../src/shared/activity.js';
import type { ApiError, Counter, GroupSnapshot } from '../../src/shared/api.js';
import { MESSAGES } from '../../src/shared/messages.js';
import type { DatabaseConfig } from '../../src/server/config.js';
import { GroupCreationQuota } from '../../src/server/security/group-quota.js';
import { RateLimitedError } from '../../src/server/security/key-guard.js';
import { activityTrimSlack } from '../../src/server/store/quotas.js';
import { call, createGroup, newKey, uniqueGroupName } from '../helpers/client.js';
import { joinLive, type LiveClient } from '../helpers/live.js';
import { dropSchemas, postgresDatabase, postgresUrl, uniqueSchema } from '../helpers/postgres.js';
import { startServer, type TestServerOptions } from '../helpers/server.js';
import { callFrom } from './support/from.js';

interface StoreUnderTest {
  name: string;
  skip: boolean;
  /** A fresh database, or null for a throwaway SQLite file of the server's own. */
  database: () => DatabaseConfig | null;
}

const schemas: string[] = [];
const STORES: StoreUnderTest[] = [
  { name: 'SQLite', skip: false, database: () => null },
  {
    name: 'PostgreSQL',
    skip: postgresUrl === undefined,
    database: () => {
      const schema = uniqueSchema();
      schemas.push(schema);
      return postgresDatabase(schema);
    },
  },
];

afterAll(async () => {
  if (postgresUrl !== undefined) await dropSchemas(schemas);
});

function start(store: StoreUnderTest, limits: TestServerOptions['limits']) {
  const database = store.database();
  return startServer({ limits, ...(database === null ? {} : { database }) });
}

/** Sends `mutate` messages in one go, so they are committed in one batch, and awaits every answer. */
async function mutateAll(
  live: LiveClient,
  mutations: { opId: string; mutation: Record<string, unknown> }[],
): Promise<Map<string, string>> {
  for (const { opId, mutation } of mutations) {
    live.send({ type: 'mutate', opId, mutation } as Parameters<LiveClient['send']>[0]);
  }
  const answers = new Map<string, string>();
  await live.waitUntil(() => {
    for (const message of live.messages) {
      if (message.type === 'ack') answers.set(message.opId, 'ack');
      if (message.type === 'error' && message.opId !== undefined) {
        answers.set(message.opId, message.error.code);
      }
    }
    return answers.size === mutations.length;
  }, 10_000);
  return answers;
}

for (const store of STORES) {
  describe.skipIf(store.skip)(`counters per group on ${store.name}`, () => {
    it('refuses a create over the quota with 409 too_many_counters and stores nothing', async () => {
      const server = await start(store, { countersPerGroup: 3 });
      try {
        const member = await createGroup(server.url);
        for (let i = 0; i < 3; i++) await member.addCounter({ name: `c${i}` });
        const refused = await call<ApiError>(server.url, 'POST', `${member.base}/counters`, {
          key: member.key,
          body: { name: 'one too many' },
        });
        expect(refused.status).toBe(409);
        expect(refused.body.error).toEqual({
          code: 'too_many_counters',
          message: MESSAGES.tooManyCounters(3),
        });
        expect((await member.counters()).map((counter) => counter.name)).toEqual([
          'c0',
          'c1',
          'c2',
        ]);
        // Deleting one makes room again.
        const [first] = await member.counters();
        await call(server.url, 'DELETE', `${member.base}/counters/${first?.id ?? ''}`, {
          key: member.key,
        });
        expect((await member.addCounter({ name: 'room again' })).name).toBe('room again');
      } finally {
        await server.close();
      }
    });

    it('never exceeds the quota with concurrent creates, nor with creates in one live batch', async () => {
      const server = await start(store, { countersPerGroup: 5 });
      try {
        const member = await createGroup(server.url);
        const answers = await Promise.all(
          Array.from({ length: 12 }, (_, i) =>
            call(server.url, 'POST', `${member.base}/counters`, {
              key: member.key,
              body: { name: `rest ${i}` },
            }),
          ),
        );
        expect(answers.filter((answer) => answer.status === 201)).toHaveLength(5);
        expect(answers.filter((answer) => answer.status === 409)).toHaveLength(7);
        expect(await member.counters()).toHaveLength(5);

        const other = await createGroup(server.url);
        const live = await joinLive(server.wsUrl, other.group.name, other.key);
        try {
          const outcomes = await mutateAll(
            live,
            Array.from({ length: 9 }, (_, i) => ({
              opId: `create-${i}`,
              mutation: { kind: 'createCounter', fields: { name: `live ${i}` } },
            })),
          );
          const codes = [...outcomes.values()];
          expect(codes.filter((code) => code === 'ack')).toHaveLength(5);
          expect(codes.filter((code) => code === 'too_many_counters')).toHaveLength(4);
        } finally {
          live.close();
        }
        expect(await other.counters()).toHaveLength(5);
      } finally {
        await server.close();
      }
    });

    it('refuses an undo that would bring a deleted counter back into a full group', async () => {
      const server = await start(store, { countersPerGroup: 2 });
      try {
        const member = await createGroup(server.url);
        const doomed = await member.addCounter({ name: 'doomed' });
        await member.addCounter({ name: 'kept' });
        await call(server.url, 'DELETE', `${member.base}/counters/${doomed.id}`, {
          key: member.key,
        });
        const page = await call<ActivityPage>(server.url, 'GET', `${member.base}/activity`, {
          key: member.key,
        });
        const deletion = page.body.entries.find((entry) => entry.kind === 'counter.deleted');
        await member.addCounter({ name: 'newcomer' });
        const undo = await call<ApiError>(
          server.url,
          'POST',
          `${member.base}/activity/${deletion?.id ?? 0}/undo`,
          { key: member.key },
        );
        expect(undo.status).toBe(409);
        expect(undo.body.error.code).toBe('too_many_counters');
        expect((await member.counters()).map((counter) => counter.name)).toEqual([
          'kept',
          'newcomer',
        ]);
      } finally {
        await server.close();
      }
    });

    it('keeps a group already over a lowered quota working and readable', async () => {
      const database = store.database();
      const withDatabase = database === null ? {} : { database };
      const before = await startServer({ limits: { countersPerGroup: 10 }, ...withDatabase });
      const member = await createGroup(before.url);
      for (let i = 0; i < 6; i++) await member.addCounter({ name: `c${i}` });
      await before.close({ keepDatabase: true });
      const after = await startServer({
        limits: { countersPerGroup: 4 },
        database: database ?? { kind: 'sqlite', file: before.databaseFile },
      });
      try {
        const counters = await call<Counter[]>(after.url, 'GET', `${member.base}/counters`, {
          key: member.key,
        });
        expect(counters.body).toHaveLength(6);
        const [first, second] = counters.body;
        const tap = await call<Counter>(
          after.url,
          'POST',
          `${member.base}/counters/${first?.id ?? ''}/increment`,
          { key: member.key },
        );
        expect(tap.body.value).toBe(1);
        const edit = await call<Counter>(
          after.url,
          'PATCH',
          `${member.base}/counters/${first?.id ?? ''}`,
          { key: member.key, body: { name: 'renamed' } },
        );
        expect(edit.body.name).toBe('renamed');
        const removed = await call(
          after.url,
          'DELETE',
          `${member.base}/counters/${second?.id ?? ''}`,
          { key: member.key },
        );
        expect(removed.status).toBeLessThan(300);
        const join = await call<GroupSnapshot>(after.url, 'POST', `${member.base}/join`, {
          body: { key: member.key },
        });
        expect(join.body.counters).toHaveLength(5);
        const exported = await call(after.url, 'GET', `${member.base}/export?format=json`, {
          key: member.key,
        });
        expect(exported.status).toBe(200);
        const refused = await call(after.url, 'POST', `${member.base}/counters`, {
          key: member.key,
          body: { name: 'over' },
        });
        expect(refused.status).toBe(409);
      } finally {
        await after.close();
      }
    });
  });

  describe.skipIf(store.skip)(`activity entries kept per group on ${store.name}`, () => {
    it('deletes the oldest entries beyond the cap, keeping the newest, within cap + slack', async () => {
      const cap = 100;
      const server = await start(store, { activityEntriesPerGroup: cap });
      try {
        const member = await createGroup(server.url);
        const quiet = await createGroup(server.url);
        const quietCounter = await quiet.addCounter({ name: 'quiet' });
        const counter = await member.addCounter({ name: 'busy' });
        for (let i = 0; i < 3 * cap; i++) {
          const tap = await call(
            server.url,
            'POST',
            `${member.base}/counters/${counter.id}/increment`,
            { key: member.key, headers: { 'tally-member': `m${i % 7}` } },
          );
          expect(tap.status).toBe(200);
        }
        const { store: backend } = server.app.tally;
        const entriesOf = async (groupName: string) => {
          const group = await backend.findGroup(groupName);
          return backend.listActivity(group?.id ?? '', { limit: 10_000, order: 'newest' });
        };
        await expect
          .poll(async () => (await entriesOf(member.group.name)).length, { timeout: 10_000 })
          .toBeLessThanOrEqual(cap + activityTrimSlack(cap));
        const kept = await entriesOf(member.group.name);
        expect(kept.length).toBeGreaterThanOrEqual(cap);
        // The newest entry is the last tap: value 3 × cap.
        expect(kept[0]).toMatchObject({ kind: 'counter.adjusted', value: 3 * cap });
        // The counter itself and other groups are untouched.
        expect((await member.counters())[0]?.value).toBe(3 * cap);
        const quietEntries = await entriesOf(quiet.group.name);
        expect(quietEntries.map((entry) => entry.counterId)).toEqual([quietCounter.id]);
      } finally {
        await server.close();
      }
    });
  });

  describe.skipIf(store.skip)(`activity cap lowered on ${store.name}`, () => {
    it('trims a group that no longer writes in the hourly prune, after the cap was lowered', async () => {
      const database = store.database();
      const before = await startServer({
        limits: { activityEntriesPerGroup: 1_000 },
        ...(database === null ? {} : { database }),
      });
      const member = await createGroup(before.url);
      const counter = await member.addCounter({ name: 'idle later' });
      for (let i = 0; i < 150; i++) {
        await call(before.url, 'POST', `${member.base}/counters/${counter.id}/increment`, {
          key: member.key,
          headers: { 'tally-member': `m${i % 2}` },
        });
      }
      await before.close({ keepDatabase: true });
      const cap = 100;
      const after = await startServer({
        limits: { activityEntriesPerGroup: cap },
        database: database ?? { kind: 'sqlite', file: before.databaseFile },
      });
      try {
        const { store: backend } = after.app.tally;
        const group = await backend.findGroup(member.group.name);
        const entries = () =>
          backend.listActivity(group?.id ?? '', { limit: 10_000, order: 'newest' });
        expect(await entries()).toHaveLength(151);
        // What the server runs every hour (app.ts): age first, then every group's count.
        await backend.pruneActivity(365 * 24 * 60 * 60 * 1000);
        const kept = await entries();
        expect(kept).toHaveLength(cap);
        expect(kept[0]).toMatchObject({ kind: 'counter.adjusted', value: 150 });
        const counters = await call<Counter[]>(after.url, 'GET', `${member.base}/counters`, {
          key: member.key,
        });
        expect(counters.body[0]?.value).toBe(150);
      } finally {
        await after.close();
      }
    });
  });

  describe.skipIf(store.skip)(`groups created per address on ${store.name}`, () => {
    it('answers creations over the hourly quota 429 too_many_groups; joins and other addresses go on', async () => {
      const server = await start(store, { groupsPerAddressPerHour: 3 });
      try {
        const creator = '127.0.0.2';
        const names = Array.from({ length: 4 }, () => uniqueGroupName('quota'));
        const keys = names.map(() => newKey());
        for (let i = 0; i < 3; i++) {
          const created = await callFrom(
            creator,
            server.url,
            'POST',
            `/api/groups/${names[i]}/join`,
            {
              body: { key: keys[i] },
            },
          );
          expect(created.status).toBe(201);
        }
        const refused = await callFrom<ApiError>(
          creator,
          server.url,
          'POST',
          `/api/groups/${names[3]}/join`,
          { body: { key: keys[3] } },
        );
        expect(refused.status).toBe(429);
        const retryAfter = Number(refused.headers['retry-after']);
        // One creation comes back every 20 minutes (an hour / 3).
        expect(retryAfter).toBeGreaterThan(0);
        expect(retryAfter).toBeLessThanOrEqual(20 * 60);
        expect(refused.body.error).toEqual({
          code: 'too_many_groups',
          message: MESSAGES.tooManyGroups(retryAfter),
        });
        expect((await call(server.url, 'GET', `/api/groups/${names[3]}`)).status).toBe(404);
        // Joining an existing group is not a creation.
        for (let i = 0; i < 5; i++) {
          const joined = await callFrom(
            creator,
            server.url,
            'POST',
            `/api/groups/${names[0]}/join`,
            {
              body: { key: keys[0] },
            },
          );
          expect(joined.status).toBe(200);
        }
        // Another address still creates.
        const other = await callFrom(
          '127.0.0.3',
          server.url,
          'POST',
          `/api/groups/${names[3]}/join`,
          { body: { key: keys[3] } },
        );
        expect(other.status).toBe(201);
      } finally {
        await server.close();
      }
    });
  });
}

describe('the group creation quota (fake clock)', () => {
  it('allows the hourly number at once, then one more every hour / n; finding a group costs nothing', async () => {
    let now = 1_000_000;
    const quota = new GroupCreationQuota(3, () => now);
    const create = () => quota.create('a', () => Promise.resolve({ created: true }));
    const find = () => quota.create('a', () => Promise.resolve({ created: false }));
    const outcome = async (run: () => Promise<unknown>) => {
      try {
        await run();
        return 'ok';
      } catch (error) {
        if (error instanceof RateLimitedError) return `${error.code} ${error.retryAfterSeconds}`;
        throw error;
      }
    };
    for (let i = 0; i < 3; i++) expect(await outcome(create)).toBe('ok');
    expect(await outcome(create)).toBe('too_many_groups 1200');
    now += 10 * 60_000;
    expect(await outcome(create)).toBe('too_many_groups 600');
    now += 10 * 60_000;
    expect(await outcome(create)).toBe('ok');
    // A join that raced and found the group already there was not a creation: refunded.
    now += 20 * 60_000;
    for (let i = 0; i < 5; i++) expect(await outcome(find)).toBe('ok');
    expect(await outcome(create)).toBe('ok');
    // In-process callers (no address) are never limited.
    for (let i = 0; i < 10; i++) {
      await quota.create(undefined, () => Promise.resolve({ created: true }));
    }
  });
});
