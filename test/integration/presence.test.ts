/**
 * Presence (ADR 9): who is here now, over real live sockets — one entry per person however
 * many tabs, live as people come, rename and go; across instances on PostgreSQL too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  PROTOCOL_VERSION,
  type PresenceMember,
  type ServerMessage,
} from '../../src/shared/protocol.js';
import { createGroup } from '../helpers/client.js';
import { connectLive, isReady, type LiveClient } from '../helpers/live.js';
import { postgresUrl, twoInstancesOnPostgres } from '../helpers/postgres.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { PRESENCE_WINDOW_MS } from '../../src/server/live/presence.js';
import { decodePresence, encodePresence } from '../../src/server/bus/notify.js';
import { MEMBER_NAME_MAX_LENGTH } from '../../src/shared/limits.js';

type Presence = Extract<ServerMessage, { type: 'presence' }>;
const isPresence = (m: ServerMessage): m is Presence => m.type === 'presence';

/** How many are here by the latest presence message a client received. */
function countOf(client: LiveClient): number | undefined {
  const last = client.messages.filter(isPresence).at(-1);
  return last ? (last.count ?? last.members.length) : undefined;
}

/** The latest presence list a client received, as "name" strings. */
function names(client: LiveClient): string[] {
  const last = client.messages.filter(isPresence).at(-1);
  return last ? last.members.map((member) => member.name) : [];
}

async function arrive(
  wsUrl: string,
  groupName: string,
  key: string,
  member?: PresenceMember,
): Promise<LiveClient> {
  const client = await connectLive(wsUrl, groupName);
  client.send({
    type: 'auth',
    protocol: PROTOCOL_VERSION,
    key,
    ...(member === undefined ? {} : { member }),
  });
  await client.waitFor(isReady);
  await client.waitFor(isPresence);
  return client;
}

