/**
 * Every tap counts under concurrency. 50 clients tap one counter 200 times each (25 over the
 * live channel, 25 over REST) while other clients decrement it, change its steps and set its
 * value. Every operation carries an operation id, and the server's ordered change log (the live
 * `changes` stream, by `seq`, each change listing the ids it includes) is replayed: each change
 * must be exactly what its operations imply, every acknowledged operation must appear in exactly
 * one change, the final value must be the log's last, and every client must end on it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Counter } from '../../src/shared/api.js';
import type { Change, ServerMessage } from '../../src/shared/protocol.js';
import { call, createGroup } from '../helpers/client.js';
import { joinLive, type LiveClient } from '../helpers/live.js';
import { startHardenedServer, type HardenedServer } from './support/server.js';

const LIVE_TAPPERS = 25;
const REST_TAPPERS = 25;
const TAPS = 200;
/** Live taps a client keeps in flight at once (the web app has one per counter; a script more). */
const WINDOW = 10;

type Op =
  | { kind: 'increment' | 'decrement'; times: number }
  | { kind: 'set'; value: number }
  | { kind: 'steps'; incrementStep?: number; decrementStep?: number };

/** The PATCH body of a value set or step edit. */
function patchOf(op: Op): Record<string, number | undefined> {
  switch (op.kind) {
    case 'set':
      return { value: op.value };
    case 'steps':
      return { incrementStep: op.incrementStep, decrementStep: op.decrementStep };
    default:
      throw new Error(`${op.kind} is not a PATCH`);
  }
}

let server: HardenedServer;
beforeAll(async () => {
  server = await startHardenedServer(); // default limits: honest heavy clients stay under them
});
afterAll(async () => {
  await server.close();
});

const isAnswer =
  (opId: string) =>
  (m: ServerMessage): m is Extract<ServerMessage, { type: 'ack' | 'error' }> =>
    (m.type === 'ack' || m.type === 'error') && m.opId === opId;

