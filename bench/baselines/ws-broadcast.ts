/**
 * Baseline 1: a bare `ws` broadcast server — no database, no validation, no batching. Each
 * message a client sends is written to every socket of its group, one write per message: the
 * practical ceiling of the one-write-per-message approach for Node on this machine.
 */
import { WebSocketServer, type WebSocket } from 'ws';

const port = Number(process.env.PORT ?? 0);
const groups = new Map<string, Set<WebSocket>>();
const server = new WebSocketServer({ port, host: '127.0.0.1' });

server.on('connection', (socket, request) => {
  const group = request.url ?? '/';
  let members = groups.get(group);
  if (!members) {
    members = new Set();
    groups.set(group, members);
  }
  members.add(socket);
  let first = true;
  socket.on('message', (data, isBinary) => {
    if (first) {
      // The auth message: answered so clients can start, otherwise ignored.
      first = false;
      socket.send('{"type":"ready","counters":[]}');
      return;
    }
    for (const peer of members) peer.send(data, { binary: isBinary });
  });
  socket.on('close', () => {
    members.delete(socket);
  });
});
server.on('listening', () => {
  console.log('listening');
});
