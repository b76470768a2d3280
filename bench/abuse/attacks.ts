/**
 * The abuse attacks (docs/benchmarks.md#abuse), each from a client with no special rights,
 * bounded in count and time, only against the local server under test. Each runs in its own
 * process (bench/abuse/attacker.ts) so the attacker's own work never slows the member's
 * measurements in the main process.
 */
import fs from 'node:fs';
import net from 'node:net';
import type WebSocket from 'ws';
import {
  AddressClient,
  bearer,
  createCounter,
  createGroup,
  firstFrame,
  newGroupName,
  newKey,
  openLive,
  sleep,
  Tally,
} from './net.js';

/**
 * Every attack comes from this address unless it needs several; the member and the newcomers
 * use others.
 */
export const ATTACKER = '127.0.0.1';
/** The wrong-key flood's four addresses (attack 4). */
const WRONG_KEY_ADDRESSES = ['127.0.0.3', '127.0.0.4', '127.0.0.5', '127.0.0.6'];

export interface GroupRef {
  name: string;
  key: string;
}

export interface AttackContext {
  origin: URL;
  durationMs: number;
  /** The member's group (attack 4 sends its wrong keys there). */
  memberGroup: string;
  /** The group attack 1 filled, reused by attack 8. */
  largeGroup?: GroupRef;
  /** Counters attack 1 tries to create, and attack 8 creates when run alone. */
  counterCap: number;
  /** Connections attack 3 tries to hold. */
  connectionCap: number;
  /** The attacker's own group and counters, made in `prepare` (not part of the attack). */
  own?: { group: GroupRef; counters: string[] };
}

/** The attacker's own group with `counters` default counters: setup, outside the measured time. */
async function prepareOwnGroup(
  ctx: AttackContext,
  prefix: string,
  counters: number,
): Promise<void> {
  const client = new AddressClient(ctx.origin, ATTACKER);
  const group = { name: newGroupName(prefix), key: '' };
  group.key = await createGroup(client, group.name);
  const ids: string[] = [];
  for (let i = 0; i < counters; i++) ids.push(await createCounter(client, group.name, group.key));
  client.close();
  ctx.own = { group, counters: ids };
}

function ownGroup(ctx: AttackContext): { group: GroupRef; counters: string[] } {
  if (ctx.own === undefined) throw new Error('the attack was not prepared');
  return ctx.own;
}

export interface AttackResult {
  /** What the attacker achieved, one line for the table. */
  achieved: string;
  details: Record<string, unknown>;
  largeGroup?: GroupRef;
}

export interface Attack {
  name: string;
  /** Setup that is not part of the attack (the member is not measured meanwhile). */
  prepare?(ctx: AttackContext): Promise<void>;
  run(ctx: AttackContext, deadline: number): Promise<AttackResult>;
}

/** Field sizes the API accepts at most (docs/api.md "Rules the server enforces"). */
const MAX_TEXT = 'x'.repeat(1_000);
const MAX_URL = `https://example.com/${'a'.repeat(1_980)}`;
const MAX_FIELDS = { name: MAX_TEXT, description: MAX_TEXT, thumbnailUrl: MAX_URL };
/** Requests one attacker keeps in flight where it floods over HTTP. */
const CONCURRENCY = 16;

