/**
 * The fair share (ADR 32) between client addresses, over real live sockets and REST from
 * several loopback addresses (Linux routes all of 127/8 to the loopback interface, so the
 * server sees each as its own client): a greedy address flooding its own group while the
 * server cannot keep up is the one refused `busy`, and a member from another address keeps
 * getting every tap applied. The overload is a store whose commits stall (support/overload.ts);
 * nothing here asserts a time, only who is refused and that nothing is lost or doubled.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Counter, ErrorCode } from '../../src/shared/api.js';
import { CLOSE_CODES, type ServerMessage } from '../../src/shared/protocol.js';
import { call } from '../helpers/client.js';
import { joinLive, type LiveClient } from '../helpers/live.js';
import { LiveFairShare } from '../../src/server/live/fair-share.js';
import { storeBackends } from '../helpers/postgres.js';
import { callFrom } from './support/from.js';
import { UNLIMITED, startHardenedServer, type HardenedServer } from './support/server.js';
import { answerTo, errorCode, stallCommits } from './support/overload.js';

const GREEDY = '127.0.0.5';
const MEMBER = '127.0.0.6';
/** The greedy address's sockets, and the taps each sends per round of its flood. */
const GREEDY_SOCKETS = 3;
const TAPS_PER_ROUND = 100;
/** A round of the flood every this many ms, at most MAX_ROUNDS (far more than it needs). */
const ROUND_MS = 100;
const MAX_ROUNDS = 100;
/** How long an answer may take: everything waits behind the stalled commit, ms. */
const ANSWER_TIMEOUT_MS = 20_000;
/** The whole test: the flood's rounds, then every answer, ms. */
const TEST_TIMEOUT_MS = 60_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const isBusy = (m: ServerMessage) => m.type === 'error' && m.error.code === 'busy';

/** Sends `count` numbered taps on `counterId`, after `sent` earlier ones; returns their ids. */
function tap(
  client: LiveClient,
  counterId: string,
  session: string,
  count: number,
  sent = 0,
): string[] {
  const ids = Array.from({ length: count }, (_, i) => `${session}.${String(sent + i + 1)}`);
  for (const opId of ids) {
    client.send({
      type: 'mutate',
      opId,
      mutation: { kind: 'adjustCounter', counterId, direction: 'increment' },
    });
  }
  return ids;
}

async function answers(client: LiveClient, ids: readonly string[]): Promise<(ErrorCode | 'ok')[]> {
  return (await Promise.all(ids.map((id) => client.waitFor(answerTo(id), ANSWER_TIMEOUT_MS)))).map(
    errorCode,
  );
}

/** A group of one counter made from `address`, and the key that opens it. */
async function groupFrom(server: HardenedServer, address: string, name: string) {
  const key = 'ab'.repeat(16) + address.replaceAll('.', '').padStart(32, '0');
  const joined = await callFrom(address, server.url, 'POST', `/api/groups/${name}/join`, {
    body: { key },
  });
  expect(joined.status).toBe(201);
  const base = `/api/groups/${name}`;
  const counter = await callFrom<Counter>(address, server.url, 'POST', `${base}/counters`, {
    key,
    body: { name: 'Taps' },
  });
  expect(counter.status).toBe(201);
  const value = async () =>
    (await call<Counter[]>(server.url, 'GET', `${base}/counters`, { key })).body[0]?.value;
  return { name, key, base, counterId: counter.body.id, value };
}

function tapPath(group: { base: string; counterId: string }): string {
  return `${group.base}/counters/${group.counterId}/increment`;
}

