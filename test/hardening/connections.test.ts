/**
 * Connection limits at the edge (docs/api.md#limits): one client address holds at most its cap of
 * open sockets, HTTP and live alike, authenticated or not; the socket over the cap is answered 429
 * in Tally's error shape and closed; another address is not affected. Behind a trusted proxy the
 * proxy's own connections are not capped, live sockets are counted per forwarded client. Slow
 * headers, slow bodies and slow upgrade requests are cut off (408) while others are served, and
 * idle keep-alive connections are closed. Refusals are logged once per address per minute.
 */
import type net from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MESSAGES } from '../../src/shared/messages.js';
import { PROTOCOL_VERSION } from '../../src/shared/protocol.js';
import { processConnectionCeiling } from '../../src/server/security/connection-limits.js';
import { createGroup } from '../helpers/client.js';
import { callFrom, liveAuthFrom } from './support/from.js';
import { openLiveFrom, openSocket, readAnswer } from './support/raw-http.js';
import { startHardenedServer, UNLIMITED, type HardenedServer } from './support/server.js';

const CAP = 5;
const ATTACKER = '127.0.0.1';
const NEIGHBOUR = '127.0.0.2';

/** Everything a test opened, closed after it. */
const opened: { destroy(): void }[] = [];
afterEach(() => {
  for (const socket of opened.splice(0)) socket.destroy();
});

async function holdSockets(baseUrl: string, from: string, count: number): Promise<net.Socket[]> {
  const sockets: net.Socket[] = [];
  for (let i = 0; i < count; i++) sockets.push(await openSocket(baseUrl, from));
  opened.push(...sockets);
  return sockets;
}

function expectRefusedInTallyShape(answer: {
  status: number;
  body: unknown;
  headers: Record<string, unknown>;
}): void {
  expect(answer.status).toBe(429);
  expect(answer.body).toEqual({
    error: { code: 'too_many_connections', message: MESSAGES.tooManyConnections },
  });
  expect(answer.headers['content-type']).toMatch(/^application\/json/);
  expect(answer.headers['content-security-policy']).toContain("script-src 'self'");
  expect(answer.headers['x-content-type-options']).toBe('nosniff');
  expect(answer.headers['cache-control']).toBe('no-store');
}

const refusalLines = (logs: string, address: string) =>
  logs
    .split('\n')
    .filter(
      (line) =>
        line.includes('refused a client') &&
        line.includes('too_many_connections') &&
        line.includes(`"${address}"`),
    );