const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MB`;
const int = (n: number) => Math.round(n).toLocaleString('en-US');
const statuses = (tally: Tally) =>
  [...tally.counts.entries()].map(([label, n]) => `${label}: ${int(n)}`).join(', ');

/** Runs `worker` on `n` loops until the deadline (or until one returns false). */
async function loops(n: number, deadline: number, worker: () => Promise<boolean>): Promise<void> {
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (Date.now() < deadline) {
        if (!(await worker())) return;
      }
    }),
  );
}

/** Creates counters with maximum-size fields until refused, `cap` or the deadline. */
async function fillCounters(
  client: AddressClient,
  group: GroupRef,
  cap: number,
  deadline: number,
  outcomes: Tally,
): Promise<number> {
  let created = 0;
  let attempts = 0;
  let refused = false;
  await loops(CONCURRENCY, deadline, async () => {
    if (refused || attempts >= cap) return false;
    attempts += 1;
    try {
      const answer = await client.call(`/api/groups/${group.name}/counters`, {
        headers: bearer(group.key),
        body: MAX_FIELDS,
        discard: true,
      });
      outcomes.add(String(answer.status));
      if (answer.status === 201) created += 1;
      else refused = true;
    } catch {
      outcomes.add('network error');
    }
    return true;
  });
  return created;
}

/** Join over REST and wait for the live snapshot, as a browser opening the group does. */
async function joinOnce(
  client: AddressClient,
  group: GroupRef,
  outcomes: Tally,
  bytes: { rest: number; live: number },
): Promise<void> {
  try {
    const answer = await client.call(`/api/groups/${group.name}/join`, {
      body: { key: group.key },
      discard: true,
    });
    outcomes.add(`join ${String(answer.status)}`);
    bytes.rest += answer.bytes;
  } catch {
    outcomes.add('join network error');
  }
  const socket = openLive(client.origin, client.localAddress, group.name, { key: group.key });
  socket.on('message', (data: Buffer) => {
    bytes.live += data.length;
  });
  outcomes.add(`live ${await firstFrame(socket, 30_000)}`);
  socket.terminate();
}

export const counterFlood: Attack = {
  name: '1 counter flood',
  async run(ctx, deadline) {
    const client = new AddressClient(ctx.origin, ATTACKER);
    const group = { name: newGroupName('flood'), key: '' };
    group.key = await createGroup(client, group.name);
    const creation = new Tally();
    // Creation gets most of the phase; four joiners loop on the group for the rest of it.
    const start = Date.now();
    const created = await fillCounters(
      client,
      group,
      ctx.counterCap,
      start + (deadline - start) * 0.7,
      creation,
    );
    const joins = new Tally();
    const bytes = { rest: 0, live: 0 };
    await loops(4, deadline, async () => {
      await joinOnce(client, group, joins, bytes);
      return true;
    });
    client.close();
    const completed = joins.get('live ready');
    return {
      achieved: `${int(created)} counters (${statuses(creation)}); ${int(completed)} joins, ${mb(completed > 0 ? bytes.live / completed : 0)} per snapshot`,
      details: { created, creation: creation.toJSON(), joins: joins.toJSON(), bytes },
      largeGroup: group,
    };
  },
};

export const activityFlood: Attack = {
  name: '2 activity flood + history',
  prepare: (ctx) => prepareOwnGroup(ctx, 'activity', 50),
  async run(ctx, deadline) {
    const client = new AddressClient(ctx.origin, ATTACKER, false, CONCURRENCY + 4);
    const { group, counters } = ownGroup(ctx);
    const taps = new Tally();
    let next = 0;
    const tapping = loops(CONCURRENCY, deadline, async () => {
      const index = next++;
      const counter = counters[index % counters.length] ?? '';
      try {
        const answer = await client.call(
          `/api/groups/${group.name}/counters/${counter}/increment`,
          {
            headers: { ...bearer(group.key), 'tally-member': `m${String(index % 7)}` },
            body: {},
            discard: true,
          },
        );
        taps.add(String(answer.status));
      } catch {
        taps.add('network error');
      }
      return true;
    });
    const reads = new Tally();
    let slowestMs = 0;
    let exportBytes = 0;
    const paths = [
      `/counters/${counters[0] ?? ''}/history?points=1000`,
      '/activity?limit=200',
      '/export?format=json',
    ];
    let turn = 0;
    const reading = loops(2, deadline, async () => {
      const path = paths[turn++ % paths.length] ?? '';
      const started = performance.now();
      try {
        const answer = await client.call(`/api/groups/${group.name}${path}`, {
          headers: bearer(group.key),
          discard: true,
          timeoutMs: 60_000,
        });
        reads.add(`${path.split('?')[0]?.split('/').pop() ?? ''} ${String(answer.status)}`);
        if (path.startsWith('/export')) exportBytes = Math.max(exportBytes, answer.bytes);
      } catch {
        reads.add('network error');
      }
      slowestMs = Math.max(slowestMs, performance.now() - started);
      return true;
    });
    await Promise.all([tapping, reading]);
    client.close();
    const done = taps.get('200');
    return {
      achieved: `${int(done)} taps (${statuses(taps)}); ${int([...reads.counts.values()].reduce((a, b) => a + b, 0))} reads, slowest ${int(slowestMs)} ms, export ${mb(exportBytes)}`,
      details: { taps: taps.toJSON(), reads: reads.toJSON(), slowestMs, exportBytes },
    };
  },
};

/** The open-files limit of this process (the attacker cannot hold more sockets than that). */
function openFilesLimit(): number {
  const limits = fs.readFileSync('/proc/self/limits', 'utf8');
  const soft = /Max open files\s+(\d+)/.exec(limits)?.[1];
  return soft === undefined ? 1_024 : Number(soft);
}
/** Descriptors the attacker keeps for itself (node, its pipes, the member it is not), count. */
const SPARE_DESCRIPTORS = 500;
/** Connects in flight at once while flooding, count. */
const CONNECTS_IN_FLIGHT = 200;
/** Slow senders: one byte every this many ms. */
const TRICKLE_MS = 2_000;
/** A slow POST declares this body size, bytes: under the 16 KB body limit, so it is accepted. */
const SLOW_BODY_BYTES = 8_000;
/** Connections of each slow kind (headers, POST body, upgrade without auth). */
const SLOW_EACH = 50;

export const connectionFlood: Attack = {
  name: '3 connection flood',
  async run(ctx, deadline) {
    const cap = Math.min(ctx.connectionCap, openFilesLimit() - SPARE_DESCRIPTORS);
    const port = Number(ctx.origin.port);
    const open = new Set<net.Socket>();
    const outcomes = new Tally();
    let maxHeld = 0;
    let attempts = 0;
    const trickles: NodeJS.Timeout[] = [];
    const connect = (): Promise<net.Socket | undefined> =>
      new Promise((resolve) => {
        attempts += 1;
        const socket = net.connect({ port, host: ctx.origin.hostname, localAddress: ATTACKER });
        socket.on('connect', () => {
          open.add(socket);
          maxHeld = Math.max(maxHeld, open.size);
          resolve(socket);
        });
        socket.on('error', (error: NodeJS.ErrnoException) => {
          outcomes.add(error.code ?? 'error');
          resolve(undefined);
        });
        socket.on('data', () => undefined);
        socket.on('close', () => {
          if (open.delete(socket)) outcomes.add('closed by server');
        });
      });
    const trickle = (socket: net.Socket, head: string) => {
      let sent = 0;
      const timer = setInterval(() => {
        if (socket.destroyed) {
          clearInterval(timer);
          return;
        }
        socket.write(head[sent % head.length] ?? 'x');
        sent += 1;
      }, TRICKLE_MS);
      trickles.push(timer);
    };
    // The slow ones first, so they are in place whatever happens to the flood.
    for (let i = 0; i < SLOW_EACH; i++) {
      const headers = await connect();
      if (headers)
        trickle(headers, `GET /api/health HTTP/1.1\r\nHost: x\r\nX-Slow: ${'a'.repeat(5_000)}`);
      const body = await connect();
      if (body) {
        body.write(
          `POST /api/groups/slow/join HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${String(SLOW_BODY_BYTES)}\r\n\r\n{"key":"`,
        );
        trickle(body, 'a');
      }
    }
    const upgrades: WebSocket[] = [];
    for (let i = 0; i < SLOW_EACH; i++) {
      const socket = openLive(ctx.origin, ATTACKER, ctx.memberGroup, undefined);
      socket.on('error', () => {
        outcomes.add('upgrade error');
      });
      socket.on('close', (code: number) => {
        outcomes.add(`upgrade closed ${String(code)}`);
      });
      upgrades.push(socket);
    }
    // Then plain connections that send nothing, as many as the limits allow, held to the end.
    while (Date.now() < deadline && attempts < cap) {
      const batch = Math.min(CONNECTS_IN_FLIGHT, cap - attempts);
      await Promise.all(Array.from({ length: batch }, connect));
    }
    while (Date.now() < deadline) await sleep(100);
    const heldAtEnd = open.size;
    const upgradesHeld = upgrades.filter((s) => s.readyState === s.OPEN).length;
    for (const timer of trickles) clearInterval(timer);
    for (const socket of open) socket.destroy();
    for (const socket of upgrades) socket.terminate();
    return {
      achieved: `${int(maxHeld)} TCP held at most, ${int(heldAtEnd)} at the end, of ${int(attempts)} opened; ${String(upgradesHeld)} of ${String(SLOW_EACH)} upgrades without auth still open (${statuses(outcomes) || 'none refused'})`,
      details: { cap, attempts, maxHeld, heldAtEnd, upgradesHeld, outcomes: outcomes.toJSON() },
    };
  },
};