describe('one counter under 50 concurrent tappers plus decrements, step edits and value sets', () => {
  it('applies exactly the acknowledged operations, in the server’s order, and every client agrees', async () => {
    const member = await createGroup(server.url);
    const counter = await member.addCounter({ name: 'Hot' });
    const path = `${member.base}/counters/${counter.id}`;
    const ops = new Map<string, Op>();
    const acknowledged = new Set<string>();
    const watcher = await joinLive(server.wsUrl, member.group.name, member.key);

    const liveTapper = async (client: number, socket: LiveClient) => {
      const inFlight = new Set<Promise<void>>();
      for (let i = 0; i < TAPS; i++) {
        const opId = `live-${client}-${i}`;
        ops.set(opId, { kind: 'increment', times: 1 });
        socket.send({
          type: 'mutate',
          opId,
          mutation: { kind: 'adjustCounter', counterId: counter.id, direction: 'increment' },
        });
        const answered = socket.waitFor(isAnswer(opId), 60_000).then((answer) => {
          expect(answer.type).toBe('ack');
          acknowledged.add(opId);
          inFlight.delete(answered);
        });
        inFlight.add(answered);
        if (inFlight.size >= WINDOW) await Promise.race(inFlight);
      }
      await Promise.all(inFlight);
    };

    const rest = async (opId: string, op: Op) => {
      ops.set(opId, op);
      const answer =
        op.kind === 'increment' || op.kind === 'decrement'
          ? await call<Counter>(server.url, 'POST', `${path}/${op.kind}`, {
              key: member.key,
              body: { times: op.times, opId },
            })
          : await call<Counter>(server.url, 'PATCH', path, {
              key: member.key,
              headers: { 'idempotency-key': opId },
              body: patchOf(op),
            });
      expect(answer.status, opId).toBe(200);
      acknowledged.add(opId);
    };
    const restTapper = async (client: number) => {
      for (let i = 0; i < TAPS; i++)
        await rest(`rest-${client}-${i}`, { kind: 'increment', times: 1 });
    };
    const decrementer = async (client: number) => {
      for (let i = 0; i < 100; i++)
        await rest(`dec-${client}-${i}`, { kind: 'decrement', times: 1 + (i % 3) });
    };
    const stepEditor = async () => {
      for (let i = 0; i < 30; i++)
        await rest(`steps-${i}`, {
          kind: 'steps',
          incrementStep: 1 + (i % 4),
          decrementStep: 1 + (i % 5),
        });
    };
    const setter = async (client: number) => {
      for (let i = 0; i < 20; i++)
        await rest(`set-${client}-${i}`, {
          kind: 'set',
          value: (client + 1) * 1_000 * (i % 2 ? -1 : 1) + i,
        });
    };

    const liveSockets = await Promise.all(
      Array.from({ length: LIVE_TAPPERS }, () =>
        joinLive(server.wsUrl, member.group.name, member.key),
      ),
    );
    const started = Date.now();
    await Promise.all([
      ...liveSockets.map((socket, client) => liveTapper(client, socket)),
      ...Array.from({ length: REST_TAPPERS }, (_, client) => restTapper(client)),
      ...Array.from({ length: 5 }, (_, client) => decrementer(client)),
      stepEditor(),
      setter(0),
      setter(1),
    ]);
    const seconds = (Date.now() - started) / 1000;
    expect(acknowledged.size).toBe(ops.size);

    const [final] = await member.counters();
    if (!final) throw new Error('counter vanished');
    await watcher.waitUntil(
      () => (watcher.counters.get(counter.id)?.version ?? 0) >= final.version,
      30_000,
    );

    // Replay the server's change log for this counter.
    const readies = watcher.messages.filter((m) => m.type === 'ready');
    expect(readies.length, 'the watcher never had to resync, so its log is complete').toBe(1);
    const log = watcher.messages
      .flatMap((m) => (m.type === 'changes' ? m.changes : []))
      .filter(
        (c): c is Extract<Change, { type: 'counter.updated' }> => c.type === 'counter.updated',
      )
      .filter((c) => c.counter.id === counter.id);
    let previous =
      readies[0]?.type === 'ready'
        ? readies[0].counters.find((c) => c.id === counter.id)
        : undefined;
    if (!previous) throw new Error('counter missing from the snapshot');
    const seen = new Map<string, number>();
    let lastSeq = 0;
    for (const change of log) {
      expect(change.seq).toBeGreaterThan(lastSeq);
      lastSeq = change.seq;
      const included = (change.opIds ?? []).map((id) => {
        seen.set(id, (seen.get(id) ?? 0) + 1);
        const op = ops.get(id);
        if (!op) throw new Error(`change ${change.seq} lists an unknown operation ${id}`);
        return op;
      });
      const now = change.counter;
      const sets = included.filter((op) => op.kind === 'set');
      const stepEdits = included.filter((op) => op.kind === 'steps');
      if (sets.length > 0 || stepEdits.length > 0) {
        // A set or a step edit is a change of its own.
        expect(included).toHaveLength(1);
        if (sets[0]?.kind === 'set') expect(now.value).toBe(sets[0].value);
        else expect(now.value).toBe(previous.value);
      } else {
        let delta = 0;
        for (const op of included) {
          if (op.kind === 'increment') delta += op.times * now.incrementStep;
          if (op.kind === 'decrement') delta -= op.times * now.decrementStep;
        }
        expect(now.incrementStep).toBe(previous.incrementStep);
        expect(now.decrementStep).toBe(previous.decrementStep);
        expect(now.value, `change ${change.seq}`).toBe(previous.value + delta);
      }
      previous = now;
    }
    // Every acknowledged operation is in exactly one change; the log ends on the server's value.
    for (const opId of acknowledged) expect(seen.get(opId), opId).toBe(1);
    expect(seen.size).toBe(acknowledged.size);
    expect(previous).toEqual(final);

    // No client ends showing a different value than the server.
    for (const socket of [watcher, ...liveSockets]) {
      await socket.waitUntil(
        () => (socket.counters.get(counter.id)?.version ?? 0) >= final.version,
        30_000,
      );
      expect(socket.counters.get(counter.id)).toEqual(final);
    }
    console.log(
      `concurrency: ${ops.size} operations (${(LIVE_TAPPERS + REST_TAPPERS) * TAPS} taps from ${LIVE_TAPPERS + REST_TAPPERS} clients, 500 decrements, 30 step edits, 40 sets) in ${seconds.toFixed(1)} s; ${log.length} changes replayed; final value ${final.value}`,
    );
    for (const socket of [watcher, ...liveSockets]) socket.close();
  }, 180_000);
});
