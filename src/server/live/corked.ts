/**
 * Write coalescing for live sockets: the first frame for a socket in an event-loop turn corks its
 * TCP stream; every frame of the same turn (a batch's changes, the acks of its taps) joins it,
 * and one uncork after the turn hands them to the kernel in a single write. Under load this turns
 * one syscall per frame into one per socket per turn.
 */
import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';

const corked = new Set<Duplex>();
let scheduled = false;

function uncorkAll(): void {
  scheduled = false;
  for (const stream of corked) stream.uncork();
  corked.clear();
}

/** The TCP stream under a ws socket (ws keeps it private; it is there for every open socket). */
function streamOf(socket: WebSocket): Duplex | undefined {
  return (socket as unknown as { _socket?: Duplex })._socket;
}

/**
 * A socket whose peer stopped reading holds every frame in server memory. Past this many bytes
 * waiting it is closed (1013, "try again later"); the client reconnects and gets a fresh
 * snapshot, so it loses nothing but the backlog.
 */
export const MAX_BUFFERED_BYTES = 1024 * 1024;
const TRY_AGAIN_LATER = 1013;

export function sendCorked(socket: WebSocket, frame: string): void {
  if (socket.readyState !== socket.OPEN) return;
  if (socket.bufferedAmount > MAX_BUFFERED_BYTES) {
    socket.close(TRY_AGAIN_LATER, 'Too slow: reconnect for a fresh snapshot');
    return;
  }
  const stream = streamOf(socket);
  if (stream && !corked.has(stream)) {
    stream.cork();
    corked.add(stream);
    if (!scheduled) {
      scheduled = true;
      setImmediate(uncorkAll);
    }
  }
  socket.send(frame);
}
