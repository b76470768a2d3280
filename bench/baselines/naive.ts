/**
 * Baseline 2: the original product's approach. The browser holds the value it last saw and
 * writes `value + step` back as an absolute value; the server stores it and broadcasts the row.
 * Same SQLite settings as Tally, so the difference is the approach. Under concurrent taps it
 * loses increments — which the benchmark counts.
 */
import http from 'node:http';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sqliteDatabase } from '../../src/server/store/sqlite/driver.js';
import { WebSocketServer, type WebSocket } from 'ws';

const port = Number(process.env.PORT ?? 0);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tally-naive-'));
const Sqlite = sqliteDatabase();
const db = new Sqlite(path.join(dir, 'naive.sqlite'));
db.pragma('journal_mode = WAL');
db.pragma('synchronous = FULL');
db.exec('CREATE TABLE counters (id TEXT PRIMARY KEY, value INTEGER NOT NULL)');
const ensure = db.prepare('INSERT INTO counters (id, value) VALUES (?, 0) ON CONFLICT DO NOTHING');
const write = db.prepare('UPDATE counters SET value = ? WHERE id = ?');
const read = db.prepare('SELECT id, value FROM counters WHERE id = ?');

interface SetMessage {
  type: 'mutate';
  opId: string;
  mutation: { counterId: string; patch: { value: number } };
}

const groups = new Map<string, Set<WebSocket>>();
const httpServer = http.createServer((request, response) => {
  // GET /value/{counterId}: the stored value, to count lost increments at the end.
  const id = decodeURIComponent((request.url ?? '').replace('/value/', ''));
  const row = read.get(id) as { value: number } | undefined;
  response.setHeader('content-type', 'application/json');
  response.end(JSON.stringify({ value: row?.value ?? null }));
});
const server = new WebSocketServer({ server: httpServer });

server.on('connection', (socket, request) => {
  const group = request.url ?? '/';
  const counterId = group;
  ensure.run(counterId);
  let members = groups.get(group);
  if (!members) {
    members = new Set();
    groups.set(group, members);
  }
  members.add(socket);
  let first = true;
  socket.on('message', (data: Buffer) => {
    if (first) {
      first = false;
      const row = read.get(counterId);
      socket.send(JSON.stringify({ type: 'ready', counters: [row] }));
      return;
    }
    const message = JSON.parse(data.toString()) as SetMessage;
    write.run(message.mutation.patch.value, message.mutation.counterId);
    const counter = read.get(message.mutation.counterId);
    const frame = JSON.stringify({
      type: 'changes',
      changes: [{ type: 'counter.updated', opId: message.opId, counter }],
    });
    for (const peer of members) peer.send(frame);
  });
  socket.on('close', () => {
    members.delete(socket);
  });
});
httpServer.listen(port, '127.0.0.1', () => {
  console.log('listening');
});
process.on('SIGTERM', () => {
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
  process.exit(0);
});
