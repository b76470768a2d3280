/** Write coalescing and the slow-consumer limit of live sockets. */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { WebSocket } from 'ws';
import {
  MAX_BUFFERED_BYTES,
  MAX_UNREAD_BYTES_PER_ADDRESS,
  sendCorked,
  trackSocket,
} from '../../src/server/live/corked.js';

class FakeSocket {
  readonly OPEN = 1;
  readyState = 1;
  bufferedAmount = 0;
  readonly sent: string[] = [];
  closedWith: { code: number; reason: string } | undefined;
  readonly _socket = new PassThrough();
  corkedWhileSending: boolean[] = [];
  /** Whether this peer leaves what it is sent unread (bufferedAmount grows) or reads it. */
  reads = true;
  send(frame: string): void {
    this.corkedWhileSending.push(this._socket.writableCorked > 0);
    this.sent.push(frame);
    if (!this.reads) this.bufferedAmount += frame.length;
  }
  once(_event: 'close', _listener: () => void): void {
    // Never closes by itself here.
  }
  close(code: number, reason: string): void {
    this.closedWith = { code, reason };
  }
}

const asWs = (socket: FakeSocket) => socket as unknown as WebSocket;

describe('corked live writes', () => {
  it('corks the stream for the rest of the turn and uncorks once after it', async () => {
    const socket = new FakeSocket();
    sendCorked(asWs(socket), 'a');
    sendCorked(asWs(socket), 'b');
    expect(socket.sent).toEqual(['a', 'b']);
    expect(socket.corkedWhileSending).toEqual([true, true]);
    expect(socket._socket.writableCorked).toBe(1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(socket._socket.writableCorked).toBe(0);
  });

  it('closes a socket with 1013 instead of buffering past the limit', () => {
    const socket = new FakeSocket();
    socket.bufferedAmount = MAX_BUFFERED_BYTES + 1;
    sendCorked(asWs(socket), 'frame');
    expect(socket.sent).toEqual([]);
    expect(socket.closedWith?.code).toBe(1013);
  });

  it('sends nothing to a socket that is no longer open', () => {
    const socket = new FakeSocket();
    socket.readyState = 3;
    sendCorked(asWs(socket), 'frame');
    expect(socket.sent).toEqual([]);
  });

  // Frames of a large group's snapshot (≥ 64 KB): the per-address bound counts these.
  const snapshot = 'x'.repeat(100_000);
  /** More snapshots than fit under the per-address bound, all within one sweep (no timer runs). */
  const snapshotsPastTheBound = Math.ceil((2 * MAX_UNREAD_BYTES_PER_ADDRESS) / snapshot.length);

  it('keeps every socket of an address that reads, however many snapshots it gets within a sweep', () => {
    // Members behind one NAT rejoining a large group: 2 × the bound sent in well under a second,
    // all of it read at once. Found by the live fuzz test, whose sockets all come from 127.0.0.1.
    const sockets = Array.from({ length: 50 }, () => new FakeSocket());
    for (const socket of sockets) trackSocket(asWs(socket), '198.51.100.1');
    for (let i = 0; i < snapshotsPastTheBound; i++) {
      sendCorked(asWs(sockets[i % sockets.length] as FakeSocket), snapshot);
    }
    expect(sockets.filter((socket) => socket.closedWith !== undefined)).toEqual([]);
    expect(sockets.reduce((sent, socket) => sent + socket.sent.length, 0)).toBe(
      snapshotsPastTheBound,
    );
  });

  it('closes sockets of an address with 1013 once what they leave unread passes the bound', () => {
    const sockets = Array.from({ length: 50 }, () => new FakeSocket());
    for (const socket of sockets) {
      socket.reads = false;
      trackSocket(asWs(socket), '198.51.100.2');
    }
    for (let i = 0; i < snapshotsPastTheBound; i++) {
      sendCorked(asWs(sockets[i % sockets.length] as FakeSocket), snapshot);
    }
    const unread = sockets.reduce((total, socket) => total + socket.bufferedAmount, 0);
    expect(unread).toBeLessThanOrEqual(MAX_UNREAD_BYTES_PER_ADDRESS);
    expect(sockets.some((socket) => socket.closedWith?.code === 1013)).toBe(true);
  });
});