describe.each(storeBackends())('the fair share between addresses on %s', (_name, database) => {
  let server: HardenedServer;
  beforeAll(async () => {
    // No per-socket message limit: the flood is bounded by the fair share alone.
    server = await startHardenedServer({ security: UNLIMITED, database: database() });
  });
  afterAll(async () => {
    await server.close();
  });

  it(
    'refuses the greedy address busy, live and REST, while every tap of a member at another address is applied once',
    async () => {
      const suffix = Date.now().toString(36);
      const greedy = await groupFrom(server, GREEDY, `greedy-${suffix}`);
      const member = await groupFrom(server, MEMBER, `member-${suffix}`);
      const floods = await Promise.all(
        Array.from({ length: GREEDY_SOCKETS }, () =>
          joinLive(server.wsUrl, greedy.name, greedy.key, { localAddress: GREEDY }),
        ),
      );
      const tapper = await joinLive(server.wsUrl, member.name, member.key, {
        localAddress: MEMBER,
      });
      const watcher = await joinLive(server.wsUrl, member.name, member.key, {
        localAddress: MEMBER,
      });

      const stall = stallCommits(server);
      const memberEarly = tap(tapper, member.counterId, 'membertap', 3);
      // The greedy address floods, live and over REST, until it has been refused both ways:
      // by the live fair share when the event loop falls behind, or by the commit queue once its
      // share of what waits has waited past the target (whichever comes first on this machine).
      const flooded = floods.map(() => [] as string[]);
      const rest: Promise<{ status: number; headers: Record<string, unknown> }>[] = [];
      // Set from the answers' callbacks as well as the loop.
      const refused = { live: false, rest: false };
      const retryAfters: string[] = [];
      for (let round = 1; round <= MAX_ROUNDS && !(refused.live && refused.rest); round++) {
        for (const [i, socket] of floods.entries()) {
          const session = `greedy${String(i).padStart(4, '0')}`;
          const ids = tap(socket, greedy.counterId, session, TAPS_PER_ROUND, flooded[i]?.length);
          flooded[i]?.push(...ids);
        }
        const answer = callFrom(GREEDY, server.url, 'POST', tapPath(greedy), {
          key: greedy.key,
          headers: { 'idempotency-key': `greedy-rest-${String(round)}` },
        });
        rest.push(answer);
        // A refusal past the address's share is answered a moment later (held), so any round's
        // answer may be the one that says busy.
        void answer.then((settled) => {
          if (settled.status !== 503) return;
          retryAfters.push(String(settled.headers['retry-after']));
          refused.rest = true;
        });
        await sleep(ROUND_MS);
        refused.live ||= floods.some((socket) => socket.messages.some(isBusy));
      }
      expect(new Set(retryAfters)).toEqual(new Set(refused.rest ? ['1'] : []));
      expect(refused).toEqual({ live: true, rest: true });

      // The member's taps, live and REST, sent while the greedy address is being refused: taken
      // in, never refused, and applied once the store is back.
      const memberLate = tap(tapper, member.counterId, 'memberlate', 5);
      const memberRest = callFrom<Counter>(MEMBER, server.url, 'POST', tapPath(member), {
        key: member.key,
        headers: { 'idempotency-key': 'member-rest' },
      });

      stall.release();
      expect(await answers(tapper, [...memberEarly, ...memberLate])).toEqual(
        Array.from({ length: 8 }, () => 'ok'),
      );
      expect((await memberRest).status).toBe(200);
      expect(tapper.messages.some(isBusy)).toBe(false);
      // Every member tap applied exactly once, and seen live by the member's other tab.
      expect(await member.value()).toBe(9);
      await watcher.waitUntil(
        () => watcher.counters.get(member.counterId)?.value === 9,
        ANSWER_TIMEOUT_MS,
      );

      // The greedy address's taps: each answered once, ack or busy; the counter holds the acks.
      let applied = 0;
      for (const [i, socket] of floods.entries()) {
        const ids = flooded[i] ?? [];
        const codes = await answers(socket, ids);
        expect(codes.every((code) => code === 'ok' || code === 'busy')).toBe(true);
        applied += codes.filter((code) => code === 'ok').length;
        const answered = socket.messages.filter((m) => m.type === 'ack' || m.type === 'error');
        expect(answered).toHaveLength(ids.length);
      }
      const statuses = (await Promise.all(rest)).map((answer) => answer.status);
      expect(statuses.every((status) => status === 200 || status === 503)).toBe(true);
      applied += statuses.filter((status) => status === 200).length;
      expect(await greedy.value()).toBe(applied);

      // Drained: the greedy address is served again. A tap refused `busy` is resent with the
      // same operation id, as the web app does, and applied once.
      const [first] = floods;
      if (!first) throw new Error('no flood socket');
      let last: ErrorCode | 'ok' = 'busy';
      for (let attempt = 1; attempt <= MAX_ROUNDS && last === 'busy'; attempt++) {
        const before = first.messages.filter(answerTo('greedyafter.1')).length;
        tap(first, greedy.counterId, 'greedyafter', 1);
        await first.waitUntil(
          () => first.messages.filter(answerTo('greedyafter.1')).length > before,
          ANSWER_TIMEOUT_MS,
        );
        const answer = first.messages.filter(answerTo('greedyafter.1')).at(-1);
        last = answer === undefined ? 'busy' : errorCode(answer);
        if (last === 'busy') await sleep(ROUND_MS);
      }
      expect(last).toBe('ok');
      expect(await greedy.value()).toBe(applied + 1);
      // Cut, not closed: a socket paused by the fair share would read the close frame late.
      for (const client of [...floods, tapper, watcher]) client.socket.terminate();
    },
    TEST_TIMEOUT_MS,
  );
});

