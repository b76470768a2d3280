/**
 * Counters with a purpose (ADR 19) over the real server, on SQLite and PostgreSQL: 200 concurrent
 * REST taps stop exactly at a counter's maximum with a 409 for every refused one; reorders, section
 * maximums and goal crossings reach every member live (across two instances on PostgreSQL);
 * tallies, periods and exports answer; view-only links change none of it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiError, Counter, CounterOrder, Group, Tally } from '../../src/shared/api.js';
import type { CounterPeriods, GroupExport } from '../../src/shared/activity.js';
import type { Change } from '../../src/shared/protocol.js';
import { call, createGroup } from '../helpers/client.js';
import { allChanges, joinLive } from '../helpers/live.js';
import { postgresUrl, storeBackends, twoInstancesOnPostgres } from '../helpers/postgres.js';
import { startServer, type TestServer } from '../helpers/server.js';

describe.each(storeBackends())(
  'goals, limits, order, sections and tallies on %s',
  (_label, database) => {
    let server: TestServer;
    beforeAll(async () => {
      const config = database();
      server = await startServer(config ? { database: config } : {});
    });
    afterAll(async () => {
      await server.close();
    });

    it('stops 200 concurrent REST taps exactly at the maximum, answering 409 limit_reached to each refused one', async () => {
      const group = await createGroup(server.url);
      const counter = await group.addCounter({ name: 'Capacity', max: 120 });
      const answers = await Promise.all(
        Array.from({ length: 200 }, () =>
          call<Counter | ApiError>(
            server.url,
            'POST',
            `${group.base}/counters/${counter.id}/increment`,
            {
              key: group.key,
            },
          ),
        ),
      );
      const statuses = answers.map((answer) => answer.status);
      expect(statuses.filter((status) => status === 200)).toHaveLength(120);
      expect(statuses.filter((status) => status === 409)).toHaveLength(80);
      for (const answer of answers.filter((item) => item.status === 409)) {
        expect((answer.body as ApiError).error).toEqual({
          code: 'limit_reached',
          message: 'Limit reached: this counter cannot go above 120.',
        });
      }
      expect((await group.counters())[0]?.value).toBe(120);
    });

    it('refuses bad limits with 400; a counter made without them has no goal, limits, period or section', async () => {
      const group = await createGroup(server.url);
      const plain = await group.addCounter();
      expect(plain).toMatchObject({
        name: 'New Counter',
        value: 0,
        incrementStep: 1,
        decrementStep: 1,
        goal: null,
        min: null,
        max: null,
        reset: null,
        startValue: 0,
        section: null,
        periodStart: null,
        allTime: 0,
      });
      const refused = await call<ApiError>(server.url, 'POST', `${group.base}/counters`, {
        key: group.key,
        body: { min: 5, max: 1 },
      });
      expect(refused.status).toBe(400);
      expect(refused.body.error.message).toContain(
        'The minimum cannot be greater than the maximum.',
      );
      const reset = await call<ApiError>(
        server.url,
        'PATCH',
        `${group.base}/counters/${plain.id}`,
        {
          key: group.key,
          body: { reset: 'hourly' },
        },
      );
      expect(reset.status).toBe(400);
      const zone = await call<ApiError>(server.url, 'PATCH', group.base, {
        key: group.key,
        body: { timeZone: 'Mars/Olympus_Mons' },
      });
      expect(zone.status).toBe(400);
      expect(zone.body.error.message).toContain('Please choose a valid time zone.');
    });

    it('shares a reorder live and lists counters in it; anything but every counter once is 422', async () => {
      const group = await createGroup(server.url);
      const a = await group.addCounter({ name: 'A' });
      const b = await group.addCounter({ name: 'B' });
      const watcher = await joinLive(server.wsUrl, group.group.name, group.key);
      const order = await call<CounterOrder>(server.url, 'PUT', `${group.base}/order`, {
        key: group.key,
        body: { counterIds: [b.id, a.id] },
      });
      expect(order).toMatchObject({ status: 200, body: { counterIds: [b.id, a.id] } });
      await watcher.waitUntil(() =>
        allChanges(watcher).some((change) => change.type === 'counters.reordered'),
      );
      expect(
        allChanges(watcher).find((change) => change.type === 'counters.reordered'),
      ).toMatchObject({ counterIds: [b.id, a.id] });
      expect((await group.counters()).map((counter) => counter.name)).toEqual(['B', 'A']);
      await group.addCounter({ name: 'C' });
      expect((await group.counters()).map((counter) => counter.name)).toEqual(['B', 'A', 'C']);
      const partial = await call<ApiError>(server.url, 'PUT', `${group.base}/order`, {
        key: group.key,
        body: { counterIds: [a.id, b.id] },
      });
      expect(partial.status).toBe(422);
      expect(partial.body.error).toEqual({
        code: 'invalid_order',
        message: "The new order must list every one of the group's counters exactly once.",
      });
      const twice = await call<ApiError>(server.url, 'PUT', `${group.base}/order`, {
        key: group.key,
        body: { counterIds: [a.id, a.id, b.id] },
      });
      expect(twice.status).toBe(422);
      const notAList = await call<ApiError>(server.url, 'PUT', `${group.base}/order`, {
        key: group.key,
        body: { counterIds: 'A,B' },
      });
      expect(notAList.status).toBe(400);
      watcher.close();
    });

    it('sets a section maximum over REST and refuses taps past the section total', async () => {
      const group = await createGroup(server.url);
      const north = await group.addCounter({ name: 'North', section: 'Entrances', value: 3 });
      await group.addCounter({ name: 'South', section: 'Entrances', value: 1 });
      const set = await call<Group>(server.url, 'PUT', `${group.base}/sections/Entrances`, {
        key: group.key,
        body: { max: 5 },
      });
      expect(set).toMatchObject({ status: 200, body: { sectionLimits: { Entrances: 5 } } });
      const tap = () =>
        call<ApiError>(server.url, 'POST', `${group.base}/counters/${north.id}/increment`, {
          key: group.key,
        });
      expect((await tap()).status).toBe(200);
      const refused = await tap();
      expect(refused.status).toBe(409);
      expect(refused.body.error.message).toBe(
        'Limit reached: Entrances cannot hold more than 5 in total.',
      );
      const encoded = await call<Group>(
        server.url,
        'PUT',
        `${group.base}/sections/${encodeURIComponent('Café & Bar')}`,
        { key: group.key, body: { max: 10 } },
      );
      expect(encoded.body.sectionLimits).toMatchObject({ 'Café & Bar': 10 });
    });

    it('answers tallies per member from the log, and a counter’s periods', async () => {
      const group = await createGroup(server.url);
      const counter = await group.addCounter({ name: 'Laps', reset: 'daily' });
      const tapAs = (member: string, direction: 'increment' | 'decrement', times: number) =>
        call(server.url, 'POST', `${group.base}/counters/${counter.id}/${direction}`, {
          key: group.key,
          body: { times },
          headers: { 'tally-member': encodeURIComponent(member) },
        });
      await tapAs('Ada', 'increment', 3);
      await tapAs('Bob', 'increment', 1);
      await tapAs('Ada', 'decrement', 1);
      const tallies = await call<Tally[]>(server.url, 'GET', `${group.base}/tallies`, {
        key: group.key,
      });
      expect(tallies.body).toEqual([
        { member: 'Ada', link: null, counterId: counter.id, increments: 3, decrements: 1, net: 2 },
        { member: 'Bob', link: null, counterId: counter.id, increments: 1, decrements: 0, net: 1 },
      ]);
      const since = await call<Tally[]>(
        server.url,
        'GET',
        `${group.base}/tallies?counterId=${counter.id}&since=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`,
        { key: group.key },
      );
      expect(since.body).toEqual([]);
      const bad = await call<ApiError>(server.url, 'GET', `${group.base}/tallies?since=yesterday`, {
        key: group.key,
      });
      expect(bad.status).toBe(400);
      const periods = await call<CounterPeriods>(
        server.url,
        'GET',
        `${group.base}/counters/${counter.id}/periods`,
        { key: group.key },
      );
      expect(periods.body).toEqual({ counterId: counter.id, periods: [] });
      const exported = await call<GroupExport>(server.url, 'GET', `${group.base}/export`, {
        key: group.key,
      });
      expect(exported.body.periods).toEqual([]);
      expect(exported.body.counters[0]).toMatchObject({ reset: 'daily', allTime: 3 });
    });

    it('refuses reorders and section maximums to a view-only link', async () => {
      const group = await createGroup(server.url);
      const counter = await group.addCounter();
      const link = await call<{ viewKey: string }>(server.url, 'POST', `${group.base}/view-key`, {
        key: group.key,
      });
      const viewKey = link.body.viewKey;
      for (const [method, path, body] of [
        ['PUT', `${group.base}/order`, { counterIds: [counter.id] }],
        ['PUT', `${group.base}/sections/Doors`, { max: 3 }],
      ] as const) {
        const answer = await call<ApiError>(server.url, method, path, { key: viewKey, body });
        expect(answer.status).toBe(403);
        expect(answer.body.error.code).toBe('read_only');
      }
      const read = await call<Tally[]>(server.url, 'GET', `${group.base}/tallies`, {
        key: viewKey,
      });
      expect(read.status).toBe(200);
    });
  },
);

describe.skipIf(postgresUrl === undefined)('goal crossings across two instances', () => {
  const { a, b } = twoInstancesOnPostgres();

  it('tells a member on the other instance who reached the goal, once', async () => {
    const group = await createGroup(a().url);
    const counter = await group.addCounter({ name: 'Pushups', goal: 2 });
    const watcher = await joinLive(b().wsUrl, group.group.name, group.key);
    const tap = () =>
      call(a().url, 'POST', `${group.base}/counters/${counter.id}/increment`, {
        key: group.key,
        headers: { 'tally-member': 'Ada' },
      });
    await tap();
    await tap();
    await tap();
    const reached = () =>
      allChanges(watcher).filter(
        (change): change is Extract<Change, { type: 'counter.updated' }> =>
          change.type === 'counter.updated' && change.counter.value >= 2,
      );
    await watcher.waitUntil(() => reached().some((change) => change.counter.value === 3));
    const crossings = reached().filter((change) => change.goalReachedBy !== undefined);
    expect(crossings.map((change) => [change.goalReachedBy, change.counter.value])).toEqual([
      ['Ada', 2],
    ]);
    watcher.close();
  });
});
