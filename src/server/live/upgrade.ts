/**
 * WebSocket upgrades for the live channel, straight from the HTTP server to `ws`. Going around
 * the router keeps nothing of the upgrade request alive for the socket's lifetime: an idle
 * member costs about 9 KB of server memory (BENCHMARKS.md), well under a routed socket.
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { MESSAGES } from '../../shared/messages.js';
import { lingerThenDestroy } from '../security/connection-limits.js';
import { rawErrorResponse } from '../security/headers.js';
import type { LiveHub } from './hub.js';

/** Largest live message a client may send, bytes. */
export const LIVE_MAX_PAYLOAD_BYTES = 64 * 1024;

const LIVE_PATH = /^\/api\/groups\/([^/?#]+)\/live(?:[?#].*)?$/;

export interface LiveUpgrades {
  /** Stops accepting live connections (the hub closes the open ones). */
  close(): Promise<void>;
}

export function acceptLiveUpgrades(
  server: Server,
  hub: LiveHub,
  /** The client's address (behind a trusted proxy, from X-Forwarded-For): the key limits use it. */
  clientAddress: (request: IncomingMessage) => string | undefined = (request) =>
    request.socket.remoteAddress,
  /** Whether this client may open one more live socket (security/connection-limits.ts). */
  admit: (request: IncomingMessage, address: string | undefined) => boolean = () => true,
): LiveUpgrades {
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: LIVE_MAX_PAYLOAD_BYTES,
    // Frames are small JSON; compression would cost CPU and ~300 KB of zlib state per socket.
    perMessageDeflate: false,
  });
  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const match = LIVE_PATH.exec(request.url ?? '');
    const rawName = match?.[1];
    let groupName: string | undefined;
    try {
      groupName = rawName === undefined ? undefined : decodeURIComponent(rawName);
    } catch {
      groupName = undefined;
    }
    if (groupName === undefined) {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    const name = groupName;
    const address = clientAddress(request);
    if (!admit(request, address)) {
      if (socket.writable) {
        socket.end(
          rawErrorResponse(429, 'too_many_connections', MESSAGES.tooManyConnections, {
            'retry-after': '1',
          }),
        );
      }
      lingerThenDestroy(socket);
      return;
    }
    wss.handleUpgrade(request, socket, head, (ws) => {
      hub.attach(ws, name, address);
    });
  };
  server.on('upgrade', onUpgrade);
  return {
    close: () =>
      new Promise((resolve) => {
        server.off('upgrade', onUpgrade);
        wss.close(() => {
          resolve();
        });
      }),
  };
}