describe('REST taps in the fair share while the event loop is behind', () => {
  /** Taps the greedy address sends: past the fair share's floor (50 per window) at once. */
  const FLOOD = 80;
  // A clock that stands still: every tap falls in one window of the fair share.
  const fairShare = new LiveFairShare({ sample: false, now: () => 1_000 });
  let server: HardenedServer;
  beforeAll(async () => {
    server = await startHardenedServer({ security: UNLIMITED, fairShare });
  });
  afterAll(async () => {
    await server.close();
  });

  it('refuses the address over its share busy over REST, and lets the member at another address through', async () => {
    const suffix = Date.now().toString(36);
    const greedy = await groupFrom(server, GREEDY, `greedy-rest-${suffix}`);
    const member = await groupFrom(server, MEMBER, `member-rest-${suffix}`);
    const restTap = (address: string, group: typeof greedy, id: string) =>
      callFrom<Counter>(address, server.url, 'POST', tapPath(group), {
        key: group.key,
        headers: { 'idempotency-key': id },
      });
    // Taps counted live and over REST alike; nobody is refused until the loop is behind.
    for (let i = 0; i < FLOOD; i++)
      expect((await restTap(GREEDY, greedy, `g-${String(i)}`)).status).toBe(200);
    expect((await restTap(MEMBER, member, 'm-1')).status).toBe(200);

    fairShare.markBehind();
    const refused = await restTap(GREEDY, greedy, 'g-refused');
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('1');
    for (let i = 2; i <= 5; i++)
      expect((await restTap(MEMBER, member, `m-${String(i)}`)).status).toBe(200);

    // Nothing refused was applied; every member tap was.
    expect(await greedy.value()).toBe(FLOOD);
    expect(await member.value()).toBe(5);
  });
});

describe('closing the server while the fair share holds a socket paused', () => {
  /** Taps the greedy address sends live: past the fair share's floor (50 per window). */
  const FLOOD = 80;
  /**
   * Below ws's own close timeout (30 s), after which it drops a socket whose close frame it
   * never read: a close that waits for that instead of the peer's answer fails here.
   */
  const CLOSE_TEST_TIMEOUT_MS = 15_000;
  const fairShare = new LiveFairShare({ sample: false, now: () => 1_000 });
  let server: HardenedServer;
  let closed = false;
  beforeAll(async () => {
    server = await startHardenedServer({ security: UNLIMITED, fairShare });
  });
  afterAll(async () => {
    if (!closed) await server.close();
  });

  it(
    'reads the held socket again to finish its close handshake, so the server closes without waiting',
    async () => {
      const suffix = Date.now().toString(36);
      const greedy = await groupFrom(server, GREEDY, `greedy-held-${suffix}`);
      const member = await groupFrom(server, MEMBER, `member-held-${suffix}`);
      const socket = await joinLive(server.wsUrl, greedy.name, greedy.key, {
        localAddress: GREEDY,
      });
      const flood = tap(socket, greedy.counterId, 'heldflood', FLOOD);
      expect(new Set(await answers(socket, flood))).toEqual(new Set(['ok']));
      const memberTap = await callFrom(MEMBER, server.url, 'POST', tapPath(member), {
        key: member.key,
        headers: { 'idempotency-key': 'member-held-1' },
      });
      expect(memberTap.status).toBe(200);

      // Over its share while the loop is behind: refused busy, and its socket is not read for a
      // while (the pause that slows a flood's sender).
      fairShare.markBehind();
      const held = tap(socket, greedy.counterId, 'heldtaps', 1);
      expect(await answers(socket, held)).toEqual(['busy']);

      closed = true;
      await server.close();
      expect((await socket.closed).code).toBe(CLOSE_CODES.goingAway);
    },
    CLOSE_TEST_TIMEOUT_MS,
  );
});