/** Wrong keys per second from the four addresses together: ADR 5's hostile client (amended). */
const WRONG_KEYS_PER_SECOND = 80;

export const wrongKeyFlood: Attack = {
  name: '4 wrong-key flood (4 addresses)',
  async run(ctx, deadline) {
    const outcomes = new Tally();
    const clients = WRONG_KEY_ADDRESSES.map((address) => new AddressClient(ctx.origin, address));
    const pending = new Set<Promise<void>>();
    const intervalMs = 1_000 / (WRONG_KEYS_PER_SECOND / clients.length);
    let sent = 0;
    const attempt = async (client: AddressClient, kind: number): Promise<void> => {
      const group = ctx.memberGroup;
      try {
        if (kind === 0) {
          const answer = await client.call(`/api/groups/${group}/join`, {
            body: { key: newKey() },
          });
          outcomes.add(`join ${String(answer.status)}`);
        } else if (kind === 1) {
          const answer = await client.call(`/api/groups/${group}/counters`, {
            headers: bearer(newKey()),
          });
          outcomes.add(`keyed ${String(answer.status)}`);
        } else {
          const socket = openLive(client.origin, client.localAddress, group, { key: newKey() });
          outcomes.add(`live ${await firstFrame(socket, 5_000)}`);
          socket.terminate();
        }
      } catch {
        outcomes.add('network error');
      }
    };
    await Promise.all(
      clients.map(async (client, index) => {
        await sleep((intervalMs / clients.length) * index);
        let next = Date.now();
        while (Date.now() < deadline) {
          const job = attempt(client, sent++ % 3);
          pending.add(job);
          void job.finally(() => pending.delete(job));
          next += intervalMs;
          await sleep(Math.max(0, next - Date.now()));
        }
      }),
    );
    await Promise.all(pending);
    for (const client of clients) client.close();
    return {
      achieved: `${int(sent)} wrong keys: ${statuses(outcomes)}`,
      details: { sent, outcomes: outcomes.toJSON() },
    };
  },
};