describe('per-address connection cap', () => {
  let server: HardenedServer;
  beforeAll(async () => {
    server = await startHardenedServer({
      limits: { connectionsPerAddress: CAP },
      security: UNLIMITED,
    });
  });
  afterAll(async () => {
    await server.close();
  });

  it('refuses the socket over the cap with a 429 in Tally’s shape, while another address connects, and frees the slot on close', async () => {
    const member = await createGroup(server.url);
    const held = await holdSockets(server.url, ATTACKER, CAP);

    const refused = await callFrom(ATTACKER, server.url, 'GET', '/api/health');
    expectRefusedInTallyShape(refused);
    const refusedLive = await openLiveFrom(server.wsUrl, member.group.name, ATTACKER);
    expect(refusedLive).toEqual({ outcome: 'refused', status: 429 });

    // The neighbour is served, over HTTP and live.
    const health = await callFrom(NEIGHBOUR, server.url, 'GET', '/api/health');
    expect(health.status).toBe(200);
    expect(await liveAuthFrom(NEIGHBOUR, server.wsUrl, member.group.name, member.key)).toEqual({
      outcome: 'ready',
    });

    // One held socket closes: the attacker's address may open one again.
    const first = held[0];
    if (first === undefined) throw new Error('no socket held');
    const closed = new Promise((resolve) => first.once('close', resolve));
    first.destroy();
    await closed;
    let status = 0;
    for (let attempt = 0; attempt < 50 && status !== 200; attempt++) {
      status = (await callFrom(ATTACKER, server.url, 'GET', '/api/health')).status;
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(status).toBe(200);
  });

  it('counts live sockets, authenticated or not, against the same cap', async () => {
    const member = await createGroup(server.url);
    const liveSockets = [];
    for (let i = 0; i < CAP - 1; i++) {
      const live = await openLiveFrom(server.wsUrl, member.group.name, ATTACKER);
      if (live.outcome !== 'open') throw new Error(`live socket ${i} refused`);
      if (i % 2 === 0) {
        live.socket.send(
          JSON.stringify({ type: 'auth', protocol: PROTOCOL_VERSION, key: member.key }),
        );
      }
      liveSockets.push(live.socket);
      opened.push({
        destroy: () => {
          live.socket.terminate();
        },
      });
    }
    await holdSockets(server.url, ATTACKER, 1);
    expect(await openLiveFrom(server.wsUrl, member.group.name, ATTACKER)).toEqual({
      outcome: 'refused',
      status: 429,
    });
    expectRefusedInTallyShape(await callFrom(ATTACKER, server.url, 'GET', '/api/health'));
    expect((await callFrom(NEIGHBOUR, server.url, 'GET', '/api/health')).status).toBe(200);
  });

  it('logs the refusals of one address once a minute, with no URL or key', async () => {
    const member = await createGroup(server.url);
    await holdSockets(server.url, ATTACKER, CAP);
    for (let i = 0; i < 5; i++) {
      const refused = await callFrom(
        ATTACKER,
        server.url,
        'GET',
        `${member.base}/counters?key=${member.key}`,
        { key: member.key },
      );
      expect(refused.status).toBe(429);
    }
    const logs = server.logs();
    // Earlier tests in this file were refused within the same minute: still one line.
    expect(refusalLines(logs, ATTACKER)).toHaveLength(1);
    expect(logs).not.toContain(member.key);
  });

  it('holds at most twice the cap of descriptors for one address, however fast it connects', async () => {
    await holdSockets(server.url, ATTACKER, CAP);
    // A burst far over the cap, none of them reading.
    const burst = await Promise.all(
      Array.from({ length: 10 * CAP }, () => openSocket(server.url, ATTACKER).catch(() => null)),
    );
    opened.push(...burst.filter((socket) => socket !== null));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const open = await new Promise<number>((resolve, reject) => {
      server.app.server.getConnections((error, count) => {
        if (error) reject(error);
        else resolve(count);
      });
    });
    expect(open).toBeLessThanOrEqual(2 * CAP);
    expect((await callFrom(NEIGHBOUR, server.url, 'GET', '/api/health')).status).toBe(200);
  });

  it('keeps the whole process below its descriptor limit', () => {
    const ceiling = processConnectionCeiling();
    expect(server.app.server.maxConnections).toBe(ceiling);
    expect(
      processConnectionCeiling(
        () => 'Max open files            20000                20000                files\n',
      ),
    ).toBe(18_000);
    expect(
      processConnectionCeiling(
        () => 'Max open files            1024                 4096                 files\n',
      ),
    ).toBe(768);
    expect(
      processConnectionCeiling(() => {
        throw new Error('no /proc here');
      }),
    ).toBe(10_000);
  });
});

describe('the default per-address cap', () => {
  let server: HardenedServer;
  beforeAll(async () => {
    server = await startHardenedServer({ security: UNLIMITED });
  });
  afterAll(async () => {
    await server.close();
  });

  it('holds 1,000 sockets from one address, refuses the next, and serves another address', async () => {
    const DEFAULT_CAP = 1_000;
    const BATCH = 100;
    for (let held = 0; held < DEFAULT_CAP; held += BATCH) {
      const batch = await Promise.all(
        Array.from({ length: BATCH }, () => openSocket(server.url, ATTACKER)),
      );
      opened.push(...batch);
    }
    // The last of them was admitted: the server answers on it.
    const last = opened.at(-1) as net.Socket;
    const reading = readAnswer(last);
    last.write('GET /api/health HTTP/1.1\r\nHost: tally\r\n\r\n');
    expect((await reading).answer?.status).toBe(200);

    expectRefusedInTallyShape(await callFrom(ATTACKER, server.url, 'GET', '/api/health'));
    expect((await callFrom(NEIGHBOUR, server.url, 'GET', '/api/health')).status).toBe(200);
  });
});

describe('per-address connection cap behind a trusted proxy', () => {
  let server: HardenedServer;
  beforeAll(async () => {
    server = await startHardenedServer({
      limits: { connectionsPerAddress: CAP },
      security: UNLIMITED,
      trustProxy: ['127.0.0.1'],
    });
  });
  afterAll(async () => {
    await server.close();
  });

  it('does not cap the proxy’s own connections but caps each forwarded client’s live sockets', async () => {
    const member = await createGroup(server.url);
    // The proxy (127.0.0.1) holds more than the cap: it carries many clients.
    await holdSockets(server.url, ATTACKER, CAP + 3);
    expect((await callFrom(ATTACKER, server.url, 'GET', '/api/health')).status).toBe(200);

    const attacker = { 'x-forwarded-for': '203.0.113.7' };
    for (let i = 0; i < CAP; i++) {
      const live = await openLiveFrom(server.wsUrl, member.group.name, ATTACKER, attacker);
      if (live.outcome !== 'open') throw new Error(`live socket ${i} refused`);
      opened.push({
        destroy: () => {
          live.socket.terminate();
        },
      });
    }
    expect(await openLiveFrom(server.wsUrl, member.group.name, ATTACKER, attacker)).toEqual({
      outcome: 'refused',
      status: 429,
    });
    // Another client through the same proxy gets in.
    expect(
      await liveAuthFrom(ATTACKER, server.wsUrl, member.group.name, member.key, {
        'x-forwarded-for': '203.0.113.8',
      }),
    ).toEqual({ outcome: 'ready' });
    expect(refusalLines(server.logs(), '203.0.113.7')).toHaveLength(1);
  });
});

describe('timeouts', () => {
  let server: HardenedServer;
  beforeAll(async () => {
    server = await startHardenedServer({
      security: UNLIMITED,
      timeouts: { headersMs: 300, requestMs: 600, keepAliveMs: 300, checkEveryMs: 50 },
    });
  });
  afterAll(async () => {
    await server.close();
  });

  /** Writes `first`, then one byte of `drip` every 100 ms until the server answers or hangs up. */
  async function slowClient(first: string, drip: string) {
    const socket = await openSocket(server.url, ATTACKER);
    opened.push(socket);
    const reading = readAnswer(socket);
    socket.write(first);
    let index = 0;
    const timer = setInterval(() => {
      if (socket.destroyed || !socket.writable) return;
      socket.write(drip[index % drip.length] ?? 'x');
      index++;
    }, 100);
    try {
      const { answer, closed } = await reading;
      await closed;
      return answer;
    } finally {
      clearInterval(timer);
    }
  }

  const expectTimedOut = (answer: Awaited<ReturnType<typeof slowClient>>) => {
    expect(answer?.status).toBe(408);
    expect(answer?.body).toEqual({
      error: { code: 'request_timeout', message: MESSAGES.requestTimeout },
    });
    expect(answer?.headers['content-security-policy']).toContain("default-src 'self'");
    expect(answer?.headers['x-content-type-options']).toBe('nosniff');
  };

  it('cuts off a client whose headers never finish, while another client is served', async () => {
    const slow = slowClient('GET /api/health HTTP/1.1\r\nHost: tally\r\nX-Slow: ', 'abcdefgh');
    const other = await callFrom(NEIGHBOUR, server.url, 'GET', '/api/health');
    expect(other.status).toBe(200);
    expectTimedOut(await slow);
  });

  it('cuts off a request whose body never finishes', async () => {
    const member = await createGroup(server.url);
    const slow = slowClient(
      `POST ${member.base}/counters HTTP/1.1\r\nHost: tally\r\nAuthorization: Bearer ${member.key}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"name":"',
      'aaaa',
    );
    const other = await callFrom(NEIGHBOUR, server.url, 'GET', `${member.base}/counters`, {
      key: member.key,
    });
    expect(other.status).toBe(200);
    expectTimedOut(await slow);
    expect(server.logs()).not.toContain(member.key);
  });

  it('cuts off a live upgrade request whose headers never finish', async () => {
    const member = await createGroup(server.url);
    const slow = slowClient(
      `GET /api/groups/${member.group.name}/live HTTP/1.1\r\nHost: tally\r\n` +
        'Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nX-Slow: ',
      'abcdefgh',
    );
    expect(await liveAuthFrom(NEIGHBOUR, server.wsUrl, member.group.name, member.key)).toEqual({
      outcome: 'ready',
    });
    expectTimedOut(await slow);
  });

  it('closes a connection that sends nothing, without an answer', async () => {
    const socket = await openSocket(server.url, ATTACKER);
    opened.push(socket);
    const { answer, closed } = await readAnswer(socket);
    await closed;
    expect(answer).toBeUndefined();
    expect((await callFrom(NEIGHBOUR, server.url, 'GET', '/api/health')).status).toBe(200);
  });

  it('closes an idle keep-alive connection', async () => {
    const socket = await openSocket(server.url, NEIGHBOUR);
    opened.push(socket);
    const reading = readAnswer(socket);
    socket.write('GET /api/health HTTP/1.1\r\nHost: tally\r\nConnection: keep-alive\r\n\r\n');
    const { answer, closed } = await reading;
    expect(answer?.status).toBe(200);
    await closed;
    expect(socket.destroyed || socket.readableEnded).toBe(true);
  });

  it('leaves an open live socket alone past the request timeout', async () => {
    const member = await createGroup(server.url);
    const live = await openLiveFrom(server.wsUrl, member.group.name, NEIGHBOUR);
    if (live.outcome !== 'open') throw new Error('refused');
    opened.push({
      destroy: () => {
        live.socket.terminate();
      },
    });
    const messages: string[] = [];
    live.socket.on('message', (data: Buffer) => messages.push(data.toString()));
    live.socket.send(JSON.stringify({ type: 'auth', protocol: PROTOCOL_VERSION, key: member.key }));
    // Twice the whole-request timeout, then the socket still answers.
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    live.socket.send(JSON.stringify({ type: 'ping', t: 1 }));
    await new Promise<void>((resolve, reject) => {
      const check = setInterval(() => {
        if (messages.some((m) => m.includes('"pong"'))) {
          clearInterval(check);
          resolve();
        }
      }, 20);
      live.socket.once('close', () => {
        clearInterval(check);
        reject(new Error('live socket closed'));
      });
    });
    expect(live.socket.readyState).toBe(live.socket.OPEN);
  });
});
