/**
 * WebSocket text frames made once for many sockets (live/frames.ts): each length form of RFC 6455
 * (7-bit, 16-bit, 64-bit) and multi-byte text, read back by a real `ws` client through a server
 * that writes the bytes straight to its socket, as the live channel does.
 */
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { shareFrame, shareFrameOf } from '../../src/server/live/corked.js';
import { textFrame } from '../../src/server/live/frames.js';
import { frameText } from '../helpers/frames.js';

const texts = {
  empty: '',
  short: '{"type":"changes"}',
  longest7bit: 'x'.repeat(125),
  first16bit: 'x'.repeat(126),
  longest16bit: 'x'.repeat(65_535),
  first64bit: 'x'.repeat(65_536),
  unicode: '{"name":"Café ☕ — 𝄞"}',
};

describe('textFrame', () => {
  it('uses the shortest length form and round-trips the text', () => {
    expect(textFrame(texts.longest7bit).length).toBe(2 + 125);
    expect(textFrame(texts.first16bit).length).toBe(4 + 126);
    expect(textFrame(texts.longest16bit).length).toBe(4 + 65_535);
    expect(textFrame(texts.first64bit).length).toBe(10 + 65_536);
    for (const text of Object.values(texts)) expect(frameText(shareFrame(text))).toBe(text);
  });

  it('counts the payload in UTF-8 bytes, not characters', () => {
    const frame = textFrame(texts.unicode);
    expect(frame[1]).toBe(Buffer.byteLength(texts.unicode));
  });
});

describe('shareFrameOf', () => {
  it('frames a head and a shared rest as one text of their bytes, in each length form', () => {
    const rest = Buffer.from(texts.unicode);
    for (const head of Object.values(texts)) {
      const frame = shareFrameOf(Buffer.from(head), rest);
      expect(frame.rest).toBe(rest);
      expect(frameText(frame)).toBe(head + texts.unicode);
    }
  });

  it('announces the whole payload in the first bytes, whatever part the rest is', () => {
    const rest = Buffer.from('x'.repeat(65_536));
    const frame = shareFrameOf(Buffer.from('{"type":"ready",'), rest);
    expect(frame.bytes.length).toBe(10 + '{"type":"ready",'.length);
    expect(Number(frame.bytes.readBigUInt64BE(2))).toBe('{"type":"ready",'.length + 65_536);
  });
});

describe('a shared frame written straight to the socket', () => {
  let server: WebSocketServer;
  let url: string;

  beforeAll(async () => {
    server = new WebSocketServer({ port: 0, host: '127.0.0.1', perMessageDeflate: false });
    await once(server, 'listening');
    url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}`;
    server.on('connection', (socket) => {
      const stream = (socket as unknown as { _socket: NodeJS.WritableStream })._socket;
      // A frame through ws, then the shared ones straight to the stream, in order.
      socket.send('first');
      for (const text of Object.values(texts)) stream.write(textFrame(text));
      // A frame in two writes whose second part is shared (a snapshot's bytes).
      const twoPart = shareFrameOf(Buffer.from('{"head":1,'), Buffer.from('"tail":"é"}'));
      stream.write(twoPart.bytes);
      if (twoPart.rest) stream.write(twoPart.rest);
    });
  });

  afterAll(() => {
    server.close();
  });

  it('reaches a ws client as text messages, in order, after what ws sent', async () => {
    const client = new WebSocket(url);
    const expected = ['first', ...Object.values(texts), '{"head":1,"tail":"é"}'];
    const received: { text: string; binary: boolean }[] = [];
    await new Promise<void>((resolve, reject) => {
      client.on('message', (data, isBinary) => {
        received.push({ text: (data as Buffer).toString('utf8'), binary: isBinary });
        if (received.length === expected.length) resolve();
      });
      client.on('error', reject);
    });
    client.close();
    expect(received.map((message) => message.text)).toEqual(expected);
    expect(received.every((message) => !message.binary)).toBe(true);
  });
});
