/**
 * Sockets that authenticate and then never read: the server holds what they do not
 * read, so it bounds it. A socket with more than MAX_BUFFERED_BYTES unread gets no more frames
 * and is closed (1013), and the sockets of one client address together hold at most about
 * MAX_UNREAD_BYTES_PER_ADDRESS (plus one snapshot) before the fullest are closed and new
 * snapshots to that address refused. A member of another group keeps receiving every change.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { Duplex } from 'node:stream';
import { PROTOCOL_VERSION, livePath } from '../../src/shared/protocol.js';
import { TEXT_MAX_LENGTH, URL_MAX_LENGTH } from '../../src/shared/limits.js';
import { MAX_UNREAD_BYTES_PER_ADDRESS, unreadBytesOf } from '../../src/server/live/corked.js';
import { call, createGroup } from '../helpers/client.js';
import { isChanges, joinLive } from '../helpers/live.js';
import { startServer, type TestServer } from '../helpers/server.js';

const ATTACKER = '127.0.0.2';
const COUNTERS = 1000;
const SOCKETS = 40;

/** A counter with every text field at its maximum length. */
const bigCounter = (i: number) => ({
  name: `${i} ${'n'.repeat(TEXT_MAX_LENGTH - 10)}`,
  description: 'd'.repeat(TEXT_MAX_LENGTH),
  thumbnailUrl: `https://example.com/${'t'.repeat(URL_MAX_LENGTH - 40)}.png`,
});

/** Opens a live socket from ATTACKER, authenticates, and stops reading from then on. */
function pausedReader(
  wsUrl: string,
  groupName: string,
  key: string,
): Promise<{ socket: WebSocket; closed: Promise<number> }> {
  const socket = new WebSocket(wsUrl + livePath(groupName), { localAddress: ATTACKER });
  const closed = new Promise<number>((resolve) => {
    socket.on('close', (code) => {
      resolve(code);
    });
  });
  socket.on('error', () => undefined);
  return new Promise((resolve, reject) => {
    socket.on('open', () => {
      socket.send(JSON.stringify({ type: 'auth', protocol: PROTOCOL_VERSION, key }));
      (socket as unknown as { _socket: Duplex })._socket.pause();
      resolve({ socket, closed });
    });
    socket.on('error', reject);
  });
}

describe('sockets that do not read', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(async () => {
    await server.close();
  });

  it('are dropped before their unread snapshots exceed the per-address bound, while another group goes on', async () => {
    const big = await createGroup(server.url);
    const groupId = (await server.app.tally.store.findGroup(big.group.name))?.id ?? '';
    for (let i = 0; i < COUNTERS; i++) {
      await server.app.tally.service.mutate(groupId, {
        kind: 'createCounter',
        fields: bigCounter(i),
      });
    }
    const snapshotBytes = JSON.stringify(
      (await call(server.url, 'POST', `${big.base}/join`, { body: { key: big.key } })).body,
    ).length;
    expect(snapshotBytes).toBeGreaterThan(2 * 1024 * 1024);

    // A member that reads gets the big snapshot, stays, and hears changes.
    const reader = await joinLive(server.wsUrl, big.group.name, big.key);

    const other = await createGroup(server.url);
    const counter = await other.addCounter({ name: 'elsewhere' });
    const member = await joinLive(server.wsUrl, other.group.name, other.key);

    const readers = [];
    let worst = 0;
    for (let i = 0; i < SOCKETS; i++) {
      readers.push(await pausedReader(server.wsUrl, big.group.name, big.key));
      worst = Math.max(worst, unreadBytesOf(ATTACKER));
      // The member in the other group still gets its changes, each one.
      const tap = await call(server.url, 'POST', `${other.base}/counters/${counter.id}/increment`, {
        key: other.key,
      });
      expect(tap.status).toBe(200);
      await member.waitUntil(() => member.counters.get(counter.id)?.value === i + 1);
    }
    // Let a sweep or two run, sampling what the attacker's sockets hold.
    for (let i = 0; i < 30; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      worst = Math.max(worst, unreadBytesOf(ATTACKER));
    }
    expect(worst).toBeLessThanOrEqual(MAX_UNREAD_BYTES_PER_ADDRESS + 2 * snapshotBytes);
    expect(unreadBytesOf(ATTACKER)).toBeLessThanOrEqual(MAX_UNREAD_BYTES_PER_ADDRESS);

    // Most of the attacker's sockets were closed by the server (1013; 1006 when cut off before
    // the close frame got out): once the attacker reads again, they end.
    for (const { socket } of readers) (socket as unknown as { _socket: Duplex })._socket.resume();
    const codes = await Promise.all(
      readers.map(({ closed, socket }) =>
        Promise.race([
          closed,
          new Promise<number>((resolve) =>
            setTimeout(() => {
              socket.terminate();
              resolve(0);
            }, 5_000),
          ),
        ]),
      ),
    );
    const dropped = codes.filter((code) => code === 1013 || code === 1006).length;
    expect(dropped).toBeGreaterThan(SOCKETS / 2);
    expect(member.messages.filter(isChanges).length).toBeGreaterThanOrEqual(SOCKETS);
    member.close();
    await server.app.tally.service.mutate(groupId, {
      kind: 'updateGroup',
      patch: { displayName: 'still here' },
    });
    await reader.waitUntil(() => reader.messages.some(isChanges));
    reader.close();
  });
});
