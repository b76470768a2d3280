/**
 * Graceful overload (ADR 13): the commit queue is bounded. While the oldest operation
 * waiting to commit is older than the target delay (500 ms), new mutations are refused at once
 * with `busy` — 503 with `Retry-After: 1` on REST, an `error` message on the live channel — and
 * are never applied, so a retry with the same operation id applies them exactly once. A few late
 * operations are not an overload: at least DEFAULT_ADMISSION.minQueued must wait. A slow store
 * is simulated by holding its commits behind a gate: real server, real sockets, both stores.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Counter, ErrorCode } from '../../src/shared/api.js';
import { MESSAGES } from '../../src/shared/messages.js';
import { DEFAULT_ADMISSION } from '../../src/server/batcher.js';
import { call, createGroup } from '../helpers/client.js';
import { joinLive, type LiveClient } from '../helpers/live.js';
import { dropSchemas, postgresDatabase, postgresUrl, uniqueSchema } from '../helpers/postgres.js';
import type { DatabaseConfig } from '../../src/server/config.js';
import { UNLIMITED, startHardenedServer, type HardenedServer } from './support/server.js';
import { answerTo, errorCode, stallCommits } from './support/overload.js';

/** Longer than the admission target, so the stalled commit's operations are past it. */
const PAST_TARGET_MS = DEFAULT_ADMISSION.targetMs * 2;
/** Enough taps waiting for a delay past the target to count as an overload. */
const QUEUE = DEFAULT_ADMISSION.minQueued;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function tap(client: LiveClient, counterId: string, opId: string): void {
  client.send({
    type: 'mutate',
    opId,
    mutation: { kind: 'adjustCounter', counterId, direction: 'increment' },
  });
}

/** Sends `count` taps; returns their operation ids. */
function taps(client: LiveClient, counterId: string, prefix: string, count: number): string[] {
  const ids = Array.from({ length: count }, (_, i) => `${prefix}-${i}`);
  for (const id of ids) tap(client, counterId, id);
  return ids;
}

/** Waits for the answer to each id; returns their codes in order. */
async function answersTo(client: LiveClient, ids: string[]): Promise<(ErrorCode | 'ok')[]> {
  const answers = await Promise.all(ids.map((id) => client.waitFor(answerTo(id), 15_000)));
  return answers.map(errorCode);
}

const stores: { name: string; database: () => DatabaseConfig | undefined; skip: boolean }[] = [
  { name: 'SQLite', database: () => undefined, skip: false },
  {
    name: 'PostgreSQL',
    database: () => postgresDatabase(schema),
    skip: postgresUrl === undefined,
  },
];
const schema = uniqueSchema();

