/** Graceful stop: in-flight writes finish, live sockets get a close code, data is on disk. */
import fs from 'node:fs';
import type { Socket } from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SqliteStore } from '../../src/server/store/sqlite/store.js';
import { CLOSE_CODES } from '../../src/shared/protocol.js';
import { call, createGroup } from '../helpers/client.js';
import { joinLive } from '../helpers/live.js';
import { startServer } from '../helpers/server.js';

describe('graceful stop', () => {
  it('closes live sockets with 1001 and keeps every answered increment', async () => {
    const server = await startServer();
    const member = await createGroup(server.url);
    const counter = await member.addCounter();
    const client = await joinLive(server.wsUrl, member.group.name, member.key);

    let answeredBeforeStop = 0;
    const taps = Array.from({ length: 200 }, () =>
      call(server.url, 'POST', `${member.base}/counters/${counter.id}/increment`, {
        key: member.key,
      }).then(
        (answer) => {
          if (answer.status === 200) answeredBeforeStop += 1;
          return answer.status;
        },
        () => 0,
      ),
    );
    // Stop once some taps have been answered, while the others are still in flight.
    await expect
      .poll(() => answeredBeforeStop, { timeout: 10_000, interval: 1 })
      .toBeGreaterThan(0);
    const stopping = server.close({ keepDatabase: true });
    expect(await client.closed).toEqual({
      code: CLOSE_CODES.goingAway,
      reason: 'Server shutting down',
    });
    const statuses = await Promise.all(taps);
    await stopping;

    const answered = statuses.filter((status) => status === 200).length;
    expect(answered).toBeGreaterThan(0);
    const store = new SqliteStore(server.databaseFile);
    try {
      const group = await store.findGroup(member.group.name);
      const state = await store.loadGroupState(group?.id ?? '');
      // Every answered tap is stored; none beyond those that were applied.
      expect(state?.counters[0]?.value).toBeGreaterThanOrEqual(answered);
      expect(state?.counters[0]?.value).toBeLessThanOrEqual(200);
    } finally {
      await store.close();
      fs.rmSync(path.dirname(server.databaseFile), { recursive: true, force: true });
    }
  });
});

describe('a stop with a peer that never answers the close frame', () => {
  /** Below ws's own close timeout (30 s): a stop that waited for it fails here. */
  const STOP_TEST_TIMEOUT_MS = 15_000;

  it(
    'cuts that socket after the grace and stops, instead of waiting for the close handshake',
    async () => {
      const server = await startServer();
      const member = await createGroup(server.url);
      const client = await joinLive(server.wsUrl, member.group.name, member.key);
      // The client stops reading: it never sees the server's close frame, so never answers it.
      const tcp = (client.socket as unknown as { _socket: Socket })._socket;
      tcp.pause();

      await server.close();
      // What was written before the cut still arrives: the close frame, saying why.
      tcp.resume();
      expect((await client.closed).code).toBe(CLOSE_CODES.goingAway);
    },
    STOP_TEST_TIMEOUT_MS,
  );
});
