/**
 * Exact arithmetic at the range limits ±(2^53 − 1), undo included, on both stores. A double
 * holds every integer only up to 2^53, while the distance between two typed values reaches
 * 2^54 − 2: undoing "MIN → MAX − 1" used to land one off.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiError, Counter } from '../../src/shared/api.js';
import { MAX_VALUE, MIN_VALUE } from '../../src/shared/limits.js';
import { call, createGroup } from '../helpers/client.js';
import { dropSchemas, postgresDatabase, postgresUrl, uniqueSchema } from '../helpers/postgres.js';
import { startHardenedServer, type HardenedServer } from './support/server.js';

describe.each([
  { store: 'SQLite', postgres: false },
  { store: 'PostgreSQL', postgres: true },
])('values at the range limits on $store', ({ postgres }) => {
  const skip = postgres && postgresUrl === undefined;
  const schema = uniqueSchema();
  let server: HardenedServer;
  beforeAll(async () => {
    if (skip) return;
    server = await startHardenedServer(postgres ? { database: postgresDatabase(schema) } : {});
  });
  afterAll(async () => {
    if (skip) return;
    await server.close();
    if (postgres) await dropSchemas([schema]);
  });

  /** A member with one counter and helpers that each send one operation with its own id. */
  async function setUp(fields: Record<string, unknown> = {}) {
    const member = await createGroup(server.url);
    const counter = await member.addCounter(fields);
    const at = `${member.base}/counters/${counter.id}`;
    let ids = 0;
    const send = async (method: string, path: string, body: unknown) => {
      const opId = `op-${++ids}`;
      const answer = await call<Counter & ApiError>(server.url, method, path, {
        key: member.key,
        headers: { 'idempotency-key': opId },
        body,
      });
      return { ...answer, opId };
    };
    return {
      set: (value: number) => send('PATCH', at, { value }),
      increment: (times = 1) => send('POST', `${at}/increment`, { times }),
      decrement: (times = 1) => send('POST', `${at}/decrement`, { times }),
      undo: (opId: string) => send('POST', `${member.base}/undo`, { opId }),
      value: async () => (await member.counters())[0]?.value,
    };
  }

  it.skipIf(skip)('undoes a typed value across more than 2^53 exactly', async () => {
    const pairs: [number, number][] = [
      [MIN_VALUE, MAX_VALUE],
      [MIN_VALUE, MAX_VALUE - 1],
      [MAX_VALUE, MIN_VALUE + 1],
      [MIN_VALUE, 2],
      [MAX_VALUE, -2],
    ];
    for (const [from, to] of pairs) {
      const counter = await setUp();
      expect((await counter.set(from)).status).toBe(200);
      const typed = await counter.set(to);
      expect(typed.body.value).toBe(to);
      const undone = await counter.undo(typed.opId);
      expect(undone.status, `${from} → ${to}`).toBe(200);
      expect(await counter.value(), `${from} → ${to}, undone`).toBe(from);
    }
  });

  it.skipIf(skip)(
    'lands increments and decrements exactly on the limits, and no further',
    async () => {
      const counter = await setUp({ incrementStep: 7, decrementStep: 3 });
      await counter.set(MAX_VALUE - 14);
      expect((await counter.increment(2)).body.value).toBe(MAX_VALUE);
      const over = await counter.increment();
      expect([over.status, over.body.error.code]).toEqual([422, 'value_out_of_range']);
      await counter.set(MIN_VALUE + 9);
      expect((await counter.decrement(3)).body.value).toBe(MIN_VALUE);
      const under = await counter.decrement();
      expect([under.status, under.body.error.code]).toEqual([422, 'value_out_of_range']);
      expect(await counter.value()).toBe(MIN_VALUE);
    },
  );

  it.skipIf(skip)('undoes increments and decrements next to the limits exactly', async () => {
    const counter = await setUp({ incrementStep: 1_000_000_000 });
    await counter.set(MAX_VALUE - 3_000_000_001);
    const tap = await counter.increment(3);
    expect(tap.body.value).toBe(MAX_VALUE - 1);
    expect((await counter.undo(tap.opId)).status).toBe(200);
    expect(await counter.value()).toBe(MAX_VALUE - 3_000_000_001);

    await counter.set(MIN_VALUE + 2);
    const down = await counter.decrement(2);
    expect(down.body.value).toBe(MIN_VALUE);
    // Undoing the decrement adds 2 back; undoing that undo is refused nowhere and exact.
    expect((await counter.undo(down.opId)).status).toBe(200);
    expect(await counter.value()).toBe(MIN_VALUE + 2);
    // At MAX, undoing a typed MIN → MAX after a tap in between keeps the tap.
    const typed = await setUp();
    await typed.set(MIN_VALUE);
    const jump = await typed.set(MAX_VALUE - 1);
    await typed.increment();
    expect(await typed.value()).toBe(MAX_VALUE);
    expect((await typed.undo(jump.opId)).status).toBe(200);
    expect(await typed.value()).toBe(MIN_VALUE + 1);
  });
});
