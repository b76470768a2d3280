/**
 * Retries: a mutation retried with the same operation id (after a lost answer or a dropped
 * connection) is applied once and answered like the first time — over REST and over the live
 * channel, one after the other or at the same moment. An id reused for a *different* change is
 * refused with 422 and applies nothing (found by the fuzz suite: it used to be a 500, or a
 * silent 204/200 answering for the wrong change).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiError, Counter } from '../../src/shared/api.js';
import { sqliteDatabase } from '../../src/server/store/sqlite/driver.js';
import { OPERATION_SESSION_WINDOW } from '../../src/shared/limits.js';
import { MESSAGES } from '../../src/shared/messages.js';
import { numberedId } from '../../src/shared/operation-ids.js';
import type { ServerMessage } from '../../src/shared/protocol.js';
import { call, createGroup } from '../helpers/client.js';
import { joinLive } from '../helpers/live.js';
import { dropSchemas, postgresDatabase, postgresUrl, uniqueSchema } from '../helpers/postgres.js';
import { startHardenedServer, type HardenedServer } from './support/server.js';

let server: HardenedServer;
beforeAll(async () => {
  server = await startHardenedServer();
});
afterAll(async () => {
  await server.close();
});

describe('retried mutations', () => {
  it('apply once: sequential and concurrent REST retries, and a live retry after the socket dropped', async () => {
    const member = await createGroup(server.url);
    const counter = await member.addCounter();
    const increment = `${member.base}/counters/${counter.id}/increment`;
    const first = await call<Counter>(server.url, 'POST', increment, {
      key: member.key,
      body: { opId: 'tap-1', times: 5 },
    });
    const again = await call<Counter>(server.url, 'POST', increment, {
      key: member.key,
      body: { opId: 'tap-1', times: 5 },
    });
    expect([first.status, again.status]).toEqual([200, 200]);
    expect(again.body.value).toBe(5);

    // Ten copies of one request at the same moment.
    const burst = await Promise.all(
      Array.from({ length: 10 }, () =>
        call<Counter>(server.url, 'POST', increment, {
          key: member.key,
          headers: { 'idempotency-key': 'tap-2' },
        }),
      ),
    );
    expect(burst.map((answer) => answer.status)).toEqual(Array(10).fill(200));
    expect((await member.counters())[0]?.value).toBe(6);

    // Over the live channel: sent, socket cut before the ack, sent again on a new socket.
    const socket = await joinLive(server.wsUrl, member.group.name, member.key);
    const tap = {
      type: 'mutate',
      opId: 'tap-3',
      mutation: { kind: 'adjustCounter', counterId: counter.id, direction: 'increment', times: 2 },
    } as const;
    socket.send(tap);
    socket.socket.terminate();
    const again2 = await joinLive(server.wsUrl, member.group.name, member.key);
    again2.send(tap);
    const ack = await again2.waitFor(
      (m: ServerMessage): m is Extract<ServerMessage, { type: 'ack' }> =>
        m.type === 'ack' && m.opId === 'tap-3',
    );
    expect(ack.result.kind).toBe('counter');
    expect((await member.counters())[0]?.value).toBe(8);
    // The same id on REST is the same operation too.
    await call(server.url, 'POST', increment, {
      key: member.key,
      body: { opId: 'tap-3', times: 2 },
    });
    expect((await member.counters())[0]?.value).toBe(8);
    again2.close();
  });

  it('refuse an operation id reused for a different change with 422, applying nothing', async () => {
    const member = await createGroup(server.url);
    const [one, two] = [await member.addCounter(), await member.addCounter()];
    const path = (id: string) => `${member.base}/counters/${id}`;
    const rename = await call(server.url, 'PATCH', member.base, {
      key: member.key,
      headers: { 'idempotency-key': 'op-x' },
      body: { displayName: 'Renamed' },
    });
    expect(rename.status).toBe(200);
    const tapOne = await call(server.url, 'POST', `${path(one.id)}/increment`, {
      key: member.key,
      body: { opId: 'op-y' },
    });
    expect(tapOne.status).toBe(200);
    const before = await member.counters();

    const reuses = [
      // A group change's id on a tap, an edit and a delete.
      call<ApiError>(server.url, 'POST', `${path(one.id)}/increment`, {
        key: member.key,
        body: { opId: 'op-x' },
      }),
      call<ApiError>(server.url, 'PATCH', path(one.id), {
        key: member.key,
        headers: { 'idempotency-key': 'op-x' },
        body: { value: 100 },
      }),
      call<ApiError>(server.url, 'DELETE', path(two.id), {
        key: member.key,
        headers: { 'idempotency-key': 'op-x' },
      }),
      // A tap's id on another counter's tap, on a delete, and on a group change.
      call<ApiError>(server.url, 'POST', `${path(two.id)}/decrement`, {
        key: member.key,
        body: { opId: 'op-y' },
      }),
      call<ApiError>(server.url, 'DELETE', path(two.id), {
        key: member.key,
        headers: { 'idempotency-key': 'op-y' },
      }),
      call<ApiError>(server.url, 'PATCH', member.base, {
        key: member.key,
        headers: { 'idempotency-key': 'op-y' },
        body: { displayName: 'Other' },
      }),
    ];
    for (const answer of await Promise.all(reuses)) {
      expect(answer.status).toBe(422);
      expect(answer.body.error).toEqual({
        code: 'operation_id_reused',
        message: MESSAGES.operationIdReused,
      });
    }
    expect(await member.counters()).toEqual(before);
    const group = await call<{ group: { displayName: string } }>(
      server.url,
      'POST',
      `${member.base}/join`,
      { body: { key: member.key } },
    );
    expect(group.body.group.displayName).toBe('Renamed');
  });

  it('apply numbered taps once over REST and live, in any order; one a window behind is refused 409', async () => {
    const member = await createGroup(server.url);
    const counter = await member.addCounter();
    const increment = `${member.base}/counters/${counter.id}/increment`;
    const rest = (opId: string) =>
      call<Counter | ApiError>(server.url, 'POST', increment, { key: member.key, body: { opId } });
    const session = 'liveTab_42';
    const tap = (n: number) =>
      ({
        type: 'mutate',
        opId: numberedId(session, n),
        mutation: {
          kind: 'adjustCounter',
          counterId: counter.id,
          direction: 'increment',
          times: 1,
        },
      }) as const;
    const acked = (socket: Awaited<ReturnType<typeof joinLive>>, n: number) =>
      socket.waitFor(
        (m: ServerMessage): m is Extract<ServerMessage, { type: 'ack' }> =>
          m.type === 'ack' && m.opId === numberedId(session, n),
      );

    // Number 2 over REST first, then 1 and 3 live; the socket drops before 3 is answered.
    expect((await rest(numberedId(session, 2))).status).toBe(200);
    const socket = await joinLive(server.wsUrl, member.group.name, member.key);
    socket.send(tap(1));
    await acked(socket, 1);
    socket.send(tap(3));
    socket.socket.terminate();
    // Everything sent again on a new socket and over REST: nothing counts twice.
    const again = await joinLive(server.wsUrl, member.group.name, member.key);
    for (const n of [1, 2, 3]) again.send(tap(n));
    const answers = await Promise.all([1, 2, 3].map((n) => acked(again, n)));
    expect(answers.map((a) => a.result.kind === 'counter' && a.result.counter.value)).toEqual([
      3, 3, 3,
    ]);
    expect((await rest(numberedId(session, 3))).body).toMatchObject({ value: 3 });

    // A number a whole window ahead, then number 3 again: too far behind to tell, refused.
    expect((await rest(numberedId(session, 3 + OPERATION_SESSION_WINDOW))).status).toBe(200);
    const expired = await rest(numberedId(session, 3));
    expect(expired.status).toBe(409);
    expect(expired.body).toEqual({
      error: { code: 'operation_expired', message: MESSAGES.operationExpired },
    });
    expect((await member.counters())[0]?.value).toBe(4);
    again.close();
  });
});

/**
 * The fingerprint check (docs/api.md#retries): the store keeps what each operation id meant, so the
 * same id with another `times`, direction, patch or fields is refused — on both stores, over REST
 * and live, also when both uses arrive in one batch — while the same change stays a replay.
 */