export const groupFlood: Attack = {
  name: '5 group-creation flood',
  async run(ctx, deadline) {
    const client = new AddressClient(ctx.origin, ATTACKER);
    const outcomes = new Tally();
    const started = Date.now();
    await loops(CONCURRENCY, deadline, async () => {
      try {
        const answer = await client.call(`/api/groups/${newGroupName('g')}/join`, {
          body: { key: newKey() },
          discard: true,
        });
        outcomes.add(String(answer.status));
      } catch {
        outcomes.add('network error');
      }
      return true;
    });
    client.close();
    const created = outcomes.get('201');
    const seconds = (Date.now() - started) / 1_000;
    return {
      achieved: `${int(created)} groups created (${int(created / seconds)}/s); ${statuses(outcomes)}`,
      details: { created, outcomes: outcomes.toJSON() },
    };
  },
};

/** Poisoned taps per second, REST and live together (docs/benchmarks.md#abuse). */
const POISONED_PER_SECOND = 55;

export const poisonedInput: Attack = {
  name: '6 NUL in member name',
  prepare: (ctx) => prepareOwnGroup(ctx, 'poison', 1),
  async run(ctx, deadline) {
    const client = new AddressClient(ctx.origin, ATTACKER);
    const { group, counters } = ownGroup(ctx);
    const counter = counters[0] ?? '';
    const outcomes = new Tally();
    const socket = openLive(ctx.origin, ATTACKER, group.name, { key: group.key });
    socket.on('error', () => undefined);
    await firstFrame(socket, 10_000);
    socket.on('message', (data: Buffer) => {
      const head = data.subarray(0, 200).toString('utf8');
      if (head.startsWith('{"type":"ack"')) outcomes.add('live ack');
      else if (head.startsWith('{"type":"error"'))
        outcomes.add(`live ${/"code":"(\w+)"/.exec(head)?.[1] ?? 'error'}`);
    });
    socket.on('close', (code: number) => {
      outcomes.add(`live closed ${String(code)}`);
    });
    const pending = new Set<Promise<void>>();
    let sent = 0;
    let next = Date.now();
    while (Date.now() < deadline) {
      sent += 1;
      if (sent % 2 === 0) {
        const job = client
          .call(`/api/groups/${group.name}/counters/${counter}/increment`, {
            headers: { ...bearer(group.key), 'tally-member': 'a%00b' },
            body: {},
            discard: true,
          })
          .then(
            (answer) => {
              outcomes.add(`REST ${String(answer.status)}`);
            },
            () => {
              outcomes.add('REST network error');
            },
          );
        pending.add(job);
        void job.finally(() => pending.delete(job));
      } else if (socket.readyState === socket.OPEN) {
        socket.send(
          JSON.stringify({
            type: 'mutate',
            opId: `poison_${String(sent)}`,
            actor: 'a\u0000b',
            mutation: { kind: 'adjustCounter', counterId: counter, direction: 'increment' },
          }),
        );
      }
      next += 1_000 / POISONED_PER_SECOND;
      await sleep(Math.max(0, next - Date.now()));
    }
    await Promise.all(pending);
    await sleep(500);
    socket.terminate();
    client.close();
    return {
      achieved: `${int(sent)} poisoned taps: ${statuses(outcomes)}`,
      details: { sent, outcomes: outcomes.toJSON() },
    };
  },
};

