/** Write coalescing and the slow-consumer limit of live sockets. */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { WebSocket } from 'ws';
import { MAX_BUFFERED_BYTES, sendCorked } from '../../src/server/live/corked.js';

class FakeSocket {
  readonly OPEN = 1;
  readyState = 1;
  bufferedAmount = 0;
  readonly sent: string[] = [];
  closedWith: { code: number; reason: string } | undefined;
  readonly _socket = new PassThrough();
  corkedWhileSending: boolean[] = [];
  send(frame: string): void {
    this.corkedWhileSending.push(this._socket.writableCorked > 0);
    this.sent.push(frame);
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
});