describe.each([
  { store: 'SQLite', postgres: false },
  { store: 'PostgreSQL', postgres: true },
])('an operation id reused for a different change on $store', ({ postgres }) => {
  const schema = uniqueSchema();
  let target: HardenedServer;
  beforeAll(async () => {
    if (postgres && postgresUrl === undefined) return;
    target = await startHardenedServer(postgres ? { database: postgresDatabase(schema) } : {});
  });
  afterAll(async () => {
    if (postgres && postgresUrl === undefined) return;
    await target.close();
    if (postgres) await dropSchemas([schema]);
  });

  const expectReused = (answer: { status: number; body: ApiError }) => {
    expect(answer.status).toBe(422);
    expect(answer.body.error).toEqual({
      code: 'operation_id_reused',
      message: MESSAGES.operationIdReused,
    });
  };

  it.skipIf(postgres && postgresUrl === undefined)(
    'is refused with 422 for other times, direction, patch or fields; the same change replays',
    async () => {
      const member = await createGroup(target.url);
      const counter = await member.addCounter({ name: 'Laps' });
      const at = `${member.base}/counters/${counter.id}`;
      const post = (path: string, body: unknown, opId: string) =>
        call<ApiError>(target.url, 'POST', path, {
          key: member.key,
          headers: { 'idempotency-key': opId },
          body,
        });

      expect((await post(`${at}/increment`, { times: 3 }, 'tap')).status).toBe(200);
      expectReused(await post(`${at}/increment`, { times: 4 }, 'tap'));
      expectReused(await post(`${at}/decrement`, { times: 3 }, 'tap'));
      const replay = await call<Counter>(target.url, 'POST', `${at}/increment`, {
        key: member.key,
        headers: { 'idempotency-key': 'tap' },
        body: { times: 3 },
      });
      expect([replay.status, replay.body.value]).toEqual([200, 3]);

      const patch = (body: unknown) =>
        call<ApiError>(target.url, 'PATCH', at, {
          key: member.key,
          headers: { 'idempotency-key': 'edit' },
          body,
        });
      expect((await patch({ value: 10 })).status).toBe(200);
      expectReused(await patch({ value: 11 }));
      expectReused(await patch({ value: 10, name: 'Other' }));
      expect((await patch({ value: 10 })).status).toBe(200);

      const create = (name: string) => post(`${member.base}/counters`, { name }, 'make');
      expect((await create('Cups')).status).toBe(201);
      expectReused(await create('Plates'));
      expect((await create('Cups')).status).toBe(201);

      const counters = await member.counters();
      expect(counters.map((c) => [c.name, c.value])).toEqual([
        ['Laps', 10],
        ['Cups', 0],
      ]);
    },
  );

  it.skipIf(postgres && postgresUrl === undefined)(
    'is refused when both uses arrive in one batch: one applies, the other answers 422',
    async () => {
      const member = await createGroup(target.url);
      const counter = await member.addCounter();
      const answers = await Promise.all(
        [1, 2].map((times) =>
          call<ApiError>(target.url, 'POST', `${member.base}/counters/${counter.id}/increment`, {
            key: member.key,
            headers: { 'idempotency-key': 'same-batch' },
            body: { times },
          }),
        ),
      );
      const statuses = answers.map((answer) => answer.status).sort();
      expect(statuses).toEqual([200, 422]);
      const applied = answers[0]?.status === 200 ? 1 : 2;
      expect((await member.counters())[0]?.value).toBe(applied);
    },
  );

  it.skipIf(postgres && postgresUrl === undefined)(
    'is refused on the live channel with an error carrying operation_id_reused (deleteCounter)',
    async () => {
      const member = await createGroup(target.url);
      const [one, two] = [await member.addCounter(), await member.addCounter()];
      const live = await joinLive(target.wsUrl, member.group.name, member.key);
      live.send({
        type: 'mutate',
        opId: 'remove',
        mutation: { kind: 'deleteCounter', counterId: one.id },
      });
      await live.waitFor(
        (m: ServerMessage): m is Extract<ServerMessage, { type: 'ack' }> =>
          m.type === 'ack' && m.opId === 'remove',
      );
      live.send({
        type: 'mutate',
        opId: 'remove',
        mutation: { kind: 'deleteCounter', counterId: two.id },
      });
      const error = await live.waitFor(
        (m: ServerMessage): m is Extract<ServerMessage, { type: 'error' }> =>
          m.type === 'error' && m.opId === 'remove',
      );
      expect(error.error).toEqual({
        code: 'operation_id_reused',
        message: MESSAGES.operationIdReused,
      });
      expect((await member.counters()).map((c) => c.id)).toEqual([two.id]);
      live.close();
    },
  );
});

describe('operation ids stored before fingerprints existed', () => {
  it('keep replaying their first answer; another kind of change is still refused', async () => {
    const member = await createGroup(server.url);
    const counter = await member.addCounter();
    const increment = `${member.base}/counters/${counter.id}/increment`;
    const tap = (times: number) =>
      call<Counter & ApiError>(server.url, 'POST', increment, {
        key: member.key,
        body: { opId: 'legacy', times },
      });
    expect((await tap(2)).status).toBe(200);
    // As a row written by an older version: no fingerprint.
    const Sqlite = sqliteDatabase();
    const db = new Sqlite(server.databaseFile);
    db.prepare('UPDATE operation_ids SET fingerprint = NULL WHERE op_id = ?').run('legacy');
    db.close();
    const replay = await tap(5);
    expect([replay.status, replay.body.value]).toEqual([200, 2]);
    const remove = await call<ApiError>(
      server.url,
      'DELETE',
      `${member.base}/counters/${counter.id}`,
      {
        key: member.key,
        headers: { 'idempotency-key': 'legacy' },
      },
    );
    expect([remove.status, remove.body.error.code]).toEqual([422, 'operation_id_reused']);
    expect((await member.counters())[0]?.value).toBe(2);
  });
});