/** The presence storm's sockets and their renames per second each (docs/benchmarks.md#abuse). */
const STORM_SOCKETS = 30;
const RENAMES_PER_SECOND = 20;

export const presenceStorm: Attack = {
  name: '7 presence storm',
  prepare: (ctx) => prepareOwnGroup(ctx, 'storm', 0),
  async run(ctx, deadline) {
    const { group } = ownGroup(ctx);
    let received = 0;
    let frames = 0;
    let renames = 0;
    const sockets = Array.from({ length: STORM_SOCKETS }, (_, i) => {
      const socket = openLive(ctx.origin, ATTACKER, group.name, {
        key: group.key,
        member: { id: `storm${String(i)}`, name: `Storm ${String(i)}` },
      });
      socket.on('error', () => undefined);
      socket.on('message', (data: Buffer) => {
        received += data.length;
        frames += 1;
      });
      return socket;
    });
    const timer = setInterval(() => {
      sockets.forEach((socket, i) => {
        if (socket.readyState !== socket.OPEN) return;
        renames += 1;
        socket.send(
          JSON.stringify({ type: 'member', name: `Storm ${String(i)} ${String(renames)}` }),
        );
      });
    }, 1_000 / RENAMES_PER_SECOND);
    while (Date.now() < deadline) await sleep(100);
    clearInterval(timer);
    const closed = sockets.filter((s) => s.readyState !== s.OPEN).length;
    for (const socket of sockets) socket.terminate();
    return {
      achieved: `${int(renames)} renames → ${int(frames)} frames, ${mb(received)} received (${int(renames > 0 ? frames / renames : 0)} frames per rename); ${String(closed)} sockets closed`,
      details: { renames, frames, received, closed },
    };
  },
};

/** Sockets that authenticate to the large group and never read (docs/benchmarks.md#abuse). */
const NON_READERS = 10;
/** Attack 8 run alone builds its large group within this time, ms. */
const LARGE_GROUP_SETUP_MS = 60_000;

