/**
 * WebSocket upgrades for the live channel, straight from the HTTP server to `ws`. Going around
 * the router keeps nothing of the upgrade request alive for the socket's lifetime: an idle
 * member costs about 9 KB of server memory (docs/benchmarks.md, "Full preset"), well under a
 * routed socket.
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { MESSAGES } from '../../shared/messages.js';
import { lingerThenDestroy } from '../security/connection-limits.js';
import { rawErrorResponse, type RawErrorAnswer } from '../security/headers.js';
import type { LiveHub } from './hub.js';

/** Largest live message a client may send, bytes. */
export const LIVE_MAX_PAYLOAD_BYTES = 64 * 1024;

const LIVE_PATH = /^\/api\/groups\/([^/?#]+)\/live(?:[?#].*)?$/;

/**
 * How long a stopping server waits for its sockets' close handshakes, ms: a peer that never
 * answers the close frame is cut then, rather than after ws's own close timeout (30 s).
 */
export const LIVE_CLOSE_GRACE_MS = 2_000;

export interface LiveUpgrades {
  /**
   * Stops accepting live connections and resolves once the open ones (the hub closes them) have
   * closed, at most LIVE_CLOSE_GRACE_MS later.
   */
  close(): Promise<void>;
}

export interface LiveUpgradeOptions {
  /** The client's address (behind a trusted proxy, from X-Forwarded-For): the key limits use it. */
  clientAddress?: (request: IncomingMessage) => string | undefined;
  /** Whether this client may open one more live socket (security/connection-limits.ts). */
  admit?: (request: IncomingMessage, address: string | undefined) => boolean;
}

export function acceptLiveUpgrades(
  server: Server,
  hub: LiveHub,
  {
    clientAddress = (request) => request.socket.remoteAddress,
    admit = () => true,
  }: LiveUpgradeOptions = {},
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
      refuse(socket, { status: 404, code: 'not_found', message: MESSAGES.notFound });
      return;
    }
    const name = groupName;
    const address = clientAddress(request);
    if (!admit(request, address)) {
      refuse(socket, {
        status: 429,
        code: 'too_many_connections',
        message: MESSAGES.tooManyConnections,
        headers: { 'retry-after': '1' },
      });
      return;
    }
    wss.handleUpgrade(request, socket, head, (ws) => {
      hub.attach(ws, name, address);
    });
  };
  // A handshake ws cannot accept (no Sec-WebSocket-Key, another version…) is answered in Tally's
  // error shape too, rather than ws's plain text.
  wss.on('wsClientError', (_error: Error, socket: Duplex) => {
    refuse(socket, {
      status: 400,
      code: 'validation_failed',
      message: MESSAGES.malformedRequest,
      headers: { 'sec-websocket-version': '13' },
    });
  });
  server.on('upgrade', onUpgrade);
  return {
    close: () =>
      new Promise((resolve) => {
        server.off('upgrade', onUpgrade);
        const cut = setTimeout(() => {
          for (const socket of wss.clients) socket.terminate();
        }, LIVE_CLOSE_GRACE_MS);
        wss.close(() => {
          clearTimeout(cut);
          resolve();
        });
      }),
  };
}

/** Answers an upgrade request in Tally's error shape and closes its socket. */
function refuse(socket: Duplex, answer: RawErrorAnswer): void {
  if (socket.writable) socket.end(rawErrorResponse(answer));
  lingerThenDestroy(socket);
}