describe.each(stores)('an overloaded server on $name', ({ database, skip }) => {
  let server: HardenedServer;
  beforeAll(async () => {
    if (skip) return;
    server = await startHardenedServer({ security: UNLIMITED, database: database() });
  });
  afterAll(async () => {
    if (skip) return;
    await server.close();
    if (database()) await dropSchemas([schema]);
  });

  it.skipIf(skip)(
    'refuses a live mutation with busy while the queue is past its target, and applies its retry once',
    async () => {
      const member = await createGroup(server.url);
      const counter = await member.addCounter({ name: 'Busy' });
      const tapper = await joinLive(server.wsUrl, member.group.name, member.key);
      const watcher = await joinLive(server.wsUrl, member.group.name, member.key);

      const stall = stallCommits(server);
      const held = taps(tapper, counter.id, 'held', QUEUE);
      await sleep(PAST_TARGET_MS);
      tap(tapper, counter.id, 'refused');
      const refused = await tapper.waitFor(answerTo('refused'));
      expect(errorCode(refused)).toBe('busy');
      expect(refused.type === 'error' && refused.error.message).toBe(MESSAGES.busy);

      stall.release();
      expect(new Set(await answersTo(tapper, held))).toEqual(new Set(['ok']));
      // The client resends the refused tap with the same operation id: applied once.
      tap(tapper, counter.id, 'refused');
      await tapper.waitUntil(
        () => tapper.messages.filter(answerTo('refused')).length === 2,
        10_000,
      );
      expect(tapper.messages.filter(answerTo('refused')).map(errorCode)).toEqual(['busy', 'ok']);
      await watcher.waitUntil(() => watcher.counters.get(counter.id)?.value === QUEUE + 1, 10_000);
      expect((await member.counters())[0]?.value).toBe(QUEUE + 1);
      tapper.close();
      watcher.close();
    },
  );

  it.skipIf(skip)(
    'answers a REST mutation 503 busy with Retry-After: 1, and its retry with the same key once',
    async () => {
      const member = await createGroup(server.url);
      const counter = await member.addCounter({ name: 'Rest' });
      const path = `${member.base}/counters/${counter.id}/increment`;
      const filler = await member.addCounter({ name: 'Filler' });
      const tapper = await joinLive(server.wsUrl, member.group.name, member.key);

      const stall = stallCommits(server);
      const held = call<Counter>(server.url, 'POST', path, { key: member.key });
      const fill = taps(tapper, filler.id, 'fill', QUEUE);
      await sleep(PAST_TARGET_MS);
      const refused = await call<{ error: { code: string; message: string } }>(
        server.url,
        'POST',
        path,
        { key: member.key, headers: { 'idempotency-key': 'rest-refused' } },
      );
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('1');
      expect(refused.body.error).toEqual({ code: 'busy', message: MESSAGES.busy });

      stall.release();
      expect((await held).status).toBe(200);
      expect(new Set(await answersTo(tapper, fill))).toEqual(new Set(['ok']));
      tapper.close();
      const retried = await call<Counter>(server.url, 'POST', path, {
        key: member.key,
        headers: { 'idempotency-key': 'rest-refused' },
      });
      expect(retried.status).toBe(200);
      expect(retried.body.value).toBe(2);
      const again = await call<Counter>(server.url, 'POST', path, {
        key: member.key,
        headers: { 'idempotency-key': 'rest-refused' },
      });
      expect(again.body.value).toBe(2);
      const counters = await member.counters();
      expect(counters.find((c) => c.id === counter.id)?.value).toBe(2);
    },
  );

  it.skipIf(skip)(
    'refuses nothing when only a few operations are late (a slow moment is not an overload)',
    async () => {
      const member = await createGroup(server.url);
      const counter = await member.addCounter({ name: 'Few' });
      const tapper = await joinLive(server.wsUrl, member.group.name, member.key);

      const stall = stallCommits(server);
      const early = taps(tapper, counter.id, 'early', 5);
      await sleep(PAST_TARGET_MS);
      const late = taps(tapper, counter.id, 'late', 5);
      await sleep(PAST_TARGET_MS);
      stall.release();
      expect(new Set(await answersTo(tapper, [...early, ...late]))).toEqual(new Set(['ok']));
      expect((await member.counters())[0]?.value).toBe(10);
      tapper.close();
    },
  );

  it.skipIf(skip)(
    'answers every tap of a burst exactly once, ack or busy, and the counter holds exactly the acks',
    async () => {
      const member = await createGroup(server.url);
      const counter = await member.addCounter({ name: 'Burst' });
      const tapper = await joinLive(server.wsUrl, member.group.name, member.key);
      const other = await createGroup(server.url);
      const otherCounter = await other.addCounter({ name: 'Elsewhere' });
      const otherTapper = await joinLive(server.wsUrl, other.group.name, other.key);

      const stall = stallCommits(server);
      const early = taps(tapper, counter.id, 'early', QUEUE);
      await sleep(PAST_TARGET_MS);
      // Past the target: refused, and the socket is paused for a moment; then more arrive.
      const late = taps(tapper, counter.id, 'late', 100);
      tap(otherTapper, otherCounter.id, 'other-late');
      expect(errorCode(await otherTapper.waitFor(answerTo('other-late')))).toBe('busy');
      await sleep(PAST_TARGET_MS);
      stall.release();

      const codes = await answersTo(tapper, [...early, ...late]);
      expect(codes.every((code) => code === 'ok' || code === 'busy')).toBe(true);
      expect(codes.slice(0, QUEUE).every((code) => code === 'ok')).toBe(true);
      expect(codes.filter((code) => code === 'busy').length).toBeGreaterThan(0);
      // One answer per tap, never two.
      const answered = tapper.messages.filter(
        (m) => (m.type === 'ack' || m.type === 'error') && m.opId !== undefined,
      );
      expect(answered).toHaveLength(QUEUE + 100);
      const acked = codes.filter((code) => code === 'ok').length;
      expect((await member.counters())[0]?.value).toBe(acked);

      // Drained: both sockets are read again and their taps applied.
      tap(tapper, counter.id, 'after');
      tap(otherTapper, otherCounter.id, 'other-after');
      expect(errorCode(await tapper.waitFor(answerTo('after'), 10_000))).toBe('ok');
      expect(errorCode(await otherTapper.waitFor(answerTo('other-after'), 10_000))).toBe('ok');
      expect((await other.counters())[0]?.value).toBe(1);
      tapper.close();
      otherTapper.close();
    },
  );
});
