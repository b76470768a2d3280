/**
 * Live flood control (ADR 0005): a socket may send 500 messages at once, then 100 per second;
 * beyond that it is closed with 4429 (the web app reconnects after a back-off). Whatever it got
 * through before is applied like any other change, and other groups carry on undisturbed.
 * Oversized messages and bodies are refused outright.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Counter } from '../../src/shared/api.js';
import { BODY_LIMIT_BYTES } from '../../src/shared/limits.js';
import { CLOSE_CODES, type ServerMessage } from '../../src/shared/protocol.js';
import { DEFAULT_LIVE_MESSAGE_POLICY } from '../../src/server/security/policy.js';
import { call, createGroup } from '../helpers/client.js';
import { joinLive } from '../helpers/live.js';
import { startHardenedServer, type HardenedServer } from './support/server.js';

let server: HardenedServer;
beforeAll(async () => {
  server = await startHardenedServer();
});
afterAll(async () => {
  await server.close();
});

/** Messages one flooder connection fires at once. */
const FLOOD_WAVE = 2_000;
const isAck = (m: ServerMessage): m is Extract<ServerMessage, { type: 'ack' }> => m.type === 'ack';

describe('a flooding live socket', () => {
  it('is closed with 4429 after its burst, and another group’s changes all arrive meanwhile', async () => {
    const flooded = await createGroup(server.url);
    const target = await flooded.addCounter({ name: 'Flooded' });
    const quiet = await createGroup(server.url);
    const counter = await quiet.addCounter({ name: 'Quiet' });

    const floodWatcher = await joinLive(server.wsUrl, flooded.group.name, flooded.key);
    const quietTapper = await joinLive(server.wsUrl, quiet.group.name, quiet.key);
    const quietWatcher = await joinLive(server.wsUrl, quiet.group.name, quiet.key);

    // The quiet group's member taps 100 times, one at a time, while the flood runs.
    const TAPS = 100;
    let tapped = 0;
    const tapping = (async () => {
      for (let i = 0; i < TAPS; i++) {
        const opId = `quiet-${i}`;
        quietTapper.send({
          type: 'mutate',
          opId,
          mutation: { kind: 'adjustCounter', counterId: counter.id, direction: 'increment' },
        });
        await quietTapper.waitFor(
          (m): m is Extract<ServerMessage, { type: 'ack' }> => isAck(m) && m.opId === opId,
          15_000,
        );
        tapped += 1;
      }
    })();

    // The flooder: connects, fires FLOOD_WAVE messages at once, gets closed, comes back, until
    // the quiet member is done (at least two waves), like a hostile client that reconnects.
    const { burst, refillMs } = DEFAULT_LIVE_MESSAGE_POLICY;
    let waves = 0;
    let sent = 0;
    let allowed = 0;
    while (waves < 2 || tapped < TAPS) {
      const flooder = await joinLive(server.wsUrl, flooded.group.name, flooded.key);
      const started = Date.now();
      for (let i = 0; i < FLOOD_WAVE; i++) {
        flooder.send({
          type: 'mutate',
          opId: `flood-${waves}-${i}`,
          mutation: { kind: 'adjustCounter', counterId: target.id, direction: 'increment' },
        });
      }
      sent += FLOOD_WAVE;
      const closed = await flooder.closed;
      expect(closed.code).toBe(CLOSE_CODES.tooManyMessages);
      allowed += burst + Math.ceil((Date.now() - started) / refillMs) + 1;
      waves += 1;
    }
    await tapping;

    // The quiet group: every tap acknowledged, the watcher saw all of them, nothing else.
    await quietWatcher.waitUntil(() => quietWatcher.counters.get(counter.id)?.value === TAPS);
    const quietServer = await quiet.counters();
    expect(quietServer.map((c) => c.value)).toEqual([TAPS]);
    expect(quietTapper.counters.get(counter.id)?.value).toBe(TAPS);

    // The flooded group: only what the budget let through was applied, and the other member
    // of that group ends on the server's value.
    const [floodedServer] = await flooded.counters();
    const applied = floodedServer?.value ?? -1;
    expect(applied).toBeGreaterThanOrEqual(waves * (burst - 1));
    expect(applied).toBeLessThanOrEqual(allowed);
    await floodWatcher.waitUntil(() => floodWatcher.counters.get(target.id)?.value === applied);
    console.log(
      `flood: ${waves} waves, ${sent} messages sent, ${applied} applied; quiet group: ${TAPS}/${TAPS} taps delivered`,
    );
    for (const client of [floodWatcher, quietTapper, quietWatcher]) client.close();
  });

  it('is closed with 4429 for a flood of pings too, and the member can reconnect', async () => {
    const member = await createGroup(server.url);
    const socket = await joinLive(server.wsUrl, member.group.name, member.key);
    for (let i = 0; i < 2_000; i++) socket.send({ type: 'ping', t: i });
    expect((await socket.closed).code).toBe(CLOSE_CODES.tooManyMessages);
    const again = await joinLive(server.wsUrl, member.group.name, member.key);
    again.send({ type: 'ping', t: 1 });
    await again.waitFor((m) => m.type === 'pong');
    again.close();
  });

  it('stays open at a steady rate under the limit (a busy but honest client)', async () => {
    const member = await createGroup(server.url);
    const counter = await member.addCounter();
    const socket = await joinLive(server.wsUrl, member.group.name, member.key);
    // 640 messages: more than the burst, sent at about 80 per second in bursts of 40.
    for (let round = 0; round < 16; round++) {
      for (let i = 0; i < 40; i++) {
        socket.send({
          type: 'mutate',
          opId: `steady-${round}-${i}`,
          mutation: { kind: 'adjustCounter', counterId: counter.id, direction: 'increment' },
        });
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    await socket.waitUntil(() => socket.messages.filter(isAck).length === 640, 10_000);
    expect(socket.socket.readyState).toBe(socket.socket.OPEN);
    expect((await member.counters())[0]?.value).toBe(640);
    socket.close();
  });
});

describe('oversized input', () => {
  it('closes a live socket that sends a message over 64 KB (1009) and applies nothing', async () => {
    const member = await createGroup(server.url);
    const counter = await member.addCounter();
    const socket = await joinLive(server.wsUrl, member.group.name, member.key);
    socket.socket.send(
      JSON.stringify({
        type: 'mutate',
        opId: 'big',
        mutation: {
          kind: 'updateCounter',
          counterId: counter.id,
          patch: { name: 'x'.repeat(70_000) },
        },
      }),
    );
    expect((await socket.closed).code).toBe(1009);
    expect((await member.counters())[0]?.name).toBe(counter.name);
  });

  it('answers a body over 16 KB with 413 on every mutation route and stores nothing', async () => {
    const member = await createGroup(server.url);
    const counter = await member.addCounter();
    const big = { name: 'x'.repeat(BODY_LIMIT_BYTES) };
    const routes: [string, string][] = [
      ['POST', `${member.base}/join`],
      ['PATCH', member.base],
      ['POST', `${member.base}/counters`],
      ['PATCH', `${member.base}/counters/${counter.id}`],
      ['POST', `${member.base}/counters/${counter.id}/increment`],
      ['POST', `${member.base}/counters/${counter.id}/decrement`],
    ];
    for (const [method, path] of routes) {
      const answer = await call<{ error: { code: string } }>(server.url, method, path, {
        key: member.key,
        body: big,
      });
      expect(answer.status, `${method} ${path}`).toBe(413);
      expect(answer.body.error.code).toBe('payload_too_large');
    }
    expect(await member.counters()).toEqual([counter satisfies Counter]);
  });
});
