/**
 * Write coalescing for live sockets: the first frame for a socket in an event-loop turn corks its
 * TCP stream; every frame of the same turn (a batch's changes, the acks of its taps) joins it,
 * and one uncork after the turn hands them to the kernel in a single write. Under load this turns
 * one syscall per frame into one per socket per turn.
 *
 * It also bounds what sockets that do not read can make the server hold:
 *   - per socket: a frame for a socket that still has more than MAX_BUFFERED_BYTES unread, beyond
 *     its latest large frame (its snapshot, which a reader needs a moment to take in), is not
 *     sent; the socket is closed with 1013 (try again later) and cut off shortly after, since a
 *     peer that does not read will never read the close frame either;
 *   - per client address: a sweep every UNREAD_SWEEP_MS adds up the unread bytes of each
 *     address's sockets; over MAX_UNREAD_BYTES_PER_ADDRESS, its sockets holding the most are
 *     closed the same way until it is under, and until then a large frame (a snapshot) to any of
 *     its sockets closes that socket instead of being queued.
 * So one address pins at most about MAX_UNREAD_BYTES_PER_ADDRESS plus one snapshot (whose size
 * the quotas bound: at most MAX_COUNTERS_PER_GROUP counters), whatever number of sockets it opens,
 * and members elsewhere never wait for it. A closed client reconnects and gets a fresh snapshot.
 */
import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import { textFrame, textFrameStart } from './frames.js';

/** Unread bytes past which a socket gets no more frames and is closed (N). */
export const MAX_BUFFERED_BYTES = 1024 * 1024;
/** Unread bytes all sockets of one client address may hold together (M). */
export const MAX_UNREAD_BYTES_PER_ADDRESS = 32 * 1024 * 1024;
/** Frames from this size on (snapshots) are refused to an address over its unread bytes. */
const LARGE_FRAME_BYTES = 64 * 1024;
/** How often each address's unread bytes are added up, ms. */
export const UNREAD_SWEEP_MS = 1_000;
/** A slow reader told 1013 is cut off this long after, if it has not closed by then, ms. */
const SLOW_READER_GRACE_MS = 1_000;
const TRY_AGAIN_LATER = 1013;
const SLOW_READER_REASON = 'Too slow: reconnect for a fresh snapshot';

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

/** Open sockets by client address, and each socket's address. */
const socketsByAddress = new Map<string, Set<WebSocket>>();
const addressOf = new WeakMap<WebSocket, string>();
/** Each socket's latest large frame, bytes: it may hold that much unread on top of N. */
const largeFrameOf = new WeakMap<WebSocket, number>();
/** Per address: unread bytes at the last sweep plus the frames queued since (≈ bytes). */
const unreadByAddress = new Map<string, number>();
let sweeper: NodeJS.Timeout | undefined;

/**
 * Counts `socket`'s unread bytes towards `address` until it closes (the live hub calls this for
 * every socket it accepts). Sockets without an address are bounded per socket only.
 */
export function trackSocket(socket: WebSocket, address: string | undefined): void {
  if (address === undefined) return;
  let sockets = socketsByAddress.get(address);
  if (!sockets) {
    sockets = new Set();
    socketsByAddress.set(address, sockets);
  }
  sockets.add(socket);
  addressOf.set(socket, address);
  socket.once('close', () => {
    untrack(socket, address);
  });
  sweeper ??= setInterval(sweep, UNREAD_SWEEP_MS).unref();
}

function untrack(socket: WebSocket, address: string): void {
  const sockets = socketsByAddress.get(address);
  sockets?.delete(socket);
  if (sockets?.size === 0) {
    socketsByAddress.delete(address);
    unreadByAddress.delete(address);
  }
  if (socketsByAddress.size === 0 && sweeper !== undefined) {
    clearInterval(sweeper);
    sweeper = undefined;
  }
}

/** Unread bytes the sockets of `address` hold now (tests and diagnostics). */
export function unreadBytesOf(address: string): number {
  let total = 0;
  for (const socket of socketsByAddress.get(address) ?? []) total += socket.bufferedAmount;
  return total;
}

