/**
 * Baseline 3: a bare `ws` server that speaks Tally's live message pattern with no storage, no
 * validation library and no batching — what the hot path (400 groups of 5, ADR 20) is compared
 * with.
 *
 *   auth   → `ready` shaped like Tally's (the group and its counter), then `presence`, as Tally;
 *   mutate → JSON.parse, the counter's value, version and change number kept in memory, then ONE
 *            `changes` frame, serialised once and sent to every socket of the group (the sender
 *            too, as Tally does, and before the ack), and an `ack` to the sender shaped like
 *            Tally's (the counter as it now is).
 *
 * The frames carry the same fields as Tally's (a UUID counter id, ISO dates), so they are about
 * the same size. The counter is serialised once per tap and both frames are built around that
 * JSON, as Tally builds its acks: the baseline is the lean version of the same work.
 *
 * HTTP on the same port, for the load generator's setup and check (outside the measured window):
 * `POST /groups/{name}` creates a group with one counter and answers `{ "id": counterId }`;
 * `GET /value/{name}` answers `{ "value": n }`.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { WebSocketServer, type WebSocket } from 'ws';

interface Counter {
  id: string;
  name: string;
  description: string;
  value: number;
  incrementStep: number;
  decrementStep: number;
  thumbnailUrl: string | null;
  goal: number | null;
  min: number | null;
  max: number | null;
  reset: string | null;
  startValue: number;
  section: string | null;
  periodStart: string | null;
  allTime: number;
  createdAt: string;
  version: number;
}

interface Group {
  id: string;
  name: string;
  counter: Counter;
  seq: number;
  sockets: Set<WebSocket>;
}

interface MutateMessage {
  type: string;
  opId: string;
  mutation: { kind: string; counterId: string; direction?: string; times?: number };
}

const port = Number(process.env.PORT ?? 0);
const groups = new Map<string, Group>();

function createGroup(name: string): Group {
  const group: Group = {
    id: randomUUID(),
    name,
    counter: {
      id: randomUUID(),
      name: 'New Counter',
      description: '',
      value: 0,
      incrementStep: 1,
      decrementStep: 1,
      thumbnailUrl: null,
      goal: null,
      min: null,
      max: null,
      reset: null,
      startValue: 0,
      section: null,
      periodStart: null,
      allTime: 0,
      createdAt: new Date().toISOString(),
      version: 1,
    },
    seq: 1,
    sockets: new Set(),
  };
  groups.set(name, group);
  return group;
}

function readyFrame(group: Group): string {
  return JSON.stringify({
    type: 'ready',
    protocol: 1,
    access: 'full',
    group: {
      id: group.id,
      name: group.name,
      displayName: group.name,
      profileImageUrl: null,
      timeZone: 'UTC',
      weekStart: 1,
      sectionLimits: {},
    },
    counters: [group.counter],
    seq: group.seq,
  });
}

const PRESENCE_FRAME = '{"type":"presence","members":[]}';

function mutate(group: Group, socket: WebSocket, data: Buffer): void {
  const message = JSON.parse(data.toString()) as MutateMessage;
  if (message.type !== 'mutate') return;
  const { opId, mutation } = message;
  const counter = group.counter;
  if (mutation.kind !== 'adjustCounter' || mutation.counterId !== counter.id) {
    socket.send(
      JSON.stringify({
        type: 'error',
        opId,
        error: { code: 'invalid', message: 'Unknown mutation' },
      }),
    );
    return;
  }
  const times = mutation.times ?? 1;
  const step = mutation.direction === 'decrement' ? -counter.decrementStep : counter.incrementStep;
  counter.value += step * times;
  counter.allTime += step * times;
  counter.version += 1;
  group.seq += 1;
  const counterJson = JSON.stringify(counter);
  const opIdJson = JSON.stringify(opId);
  const changes = `{"type":"changes","changes":[{"type":"counter.updated","seq":${group.seq},"counter":${counterJson},"opIds":[${opIdJson}]}]}`;
  for (const peer of group.sockets) peer.send(changes);
  socket.send(
    `{"type":"ack","opId":${opIdJson},"result":{"kind":"counter","counter":${counterJson},"created":false}}`,
  );
}

const httpServer = http.createServer((request, response) => {
  const url = request.url ?? '';
  const name = decodeURIComponent(url.replace(/^\/(groups|value)\//, ''));
  response.setHeader('content-type', 'application/json');
  if (request.method === 'POST' && url.startsWith('/groups/')) {
    const group = groups.get(name) ?? createGroup(name);
    response.end(JSON.stringify({ id: group.counter.id }));
    return;
  }
  if (url.startsWith('/value/')) {
    response.end(JSON.stringify({ value: groups.get(name)?.counter.value ?? null }));
    return;
  }
  response.statusCode = 404;
  response.end('{}');
});

const server = new WebSocketServer({ server: httpServer });
server.on('connection', (socket, request) => {
  const group = groups.get(decodeURIComponent((request.url ?? '/').slice(1)));
  if (!group) {
    socket.close(4404, 'No such group');
    return;
  }
  let joined = false;
  socket.on('message', (data: Buffer) => {
    if (!joined) {
      // The auth message: parsed (as Tally does) and answered with the snapshot.
      JSON.parse(data.toString());
      joined = true;
      group.sockets.add(socket);
      socket.send(readyFrame(group));
      socket.send(PRESENCE_FRAME);
      return;
    }
    mutate(group, socket, data);
  });
  socket.on('close', () => {
    group.sockets.delete(socket);
  });
});

httpServer.listen(port, '127.0.0.1', () => {
  console.log('listening');
});
process.on('SIGTERM', () => {
  process.exit(0);
});
