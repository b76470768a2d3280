/**
 * Large groups over real live sockets (ADR 33): a crowd's members get every change, in order,
 * in frames that cover the change numbers without gaps and hold each counter at most once
 * (folded); a small group's member gets each change in a frame of its own, not held for a
 * window; presence past its bound carries the number of members and the first ones by name.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIG_GROUP_MEMBERS } from '../../src/server/live/fanout.js';
import {
  PRESENCE_LIST_MAX,
  PROTOCOL_VERSION,
  type ServerMessage,
} from '../../src/shared/protocol.js';
import { call, createGroup } from '../helpers/client.js';
import { connectLive, isChanges, joinLive, type LiveClient } from '../helpers/live.js';
import { startServer, type TestServer } from '../helpers/server.js';

type Changes = Extract<ServerMessage, { type: 'changes' }>;
type Presence = Extract<ServerMessage, { type: 'presence' }>;
const isPresence = (m: ServerMessage): m is Presence => m.type === 'presence';

const framesOf = (client: LiveClient): Changes[] => client.messages.filter(isChanges);

/** Each frame starts where the one before ended (at `from`, or its first change), in order. */
function expectNoGaps(client: LiveClient, afterSeq: number): void {
  let next = afterSeq + 1;
  for (const frame of framesOf(client)) {
    const seqs = frame.changes.map((change) => change.seq);
    expect(frame.from ?? seqs[0]).toBe(next);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    next = (seqs.at(-1) ?? next - 1) + 1;
  }
}

// One server for both: each test makes groups of its own.
let server: TestServer;
beforeAll(async () => {
  server = await startServer({ logLevel: 'warn' });
});
afterAll(async () => {
  await server.close();
});

describe('a large group', () => {
  it("gets every tap, in order, each counter at most once per window's frame, ending at the stored values", async () => {
    const group = await createGroup(server.url);
    const name = group.group.name;
    const counters = [await group.addCounter(), await group.addCounter()];
    const members: LiveClient[] = [];
    for (let i = 0; i < BIG_GROUP_MEMBERS + 10; i++)
      members.push(await joinLive(server.wsUrl, name, group.key));
    const seqAtJoin = 2;

    const tappers = members.slice(0, 4);
    const taps = 240;
    for (let i = 0; i < taps; i++) {
      const tapper = tappers[i % tappers.length] as LiveClient;
      const counter = counters[i % counters.length];
      tapper.send({
        type: 'mutate',
        opId: `big-${i}`,
        mutation: { kind: 'adjustCounter', counterId: counter?.id ?? '', direction: 'increment' },
      });
    }
    // Every tap answered: each tapper's acks for its own operations.
    await Promise.all(
      tappers.map((tapper) =>
        tapper.waitUntil(
          () => tapper.messages.filter((m) => m.type === 'ack').length === taps / tappers.length,
          15_000,
        ),
      ),
    );
    const after = await group.counters();
    const stored = new Map(after.map((c) => [c.id, c.value]));
    expect([...stored.values()].reduce((a, b) => a + b, 0)).toBe(taps);
    // Taps on one counter committed together share a change number: the last is the newest
    // counter's version.
    const lastSeq = Math.max(...after.map((c) => c.version));

    for (const member of members) {
      await member.waitUntil(
        () => framesOf(member).at(-1)?.changes.at(-1)?.seq === lastSeq,
        15_000,
      );
      expectNoGaps(member, seqAtJoin);
      for (const frame of framesOf(member)) {
        if (frame.from === undefined) continue;
        const ids = frame.changes.map((c) => (c.type === 'counter.updated' ? c.counter.id : c.seq));
        expect(new Set(ids).size).toBe(ids.length);
      }
      for (const counter of counters)
        expect(member.counters.get(counter.id)?.value).toBe(stored.get(counter.id));
    }
    for (const member of members) member.close();
  });

  it('tells past the bound how many are here and lists the first by name', async () => {
    const group = await createGroup(server.url);
    const name = group.group.name;
    const crowd = PRESENCE_LIST_MAX + 5;
    const members: LiveClient[] = [];
    for (let i = 0; i < crowd; i++) {
      const client = await connectLive(server.wsUrl, name);
      client.send({
        type: 'auth',
        protocol: PROTOCOL_VERSION,
        key: group.key,
        member: {
          id: `member-${String(i).padStart(3, '0')}`,
          name: `Member ${String(i).padStart(3, '0')}`,
        },
      });
      members.push(client);
    }
    const first = members[0] as LiveClient;
    await first.waitUntil(() => first.messages.filter(isPresence).at(-1)?.count === crowd, 10_000);
    const presence = first.messages.filter(isPresence).at(-1);
    expect(presence?.members).toHaveLength(PRESENCE_LIST_MAX);
    expect(presence?.members[0]?.name).toBe('Member 000');
    // A socket without a member of its own is told the same.
    const watcher = await joinLive(server.wsUrl, name, group.key);
    const told = await watcher.waitFor(isPresence);
    expect(told.count).toBe(crowd);
    expect(told.members).toHaveLength(PRESENCE_LIST_MAX);
    // Under the bound again, every member is listed and no count is given.
    for (const member of members.slice(PRESENCE_LIST_MAX - 10)) member.close();
    await first.waitUntil(
      () => first.messages.filter(isPresence).at(-1)?.members.length === PRESENCE_LIST_MAX - 10,
      10_000,
    );
    expect(first.messages.filter(isPresence).at(-1)?.count).toBeUndefined();
    for (const member of [...members, watcher]) member.close();
  });
});

describe('a small group', () => {
  it("gets each change in a frame of its own as it commits, not a window's", async () => {
    const group = await createGroup(server.url);
    const counter = await group.addCounter();
    const member = await joinLive(server.wsUrl, group.group.name, group.key);
    for (let i = 1; i <= 5; i++) {
      const answer = await call(
        server.url,
        'POST',
        `${group.base}/counters/${counter.id}/increment`,
        { key: group.key },
      );
      expect(answer.status).toBe(200);
      await member.waitUntil(() => framesOf(member).length === i);
      const frame = framesOf(member)[i - 1];
      expect(frame?.from).toBeUndefined();
      expect(frame?.changes.map((c) => c.type === 'counter.updated' && c.counter.value)).toEqual([
        i,
      ]);
    }
    member.close();
  });
});