describe('presence on one instance', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(async () => {
    await server.close();
  });

  it('shows who is here, once per person with several tabs, updated as they come, rename and go', async () => {
    const group = await createGroup(server.url);
    const name = group.group.name;
    const ada = await arrive(server.wsUrl, name, group.key, { id: 'ada-browser', name: 'Ada' });
    expect(names(ada)).toEqual(['Ada']);
    const bob = await arrive(server.wsUrl, name, group.key, { id: 'bob-browser', name: 'Bob' });
    await ada.waitUntil(() => names(ada).join() === 'Ada,Bob');
    expect(names(bob)).toEqual(['Ada', 'Bob']);

    const adaSecondTab = await arrive(server.wsUrl, name, group.key, {
      id: 'ada-browser',
      name: 'Ada',
    });
    expect(names(adaSecondTab)).toEqual(['Ada', 'Bob']);

    bob.send({ type: 'member', name: 'Robert <script>x</script>' });
    await ada.waitUntil(() => names(ada).join() === 'Ada,Robert');

    adaSecondTab.close();
    // Ada still has a tab open: still listed.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(names(bob)).toEqual(['Ada', 'Robert']);
    ada.close();
    await bob.waitUntil(() => names(bob).join() === 'Robert');
    bob.close();
  });

  it('lists nobody for a socket that does not say who it is, and keeps groups apart', async () => {
    const one = await createGroup(server.url);
    const two = await createGroup(server.url);
    const anonymous = await arrive(server.wsUrl, one.group.name, one.key);
    expect(names(anonymous)).toEqual([]);
    const elsewhere = await arrive(server.wsUrl, two.group.name, two.key, {
      id: 'cy',
      name: 'Cy',
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(names(anonymous)).toEqual([]);
    expect(names(elsewhere)).toEqual(['Cy']);
    anonymous.close();
    elsewhere.close();
  });

  it('refuses a malformed member id as an invalid message', async () => {
    const group = await createGroup(server.url);
    const client = await connectLive(server.wsUrl, group.group.name);
    client.send({
      type: 'auth',
      protocol: PROTOCOL_VERSION,
      key: group.key,
      member: { id: 'not valid!', name: 'Eve' },
    });
    expect((await client.closed).code).toBe(4400);
  });
});

describe('presence under a storm of renames', () => {
  let server: TestServer;
  beforeAll(async () => {
    // Enough live-message budget for the storm: this test is about presence frames, not the
    // per-socket message limit.
    server = await startServer({ security: { liveMessages: { burst: 1e6, refillMs: 1 } } });
  });
  afterAll(async () => {
    await server.close();
  });

  it('sends a few coalesced frames per group, not one per rename, and the last names win', async () => {
    const group = await createGroup(server.url);
    const name = group.group.name;
    const observer = await arrive(server.wsUrl, name, group.key);
    const renamers: LiveClient[] = [];
    for (let i = 0; i < 10; i++) {
      renamers.push(await arrive(server.wsUrl, name, group.key, { id: `m${i}`, name: `M${i}` }));
    }
    const finalNames = renamers.map((_c, i) => `Final ${String(i).padStart(2, '0')}`);
    await observer.waitUntil(() => names(observer).length === 10);
    const before = observer.messages.filter(isPresence).length;
    const started = Date.now();
    const roundsPerSocket = 40;
    for (let round = 0; round < roundsPerSocket; round++) {
      renamers.forEach((client, i) => {
        client.send({ type: 'member', name: `M${i} round ${round}` });
      });
    }
    renamers.forEach((client, i) => {
      client.send({ type: 'member', name: finalNames[i] ?? '' });
    });
    await observer.waitUntil(() => names(observer).join() === finalNames.join(), 10_000);
    // Let any trailing frame out, then count.
    await new Promise((resolve) => setTimeout(resolve, 2 * PRESENCE_WINDOW_MS));
    const elapsedMs = Date.now() - started;
    const frames = observer.messages.filter(isPresence).length - before;
    const renames = renamers.length * (roundsPerSocket + 1);
    // One frame per window at most (plus the first at once), whatever the renames: ~410 renames
    // give a handful of frames, not 410.
    expect(frames).toBeLessThanOrEqual(Math.ceil(elapsedMs / PRESENCE_WINDOW_MS) + 1);
    expect(frames).toBeLessThan(renames / 10);
    expect(names(observer)).toEqual(finalNames);
    for (const client of renamers) expect(names(client)).toEqual(finalNames);
    for (const client of [observer, ...renamers]) client.close();
  });
});

describe.skipIf(postgresUrl === undefined)('presence across two instances on PostgreSQL', () => {
  const instances = twoInstancesOnPostgres();

  it('merges the members connected to each instance', async () => {
    const [a, b] = [instances.a(), instances.b()];
    const group = await createGroup(a.url);
    const name = group.group.name;
    const onA = await arrive(a.wsUrl, name, group.key, { id: 'ada', name: 'Ada' });
    const onB = await arrive(b.wsUrl, name, group.key, { id: 'bob', name: 'Bob' });
    await onA.waitUntil(() => names(onA).join() === 'Ada,Bob');
    await onB.waitUntil(() => names(onB).join() === 'Ada,Bob');
    onB.close();
    await onA.waitUntil(() => names(onA).join() === 'Ada');
    onA.close();
  });

  it('coalesces a storm of renames on one instance into a few frames on the other, the last name winning', async () => {
    const [a, b] = [instances.a(), instances.b()];
    const group = await createGroup(a.url);
    const name = group.group.name;
    const renamer = await arrive(a.wsUrl, name, group.key, { id: 'ada', name: 'Ada' });
    const observer = await arrive(b.wsUrl, name, group.key);
    await observer.waitUntil(() => names(observer).join() === 'Ada');
    const before = observer.messages.filter(isPresence).length;
    const started = Date.now();
    const renames = 200;
    for (let i = 0; i < renames; i++) renamer.send({ type: 'member', name: `Ada ${i}` });
    renamer.send({ type: 'member', name: 'Ada final' });
    await observer.waitUntil(() => names(observer).join() === 'Ada final', 10_000);
    await new Promise((resolve) => setTimeout(resolve, 2 * PRESENCE_WINDOW_MS));
    const elapsedMs = Date.now() - started;
    const frames = observer.messages.filter(isPresence).length - before;
    expect(frames).toBeLessThanOrEqual(Math.ceil(elapsedMs / PRESENCE_WINDOW_MS) + 1);
    expect(frames).toBeLessThan(renames / 10);
    expect(names(observer)).toEqual(['Ada final']);
    renamer.close();
    observer.close();
  });

  it("counts a crowd whose lists are cut to one notification: every instance's members, a member on both once", async () => {
    const [a, b] = [instances.a(), instances.b()];
    const group = await createGroup(a.url);
    const name = group.group.name;
    // Names as long as a member name may be: 80 or 70 of them overflow one announcement's list.
    const member = (id: string, label: string): PresenceMember => ({
      id,
      name: `${label} `.padEnd(MEMBER_NAME_MAX_LENGTH, 'x'),
    });
    const onA = Array.from({ length: 80 }, (_m, i) => member(`a-${i}`, `Alpha ${i}`));
    const onB = Array.from({ length: 70 }, (_m, i) => member(`b-${i}`, `Gamma ${i}`));
    // On both instances, sorting after A's members and before B's: without being put first in
    // A's list (B lists it), A's cut list would leave it out and it would be counted twice.
    const both = member('both', 'Beta');
    const marker = member('marker', 'Aaa');
    const listed = (members: PresenceMember[]) =>
      decodePresence(encodePresence('instance', group.group.id, members))?.members.length ?? 0;
    expect(listed(onA)).toBeLessThan(onA.length);
    expect(listed(onB)).toBeLessThan(onB.length);
    expect(listed([marker, ...onA, both])).toBeLessThan(onA.length + 1);

    // Together: each arrival's first presence message may wait for its group's window.
    const clients = await Promise.all([
      ...onA.map((m) => arrive(a.wsUrl, name, group.key, m)),
      ...onB.map((m) => arrive(b.wsUrl, name, group.key, m)),
    ]);
    const watchA = clients[0] as LiveClient;
    const watchB = clients[onA.length] as LiveClient;
    await watchA.waitUntil(() => countOf(watchA) === 150, 20_000);
    await watchB.waitUntil(() => countOf(watchB) === 150, 20_000);

    const bothOnB = await arrive(b.wsUrl, name, group.key, both);
    await watchA.waitUntil(() => countOf(watchA) === 151, 20_000);
    const bothOnA = await arrive(a.wsUrl, name, group.key, both);
    // The marker joins A after the second tab: once B lists it, B has heard A's announcement
    // made after the member on both instances joined A.
    const markerOnA = await arrive(a.wsUrl, name, group.key, marker);
    const seesMarker = (client: LiveClient) =>
      client.messages
        .filter(isPresence)
        .at(-1)
        ?.members.some((m) => m.id === 'marker') === true;
    await watchB.waitUntil(() => seesMarker(watchB), 20_000);
    await watchA.waitUntil(() => seesMarker(watchA), 20_000);
    expect(countOf(watchB)).toBe(152);
    expect(countOf(watchA)).toBe(152);
    for (const client of [...clients, bothOnB, bothOnA, markerOnA]) client.close();
  });
});