export const nonReaders: Attack = {
  name: '8 non-readers on the large group',
  async prepare(ctx) {
    if (ctx.largeGroup !== undefined) return;
    const client = new AddressClient(ctx.origin, ATTACKER);
    const group = { name: newGroupName('large'), key: '' };
    group.key = await createGroup(client, group.name);
    await fillCounters(
      client,
      group,
      ctx.counterCap,
      Date.now() + LARGE_GROUP_SETUP_MS,
      new Tally(),
    );
    client.close();
    ctx.largeGroup = group;
  },
  async run(ctx, deadline) {
    const group = ctx.largeGroup;
    if (group === undefined) throw new Error('non-readers: no large group');
    let opened = 0;
    let dropped = 0;
    const sockets = new Set<WebSocket>();
    const open = () => {
      opened += 1;
      const socket = openLive(ctx.origin, ATTACKER, group.name, { key: group.key });
      // Auth is sent on open; from then on nothing is read: the TCP stream is paused.
      socket.on('open', () => {
        socket.pause();
      });
      socket.on('error', () => undefined);
      socket.on('close', () => {
        sockets.delete(socket);
        dropped += 1;
      });
      sockets.add(socket);
    };
    for (let i = 0; i < NON_READERS; i++) open();
    while (Date.now() < deadline) {
      await sleep(250);
      // The server dropped one: come back, as a real attacker would.
      while (sockets.size < NON_READERS && Date.now() < deadline) open();
    }
    const held = sockets.size;
    for (const socket of [...sockets]) socket.terminate();
    return {
      achieved: `${String(held)} non-readers held at the end; ${String(opened)} opened, ${String(dropped)} dropped by the server`,
      details: { opened, dropped, held },
    };
  },
};

/**
 * The greedy tapper's sockets, all from one address into its own group, and what each sends:
 * taps at the live message limit (100 a second, DEFAULT_LIVE_MESSAGE_POLICY), in ticks.
 */
const GREEDY_SOCKETS = 300;
const GREEDY_TICK_MS = 50;
const GREEDY_TAPS_PER_TICK = 5;

export const greedyTapper: Attack = {
  name: '9 greedy tapper',
  prepare: (ctx) => prepareOwnGroup(ctx, 'greedy', 10),
  async run(ctx, deadline) {
    const { group, counters } = ownGroup(ctx);
    const answers = new Tally();
    let sent = 0;
    const sockets = Array.from({ length: GREEDY_SOCKETS }, (_, i) => {
      const socket = openLive(ctx.origin, ATTACKER, group.name, { key: group.key });
      socket.on('error', () => undefined);
      socket.on('message', (data: Buffer) => {
        const text = data.toString();
        if (text.startsWith('{"type":"ack"')) answers.add('ack');
        else if (text.includes('"code":"busy"')) answers.add('busy');
        else if (text.startsWith('{"type":"error"')) answers.add('error');
      });
      return { socket, session: `greedy${String(i).padStart(4, '0')}`, n: 0 };
    });
    const timer = setInterval(() => {
      for (const tapper of sockets) {
        if (tapper.socket.readyState !== tapper.socket.OPEN) continue;
        for (let k = 0; k < GREEDY_TAPS_PER_TICK; k++) {
          tapper.n += 1;
          sent += 1;
          const counterId = counters[tapper.n % counters.length] ?? '';
          tapper.socket.send(
            `{"type":"mutate","opId":"${tapper.session}.${String(tapper.n)}","mutation":{"kind":"adjustCounter","counterId":"${counterId}","direction":"increment"}}`,
          );
        }
      }
    }, GREEDY_TICK_MS);
    while (Date.now() < deadline) await sleep(100);
    clearInterval(timer);
    const closed = sockets.filter(({ socket }) => socket.readyState !== socket.OPEN).length;
    for (const { socket } of sockets) socket.terminate();
    return {
      achieved: `${int(sent)} taps from ${String(GREEDY_SOCKETS)} sockets of one address: ${statuses(answers)}; ${String(closed)} sockets closed`,
      details: { sent, answers: answers.toJSON(), closed },
    };
  },
};

export const ATTACKS: readonly Attack[] = [
  counterFlood,
  activityFlood,
  connectionFlood,
  wrongKeyFlood,
  groupFlood,
  poisonedInput,
  presenceStorm,
  nonReaders,
  greedyTapper,
];