/** Adds up each address's unread bytes; closes its fullest sockets while it is over. */
function sweep(): void {
  for (const [address, sockets] of socketsByAddress) {
    let total = unreadBytesOf(address);
    if (total > MAX_UNREAD_BYTES_PER_ADDRESS) {
      const fullest = [...sockets].sort((a, b) => b.bufferedAmount - a.bufferedAmount);
      for (const socket of fullest) {
        if (total <= MAX_UNREAD_BYTES_PER_ADDRESS || socket.bufferedAmount === 0) break;
        total -= socket.bufferedAmount;
        dropSlowReader(socket);
      }
    }
    unreadByAddress.set(address, total);
  }
}

/** 1013, then cut off: memory held for a peer that does not read is freed within a second. */
function dropSlowReader(socket: WebSocket): void {
  socket.close(TRY_AGAIN_LATER, SLOW_READER_REASON);
  setTimeout(() => {
    socket.terminate();
  }, SLOW_READER_GRACE_MS).unref();
}

/**
 * A text frame written to many sockets (a group's changes, its presence list): its WebSocket
 * bytes are made once (live/frames.ts) and the same buffer is written to every socket's stream,
 * instead of ws encoding the text and framing it again for each socket (ADR 20).
 */
export interface SharedFrame {
  readonly bytes: Buffer;
  /**
   * The rest of the frame, written right after `bytes`: a payload shared by frames that differ
   * only in their first fields (a snapshot's bytes after each `ready` frame's own fields).
   */
  readonly rest?: Buffer;
}

export function shareFrame(text: string): SharedFrame {
  return { bytes: textFrame(text) };
}

/** A text frame of `head` then `rest`, whose `rest` is written by reference, never copied. */
export function shareFrameOf(head: Buffer, rest: Buffer): SharedFrame {
  return { bytes: textFrameStart(head, head.length + rest.length), rest };
}

/** Sends a frame (text for one socket, or a SharedFrame) in the socket's corked turn. */
export function sendCorked(socket: WebSocket, frame: string | SharedFrame): void {
  if (socket.readyState !== socket.OPEN) return;
  if (socket.bufferedAmount > MAX_BUFFERED_BYTES + (largeFrameOf.get(socket) ?? 0)) {
    dropSlowReader(socket);
    return;
  }
  // Text length in UTF-16 units for one socket's frame, bytes for a shared one: both bound
  // memory the same way (a unit is at most 3 bytes).
  const size =
    typeof frame === 'string' ? frame.length : frame.bytes.length + (frame.rest?.length ?? 0);
  if (size >= LARGE_FRAME_BYTES) largeFrameOf.set(socket, size);
  const address = addressOf.get(socket);
  if (address !== undefined) {
    let unread = unreadByAddress.get(address) ?? 0;
    if (size >= LARGE_FRAME_BYTES && unread + size > MAX_UNREAD_BYTES_PER_ADDRESS) {
      // The running figure is only an upper bound: unread bytes at the last sweep plus every
      // frame queued since, read or not. An address whose sockets read everything (members
      // behind one NAT rejoining a large group after a restart) passes it within a second, so
      // the real figure decides, and becomes the new running one.
      unread = unreadBytesOf(address);
      if (unread + size > MAX_UNREAD_BYTES_PER_ADDRESS) {
        unreadByAddress.set(address, unread);
        dropSlowReader(socket);
        return;
      }
    }
    unreadByAddress.set(address, unread + size);
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
  if (typeof frame === 'string') socket.send(frame);
  // Straight to the stream, in order with what ws wrote before (no compression, so ws never
  // holds frames back): the socket is open, so ws has sent no close frame yet.
  else if (stream) {
    stream.write(frame.bytes);
    if (frame.rest) stream.write(frame.rest);
  } else
    socket.send(frame.rest ? Buffer.concat([frame.bytes, frame.rest]) : frame.bytes, {
      binary: false,
    });
}
