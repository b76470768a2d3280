/** The live channel with real WebSocket clients against a real server. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { Counter } from '../../src/shared/api.js';
import { MESSAGES } from '../../src/shared/messages.js';
import {
  CLOSE_CODES,
  PROTOCOL_VERSION,
  livePath,
  type ServerMessage,
} from '../../src/shared/protocol.js';
import { call, createGroup, newKey, uniqueGroupName } from '../helpers/client.js';
import { allChanges, connectLive, isChanges, isReady, joinLive } from '../helpers/live.js';
import { startServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server.close();
});

describe('authentication', () => {
  it('sends a snapshot of the group after a valid auth message', async () => {
    const member = await createGroup(server.url);
    const counter = await member.addCounter({ name: 'Laps' });
    const client = await joinLive(server.wsUrl, member.group.name, member.key);
    const ready = client.messages.find(isReady);
    expect(ready).toMatchObject({
      protocol: PROTOCOL_VERSION,
      group: member.group,
      counters: [counter],
      seq: 1,
    });
    expect(JSON.stringify(ready)).not.toMatch(/hash/i);
    client.close();
  });

  it('closes with 4403 and the shared message for a wrong key, and sends no group data', async () => {
    const member = await createGroup(server.url);
    await member.addCounter({ name: 'Private' });
    const client = await connectLive(server.wsUrl, member.group.name);
    client.send({ type: 'auth', protocol: PROTOCOL_VERSION, key: newKey() });
    expect(await client.closed).toEqual({ code: CLOSE_CODES.forbidden, reason: MESSAGES.wrongKey });
    expect(client.messages).toEqual([]);
  });

  it('closes with 4403 for a malformed key and 4404 for an unknown group', async () => {
    const member = await createGroup(server.url);
    const malformed = await connectLive(server.wsUrl, member.group.name);
    malformed.send({ type: 'auth', protocol: PROTOCOL_VERSION, key: 'zz' });
    expect(await malformed.closed).toEqual({
      code: CLOSE_CODES.forbidden,
      reason: MESSAGES.invalidKeyFormat,
    });
    const unknown = await connectLive(server.wsUrl, uniqueGroupName());
    unknown.send({ type: 'auth', protocol: PROTOCOL_VERSION, key: newKey() });
    expect((await unknown.closed).code).toBe(CLOSE_CODES.groupNotFound);
  });

  it('closes with 4401 when the first message is not auth', async () => {
    const member = await createGroup(server.url);
    const client = await connectLive(server.wsUrl, member.group.name);
    client.send({ type: 'ping' });
    expect((await client.closed).code).toBe(CLOSE_CODES.unauthorized);
  });

  it('closes with 4426 for another protocol version', async () => {
    const member = await createGroup(server.url);
    const client = await connectLive(server.wsUrl, member.group.name);
    client.send({ type: 'auth', protocol: 999, key: member.key });
    expect((await client.closed).code).toBe(CLOSE_CODES.unsupportedProtocol);
  });

  it('closes with 4400 on garbage: invalid JSON, unknown types, extra fields', async () => {
    const member = await createGroup(server.url);
    for (const garbage of [
      'not json',
      '{"type":"hack"}',
      '[]',
      JSON.stringify({ type: 'auth', protocol: 1, key: member.key, admin: true }),
    ]) {
      const socket = new WebSocket(server.wsUrl + livePath(member.group.name));
      await new Promise((resolve) => socket.once('open', resolve));
      socket.send(garbage);
      const code = await new Promise<number>((resolve) => socket.once('close', resolve));
      expect(code, garbage).toBe(CLOSE_CODES.badMessage);
    }
  });

  it('closes garbage sent after authentication too', async () => {
    const member = await createGroup(server.url);
    const client = await joinLive(server.wsUrl, member.group.name, member.key);
    client.socket.send('{"type":"mutate","opId":"x","mutation":{"kind":"dropTables"}}');
    expect((await client.closed).code).toBe(CLOSE_CODES.badMessage);
  });
});

describe('upgrades', () => {
  it('refuses a WebSocket upgrade on any other path', async () => {
    for (const path of ['/api/groups/x/other', '/api/groups/%E0%A4%A/live', '/live']) {
      const socket = new WebSocket(server.wsUrl + path);
      const error = await new Promise<Error>((resolve) => socket.once('error', resolve));
      expect(error.message, path).toContain('404');
    }
  });

  it('accepts a group name that needs normalising, as the API does', async () => {
    const member = await createGroup(server.url);
    const client = await joinLive(server.wsUrl, member.group.name.toUpperCase(), member.key);
    expect(client.messages[0]).toMatchObject({ type: 'ready', group: { id: member.group.id } });
    client.close();
  });
});

describe('fan-out of committed changes', () => {
  it("shows two members of a group each other's inserts, updates and deletes, in commit order", async () => {
    const member = await createGroup(server.url);
    const alice = await joinLive(server.wsUrl, member.group.name, member.key);
    const bob = await joinLive(server.wsUrl, member.group.name, member.key);

    const counter = await member.addCounter({ name: 'Pizza' });
    await call(server.url, 'POST', `${member.base}/counters/${counter.id}/increment`, {
      key: member.key,
    });
    await call(server.url, 'PATCH', `${member.base}/counters/${counter.id}`, {
      key: member.key,
      body: { name: 'Pizza slices' },
    });
    await call(server.url, 'DELETE', `${member.base}/counters/${counter.id}`, { key: member.key });

    for (const client of [alice, bob]) {
      await client.waitUntil(() => allChanges(client).length === 4);
      const changes = allChanges(client);
      expect(changes.map((c) => c.type)).toEqual([
        'counter.created',
        'counter.updated',
        'counter.updated',
        'counter.deleted',
      ]);
      expect(changes.map((c) => c.seq)).toEqual([1, 2, 3, 4]);
      expect(client.counters.size).toBe(0);
    }
    alice.close();
    bob.close();
  });

  it('announces group changes to members', async () => {
    const member = await createGroup(server.url);
    const client = await joinLive(server.wsUrl, member.group.name, member.key);
    await call(server.url, 'PATCH', member.base, {
      key: member.key,
      body: { displayName: 'Renamed' },
    });
    const message = await client.waitFor(isChanges);
    expect(message.changes[0]).toMatchObject({
      type: 'group.updated',
      group: { displayName: 'Renamed' },
    });
    client.close();
  });

  it('never shows a member of group B anything of group A', async () => {
    const groupA = await createGroup(server.url);
    const groupB = await createGroup(server.url);
    const watcherB = await joinLive(server.wsUrl, groupB.group.name, groupB.key);
    const watcherA = await joinLive(server.wsUrl, groupA.group.name, groupA.key);
    const counter = await groupA.addCounter({ name: 'Secret of A' });
    await call(server.url, 'POST', `${groupA.base}/counters/${counter.id}/increment`, {
      key: groupA.key,
    });
    await watcherA.waitUntil(() => allChanges(watcherA).length === 2);
    // B's own change arrives after A's were sent: if A's leaked, they would be there too.
    await groupB.addCounter({ name: 'B marker' });
    await watcherB.waitUntil(() => allChanges(watcherB).length === 1);
    expect(JSON.stringify(watcherB.messages)).not.toContain('Secret of A');
    expect(allChanges(watcherB).map((c) => c.type)).toEqual(['counter.created']);
    watcherA.close();
    watcherB.close();
  });

  it('tags a change with the operation id that caused it', async () => {
    const member = await createGroup(server.url);
    const counter = await member.addCounter();
    const client = await joinLive(server.wsUrl, member.group.name, member.key);
    await call(server.url, 'POST', `${member.base}/counters/${counter.id}/increment`, {
      key: member.key,
      headers: { 'idempotency-key': 'my-tap-1' },
    });
    const message = await client.waitFor(isChanges);
    expect(message.changes[0]).toMatchObject({ opIds: ['my-tap-1'], counter: { value: 1 } });
    client.close();
  });
});

describe('mutations over the live channel', () => {
  it('applies a mutate message, broadcasts the change and acknowledges it', async () => {
    const member = await createGroup(server.url);
    const counter = await member.addCounter({ incrementStep: 3 });
    const tapper = await joinLive(server.wsUrl, member.group.name, member.key);
    const watcher = await joinLive(server.wsUrl, member.group.name, member.key);
    tapper.send({
      type: 'mutate',
      opId: 'ws-tap-1',
      mutation: { kind: 'adjustCounter', counterId: counter.id, direction: 'increment', times: 2 },
    });
    const ack = await tapper.waitFor(
      (m): m is Extract<ServerMessage, { type: 'ack' }> =>
        m.type === 'ack' && m.opId === 'ws-tap-1',
    );
    expect(ack.result).toMatchObject({ kind: 'counter', counter: { id: counter.id, value: 6 } });
    await watcher.waitUntil(() => watcher.counters.get(counter.id)?.value === 6);
    // The change reaches the sender before its ack, so it can retire its optimistic copy first.
    const order = tapper.messages.map((m) => m.type);
    expect(order.indexOf('changes')).toBeLessThan(order.indexOf('ack'));
    tapper.close();
    watcher.close();
  });

  it('answers a failing mutation with an error naming its operation id', async () => {
    const member = await createGroup(server.url);
    const client = await joinLive(server.wsUrl, member.group.name, member.key);
    client.send({
      type: 'mutate',
      opId: 'bad-1',
      mutation: { kind: 'deleteCounter', counterId: 'nope' },
    });
    const error = await client.waitFor(
      (m): m is Extract<ServerMessage, { type: 'error' }> => m.type === 'error',
    );
    expect(error).toEqual({
      type: 'error',
      opId: 'bad-1',
      error: { code: 'counter_not_found', message: MESSAGES.counterNotFound },
    });
    client.close();
  });

  it('applies a mutate retried with the same opId once', async () => {
    const member = await createGroup(server.url);
    const counter = await member.addCounter();
    const client = await joinLive(server.wsUrl, member.group.name, member.key);
    const tap = {
      type: 'mutate',
      opId: 'retry-1',
      mutation: { kind: 'adjustCounter', counterId: counter.id, direction: 'increment', times: 1 },
    } as const;
    client.send(tap);
    client.send(tap);
    await client.waitUntil(() => client.messages.filter((m) => m.type === 'ack').length === 2);
    expect((await member.counters())[0]?.value).toBe(1);
    client.close();
  });

  it('answers an application ping with a pong carrying the same time', async () => {
    const member = await createGroup(server.url);
    const client = await joinLive(server.wsUrl, member.group.name, member.key);
    client.send({ type: 'ping', t: 1234 });
    const pong = await client.waitFor(
      (m): m is Extract<ServerMessage, { type: 'pong' }> => m.type === 'pong',
    );
    expect(pong.t).toBe(1234);
    client.close();
  });

  it('keeps every member converged when four members tap one counter 50 times each at once', async () => {
    const member = await createGroup(server.url);
    const counter = await member.addCounter();
    const clients = await Promise.all(
      Array.from({ length: 4 }, () => joinLive(server.wsUrl, member.group.name, member.key)),
    );
    clients.forEach((client, c) => {
      for (let i = 0; i < 50; i++) {
        client.send({
          type: 'mutate',
          opId: `c${c}-t${i}`,
          mutation: {
            kind: 'adjustCounter',
            counterId: counter.id,
            direction: 'increment',
            times: 1,
          },
        });
      }
    });
    await Promise.all(
      clients.map((client) =>
        client.waitUntil(() => client.counters.get(counter.id)?.value === 200),
      ),
    );
    const [stored] = await member.counters();
    expect((stored as Counter).value).toBe(200);
    for (const client of clients) client.close();
  });
});

describe('liveness', () => {
  it('drops a socket that stops answering pings', async () => {
    const quick = await startServer({ heartbeatMs: 100 });
    try {
      const member = await createGroup(quick.url);
      const client = await joinLive(quick.wsUrl, member.group.name, member.key);
      // Stop answering pings the way a vanished laptop would: pause the underlying socket.
      (client.socket as unknown as { _socket: { pause(): void } })._socket.pause();
      await expect.poll(() => quick.app.tally.hub.connectionCount, { timeout: 3_000 }).toBe(0);
    } finally {
      await quick.close();
    }
  });

  it('keeps a socket that answers its pings over many intervals', async () => {
    const quick = await startServer({ heartbeatMs: 100 });
    try {
      const member = await createGroup(quick.url);
      const client = await joinLive(quick.wsUrl, member.group.name, member.key);
      let pings = 0;
      client.socket.on('ping', () => {
        pings += 1;
      });
      await expect.poll(() => pings, { timeout: 3_000 }).toBeGreaterThanOrEqual(5);
      expect(quick.app.tally.hub.connectionCount).toBe(1);
      expect(client.socket.readyState).toBe(client.socket.OPEN);
      client.close();
    } finally {
      await quick.close();
    }
  });
});
