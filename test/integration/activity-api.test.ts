/**
 * The activity, undo, history and export API (docs/api.md) against a real server: on SQLite,
 * and on PostgreSQL too when DATABASE_URL points at one.
 */
import { parse as parseCsv } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ActivityPageSchema,
  CounterHistorySchema,
  GroupExportSchema,
  GroupHistorySchema,
  type ActivityPage,
} from '../../src/shared/activity.js';
import type { Counter, MutationResult } from '../../src/shared/api.js';
import { call, createGroup, newKey } from '../helpers/client.js';
import { allChanges, joinLive } from '../helpers/live.js';
import { storeBackends } from '../helpers/postgres.js';
import { startServer, type TestServer } from '../helpers/server.js';

const backends = storeBackends();

const member = (name: string) => ({ 'tally-member': encodeURIComponent(name) });

describe.each(backends)('activity API on %s', (_label, database) => {
  let server: TestServer;
  beforeAll(async () => {
    const config = database();
    server = await startServer(config ? { database: config } : {});
  });
  afterAll(async () => {
    await server.close();
  });

  async function activity(group: Awaited<ReturnType<typeof createGroup>>, query = '') {
    const answer = await call<ActivityPage>(server.url, 'GET', `${group.base}/activity${query}`, {
      key: group.key,
    });
    expect(answer.status).toBe(200);
    return ActivityPageSchema.parse(answer.body);
  }

  const tap = (
    group: Awaited<ReturnType<typeof createGroup>>,
    counterId: string,
    name: string,
    headers: Record<string, string> = {},
  ) =>
    call<Counter>(server.url, 'POST', `${group.base}/counters/${counterId}/increment`, {
      key: group.key,
      body: {},
      headers: { ...member(name), ...headers },
    });

  it('logs each change with the member name from Tally-Member, or "Someone" without it', async () => {
    const group = await createGroup(server.url);
    const counter = await group.addCounter({ name: 'Coffees' });
    expect((await tap(group, counter.id, 'Ada Lovelace 🚀')).status).toBe(200);
    await call(server.url, 'POST', `${group.base}/counters/${counter.id}/increment`, {
      key: group.key,
      body: {},
    });
    const page = await activity(group);
    expect(page.entries.map((entry) => [entry.kind, entry.actor])).toEqual([
      ['counter.adjusted', 'Someone'],
      ['counter.adjusted', 'Ada Lovelace 🚀'],
      ['counter.created', 'Someone'],
    ]);
    expect(page.entries[1]).toMatchObject({ counterName: 'Coffees', delta: 1, value: 1 });
    expect(page.next).toBeNull();
  });

  it('cleans member names like every text and refuses a malformed header with a clear error', async () => {
    const group = await createGroup(server.url);
    const counter = await group.addCounter();
    await tap(group, counter.id, '<script>alert(1)</script>Eve');
    expect((await activity(group)).entries[0]?.actor).toBe('Eve');
    const bad = await call<{ error: { message: string } }>(
      server.url,
      'POST',
      `${group.base}/counters/${counter.id}/increment`,
      { key: group.key, body: {}, headers: { 'tally-member': '%E0%A4%A' } },
    );
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/Tally-Member/);
    expect((await group.counters())[0]?.value).toBe(1);
  });

  it('takes the member name from live mutate messages', async () => {
    const group = await createGroup(server.url);
    const counter = await group.addCounter();
    const live = await joinLive(server.wsUrl, group.group.name, group.key);
    live.send({
      type: 'mutate',
      opId: 'live-tap-1',
      actor: 'Grace',
      mutation: { kind: 'adjustCounter', counterId: counter.id, direction: 'increment', times: 3 },
    });
    await live.waitFor((m): m is never => m.type === 'ack');
    live.close();
    expect((await activity(group)).entries[0]).toMatchObject({ actor: 'Grace', delta: 3 });
  });

  it('pages newest first with next, catches up with after, and refuses bad queries', async () => {
    const group = await createGroup(server.url);
    const counter = await group.addCounter();
    for (let i = 0; i < 5; i += 1) await tap(group, counter.id, `M${i}`);
    const first = await activity(group, '?limit=2');
    expect(first.entries.map((entry) => entry.actor)).toEqual(['M4', 'M3']);
    const second = await activity(group, `?limit=2&before=${first.next}`);
    expect(second.entries.map((entry) => entry.actor)).toEqual(['M2', 'M1']);
    const third = await activity(group, `?limit=2&before=${second.next}`);
    expect(third.entries.map((entry) => entry.actor)).toEqual(['M0', 'Someone']);
    const last = await activity(group, `?limit=2&before=${third.next}`);
    expect(last).toEqual({ entries: [], next: null });
    const newer = await activity(group, `?after=${second.entries[0]?.id}`);
    expect(newer.entries.map((entry) => entry.actor)).toEqual(['M4', 'M3']);
    const onCounter = await activity(group, `?counter=${counter.id}&limit=200`);
    expect(onCounter.entries).toHaveLength(6);

    for (const query of ['?limit=0', '?limit=abc', '?limit=201', '?before=1&after=2', '?x=1']) {
      const answer = await call<{ error: { code: string } }>(
        server.url,
        'GET',
        `${group.base}/activity${query}`,
        { key: group.key },
      );
      expect(answer.status, query).toBe(400);
      expect(answer.body.error.code).toBe('validation_failed');
    }
  });

  it('undoes an entry from the log; a second undo is refused with 409', async () => {
    const group = await createGroup(server.url);
    const counter = await group.addCounter({ incrementStep: 5 });
    await tap(group, counter.id, 'Ada');
    await tap(group, counter.id, 'Bob');
    const adaTap = (await activity(group)).entries.find((entry) => entry.actor === 'Ada');
    const undo = await call<MutationResult>(
      server.url,
      'POST',
      `${group.base}/activity/${adaTap?.id}/undo`,
      { key: group.key, headers: member('Ada') },
    );
    expect(undo.status).toBe(200);
    expect(undo.body).toMatchObject({ kind: 'counter', counter: { value: 5 } });
    const again = await call<{ error: { code: string; message: string } }>(
      server.url,
      'POST',
      `${group.base}/activity/${adaTap?.id}/undo`,
      { key: group.key },
    );
    expect(again.status).toBe(409);
    expect(again.body.error).toEqual({
      code: 'already_undone',
      message: 'This change was already undone',
    });
    const entries = (await activity(group)).entries;
    expect(entries[0]).toMatchObject({ actor: 'Ada', delta: -5, undoOf: adaTap?.id });
    expect(entries.find((entry) => entry.id === adaTap?.id)?.undoneBy).toBe(entries[0]?.id);

    for (const id of [
      'abc',
      '0',
      '-1',
      '1e3',
      '99999999999999999999',
      String(Number.MAX_SAFE_INTEGER),
    ]) {
      const missing = await call<{ error: { code: string } }>(
        server.url,
        'POST',
        `${group.base}/activity/${id}/undo`,
        { key: group.key },
      );
      expect(missing.status, id).toBe(404);
      expect(missing.body.error.code).toBe('activity_not_found');
    }
  });

  it('undoes your own last change by its operation id, and everyone sees it live', async () => {
    const group = await createGroup(server.url);
    const counter = await group.addCounter();
    const watcher = await joinLive(server.wsUrl, group.group.name, group.key);
    await tap(group, counter.id, 'Ada', { 'idempotency-key': 'my-tap-1' });
    await tap(group, counter.id, 'Bob');
    const undo = await call<MutationResult>(server.url, 'POST', `${group.base}/undo`, {
      key: group.key,
      body: { opId: 'my-tap-1' },
      headers: { ...member('Ada'), 'idempotency-key': 'my-undo-1' },
    });
    expect(undo.status).toBe(200);
    await watcher.waitUntil(() =>
      allChanges(watcher).some((change) => change.opIds?.includes('my-undo-1') ?? false),
    );
    expect(watcher.counters.get(counter.id)?.value).toBe(1);
    watcher.close();

    const bad = await call<{ error: { code: string } }>(server.url, 'POST', `${group.base}/undo`, {
      key: group.key,
      body: { opId: 'not valid!' },
    });
    expect(bad.status).toBe(400);
    const unknown = await call<{ error: { code: string } }>(
      server.url,
      'POST',
      `${group.base}/undo`,
      { key: group.key, body: { opId: 'never-used' } },
    );
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('activity_not_found');
  });

  it('ends at the sum of the operations not undone when undos race with other members', async () => {
    const group = await createGroup(server.url);
    const counter = await group.addCounter();
    const mine = Array.from({ length: 20 }, (_, i) => `ada-${i}`);
    for (const opId of mine) await tap(group, counter.id, 'Ada', { 'idempotency-key': opId });
    const others = Array.from({ length: 4 }, (_, m) =>
      Promise.all(Array.from({ length: 50 }, () => tap(group, counter.id, `Member ${m}`))),
    );
    const undos = mine.slice(0, 10).map((opId) =>
      call(server.url, 'POST', `${group.base}/undo`, {
        key: group.key,
        body: { opId },
        headers: member('Ada'),
      }),
    );
    const [undone] = await Promise.all([Promise.all(undos), Promise.all(others)]);
    expect(undone.map((answer) => answer.status)).toEqual(Array(10).fill(200));
    expect((await group.counters())[0]?.value).toBe(20 + 200 - 10);
  });

  it('serves sparkline values for every counter and a counter history', async () => {
    const group = await createGroup(server.url);
    const busy = await group.addCounter();
    const quiet = await group.addCounter();
    for (let i = 0; i < 4; i += 1) await tap(group, busy.id, 'Ada');
    const sparklines = await call(server.url, 'GET', `${group.base}/history?points=3`, {
      key: group.key,
    });
    expect(sparklines.status).toBe(200);
    const { series } = GroupHistorySchema.parse(sparklines.body);
    expect(series[busy.id]?.map((point) => point.v)).toEqual([2, 3, 4]);
    expect(series[quiet.id]?.map((point) => point.v)).toEqual([0]);

    const history = await call(server.url, 'GET', `${group.base}/counters/${busy.id}/history`, {
      key: group.key,
    });
    expect(history.status).toBe(200);
    const points = CounterHistorySchema.parse(history.body).points;
    expect(points[0]?.v).toBe(0);
    expect(points.at(-1)?.v).toBe(4);

    const missing = await call(server.url, 'GET', `${group.base}/counters/nope/history`, {
      key: group.key,
    });
    expect(missing.status).toBe(404);
    const tooFew = await call(server.url, 'GET', `${group.base}/history?points=1`, {
      key: group.key,
    });
    expect(tooFew.status).toBe(400);
  });

  it('exports counters as CSV that a spreadsheet reads back exactly', async () => {
    const group = await createGroup(server.url);
    const tricky = await group.addCounter({
      name: 'Coffees, "large"\nand small',
      description: 'line one\r\nline two, with "quotes"',
      value: 42,
    });
    const formula = await group.addCounter({ name: '=HYPERLINK("http://evil")', value: -3 });
    const response = await fetch(`${server.url}${group.base}/export?format=csv`, {
      headers: { authorization: `Bearer ${group.key}` },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/csv; charset=utf-8/);
    expect(response.headers.get('content-disposition')).toBe(
      `attachment; filename="${group.group.name}-counters.csv"`,
    );
    expect(response.headers.get('cache-control')).toBe('no-store');
    const bytes = new Uint8Array(await response.arrayBuffer());
    expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const rows = parseCsv<Record<string, string>>(Buffer.from(bytes), {
      bom: true,
      columns: true,
    });
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatchObject({
      id: tricky.id,
      name: tricky.name,
      description: tricky.description,
      value: '42',
      incrementStep: '1',
    });
    // A text cell that a spreadsheet would run as a formula is neutralised; numbers stay numbers.
    expect(rows[1]).toMatchObject({ id: formula.id, name: `'${formula.name}`, value: '-3' });
  });

  it('exports the activity log as CSV and everything as JSON', async () => {
    const group = await createGroup(server.url);
    const counter = await group.addCounter({ name: 'Laps' });
    await tap(group, counter.id, 'Ada, "the first"');
    await call(server.url, 'PATCH', `${group.base}/counters/${counter.id}`, {
      key: group.key,
      body: { name: 'Lengths' },
      headers: member('Bob'),
    });
    const csv = await fetch(`${server.url}${group.base}/export?format=csv&data=activity`, {
      headers: { authorization: `Bearer ${group.key}` },
    });
    expect(csv.headers.get('content-disposition')).toContain(`${group.group.name}-activity.csv`);
    const rows = parseCsv<Record<string, string>>(await csv.text(), {
      bom: true,
      columns: true,
    });
    expect(rows.map((row) => [row.action, row.actor])).toEqual([
      ['counter.created', 'Someone'],
      ['counter.adjusted', 'Ada, "the first"'],
      ['counter.updated', 'Bob'],
    ]);
    expect(rows[2]?.changes).toBe('name: Laps → Lengths');

    const json = await fetch(`${server.url}${group.base}/export?format=json`, {
      headers: { authorization: `Bearer ${group.key}` },
    });
    expect(json.headers.get('content-disposition')).toContain(`${group.group.name}-export.json`);
    const exported = GroupExportSchema.parse(await json.json());
    expect(exported.counters.map((c) => [c.name, c.value])).toEqual([['Lengths', 1]]);
    expect(exported.activity.map((entry) => entry.kind)).toEqual([
      'counter.created',
      'counter.adjusted',
      'counter.updated',
    ]);
    expect(JSON.stringify(exported)).not.toContain(group.key);
  });

  it('requires the key for every activity, history and export route', async () => {
    const group = await createGroup(server.url);
    const counter = await group.addCounter();
    const routes: [string, string][] = [
      ['GET', `${group.base}/activity`],
      ['GET', `${group.base}/history`],
      ['GET', `${group.base}/counters/${counter.id}/history`],
      ['GET', `${group.base}/export?format=csv`],
      ['POST', `${group.base}/activity/1/undo`],
      ['POST', `${group.base}/undo`],
    ];
    for (const [method, path] of routes) {
      expect((await call(server.url, method, path, {})).status, path).toBe(401);
      expect((await call(server.url, method, path, { key: newKey() })).status, path).toBe(403);
    }
    const badFormat = await call(server.url, 'GET', `${group.base}/export?format=xml`, {
      key: group.key,
    });
    expect(badFormat.status).toBe(400);
  });
});
