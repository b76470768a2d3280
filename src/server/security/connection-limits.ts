/**
 * Connection limits at the edge (docs/api.md "Limits"): how many sockets one client
 * address may hold open, how many the whole process may hold, and how long a request may take
 * to arrive. One client holding its cap from one address costs another address nothing: the
 * count is per address, and a refused socket is answered with a fixed string and closed before
 * any request on it is read or routed.
 */
import fs from 'node:fs';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import proxyaddr from '@fastify/proxy-addr';
import type { FastifyServerFactoryHandler } from 'fastify';
import { MESSAGES } from '../../shared/messages.js';
import type { TrustProxy } from './client-address.js';
import { rawErrorResponse } from './headers.js';
import type { RefusalLog } from './refusal-log.js';

export interface EdgeTimeouts {
  /** A request's headers must all arrive within this, ms (Node's headersTimeout). */
  headersMs: number;
  /** A whole request, body included, must arrive within this, ms (Node's requestTimeout). */
  requestMs: number;
  /** An idle keep-alive connection is closed after this, ms. */
  keepAliveMs: number;
  /** How often the two bounds above are checked, ms (Node checks every 30 s by default). */
  checkEveryMs: number;
}

export const DEFAULT_EDGE_TIMEOUTS: EdgeTimeouts = {
  headersMs: 10_000,
  requestMs: 30_000,
  keepAliveMs: 5_000,
  checkEveryMs: 1_000,
};

/** The process's whole connection ceiling when its descriptor limit cannot be read. */
export const FALLBACK_MAX_CONNECTIONS = 10_000;
/** Descriptors kept for everything but client sockets (database files, PostgreSQL pool, logs,
 * the web app's files): at least this many, … */
const MIN_DESCRIPTOR_HEADROOM = 256;
/** … or this share of the limit if larger. */
const DESCRIPTOR_HEADROOM_SHARE = 0.1;
/** A socket answered for a malformed or slow request is destroyed this long after the answer,
 * ms: long enough for the answer to be read, short enough to cost no lasting descriptor. */
export const ANSWERED_LINGER_MS = 1_000;
/** The same for a socket refused over its address's cap, ms: shorter, as these come in floods. */
export const REFUSED_LINGER_MS = 250;

/**
 * How many sockets the whole process may hold open (Node's server.maxConnections): below the
 * descriptor limit with headroom, so a flood of sockets never leaves the server without
 * descriptors for its database. Node raises its soft limit to the hard one at start-up; this reads
 * the limit in force from /proc/self/limits on Linux and falls back to a constant elsewhere.
 */
export function processConnectionCeiling(
  readLimits: () => string = () => fs.readFileSync('/proc/self/limits', 'utf8'),
): number {
  let soft: number | undefined;
  try {
    const line = readLimits()
      .split('\n')
      .find((text) => text.startsWith('Max open files'));
    const value = line?.slice('Max open files'.length).trim().split(/\s+/)[0];
    if (value !== undefined && /^\d+$/.test(value)) soft = Number(value);
  } catch {
    soft = undefined;
  }
  if (soft === undefined) return FALLBACK_MAX_CONNECTIONS;
  const headroom = Math.max(MIN_DESCRIPTOR_HEADROOM, Math.ceil(soft * DESCRIPTOR_HEADROOM_SHARE));
  return Math.max(1, soft - headroom);
}

/** `::ffff:1.2.3.4` and `1.2.3.4` are one client. */
function normalize(address: string | undefined): string | undefined {
  return address?.startsWith('::ffff:') ? address.slice('::ffff:'.length) : address;
}

/** Open sockets per address, never more than `max` each. */
class AddressCounts {
  private readonly counts = new Map<string, number>();
  constructor(private readonly max: number) {}

  tryAcquire(address: string): boolean {
    const count = this.counts.get(address) ?? 0;
    if (count >= this.max) return false;
    this.counts.set(address, count + 1);
    return true;
  }

  release(address: string): void {
    const count = (this.counts.get(address) ?? 0) - 1;
    // Addresses with no open socket are forgotten: memory follows the sockets open now.
    if (count <= 0) this.counts.delete(address);
    else this.counts.set(address, count);
  }
}

export interface ConnectionLimitsOptions {
  /** Open sockets per client address, HTTP and live alike (limitsOf(config).connectionsPerAddress). */
  perAddress: number;
  trustProxy: TrustProxy;
  timeouts: EdgeTimeouts;
  refusals: RefusalLog;
  /** The whole process's ceiling; processConnectionCeiling() by default. */
  maxConnections?: number;
}

export class ConnectionLimits {
  /** TCP sockets per peer address (proxies that are trusted excepted). */
  private readonly sockets: AddressCounts;
  /** Live sockets per client address, for clients reaching us through a trusted proxy. */
  private readonly liveBehindProxy: AddressCounts;
  /** Sockets answered 429 at connection: their requests are never routed. */
  private readonly refused = new WeakSet<Socket>();
  /** Sockets already answered for a client error (Node may report one socket several times). */
  private readonly answered = new WeakSet<Socket>();
  /** Refused sockets per address, answered and not yet closed. */
  private readonly refusing: AddressCounts;
  private readonly isTrustedProxy: (address: string) => boolean;
  /** The refusal, written once. */
  private readonly tooManyConnections = rawErrorResponse({
    status: 429,
    code: 'too_many_connections',
    message: MESSAGES.tooManyConnections,
    headers: { 'retry-after': '1' },
  });

  constructor(private readonly options: ConnectionLimitsOptions) {
    this.sockets = new AddressCounts(options.perAddress);
    this.liveBehindProxy = new AddressCounts(options.perAddress);
    this.refusing = new AddressCounts(options.perAddress);
    const { trustProxy } = options;
    if (trustProxy === false) this.isTrustedProxy = () => false;
    else if (trustProxy === true) this.isTrustedProxy = () => true;
    else {
      const trusted = proxyaddr.compile(trustProxy);
      this.isTrustedProxy = (address) => trusted(address, 0);
    }
  }

  /** Fastify's serverFactory: a plain HTTP server with Tally's timeouts and connection caps. */
  readonly serverFactory = (handler: FastifyServerFactoryHandler): http.Server => {
    const { timeouts } = this.options;
    const server = http.createServer(
      {
        headersTimeout: timeouts.headersMs,
        requestTimeout: timeouts.requestMs,
        keepAliveTimeout: timeouts.keepAliveMs,
        connectionsCheckingInterval: timeouts.checkEveryMs,
        // Node would answer a missing Host with a bare 400 of its own; Tally answers it below.
        requireHostHeader: false,
      },
      (request: IncomingMessage, response: ServerResponse) => {
        // A refused socket was answered already; a request read from it anyway is not routed.
        if (this.refused.has(request.socket)) return;
        if (request.httpVersion === '1.1' && request.headers.host === undefined) {
          // HTTP/1.1 requires Host (RFC 9112 §3.2): refused in Tally's shape, as Node would.
          response.shouldKeepAlive = false;
          request.socket.end(
            rawErrorResponse({
              status: 400,
              code: 'validation_failed',
              message: MESSAGES.malformedRequest,
            }),
          );
          lingerThenDestroy(request.socket);
          return;
        }
        handler(request, response);
      },
    );
    // An Expect other than 100-continue: Node would answer a bare 417 of its own.
    server.on('checkExpectation', (request: IncomingMessage) => {
      request.socket.end(
        rawErrorResponse({
          status: 417,
          code: 'validation_failed',
          message: MESSAGES.malformedRequest,
        }),
      );
      lingerThenDestroy(request.socket);
    });
    server.keepAliveTimeout = timeouts.keepAliveMs;
    server.maxConnections = this.options.maxConnections ?? processConnectionCeiling();
    // Over maxConnections Node closes the socket at once, before any of Tally's code runs.
    server.on('drop', (data?: { remoteAddress?: string }) => {
      this.options.refusals.note(normalize(data?.remoteAddress), 'server_connection_ceiling');
    });
    // First among the connection listeners: a refused socket is answered before Node reads it.
    server.prependListener('connection', (socket: Socket) => {
      this.admit(socket);
    });
    return server;
  };

  /** Fastify's clientErrorHandler: malformed, too slow or oversized requests, in Tally's shape. */
  readonly clientErrorHandler = (error: NodeJS.ErrnoException, socket: Socket): void => {
    if (error.code === 'ECONNRESET' || socket.destroyed || this.answered.has(socket)) return;
    this.answered.add(socket);
    // A connection that never sent a byte (a browser's preconnect, a port scan) is closed
    // quietly: an answer to no request would only confuse the client that opened it.
    if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT' && socket.bytesRead === 0) {
      socket.destroy();
      return;
    }
    const answer = clientErrorAnswer(error.code);
    this.options.refusals.note(normalize(socket.remoteAddress), answer.code);
    // An answer already under way on this socket cannot be followed by another.
    const inFlight = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
    if (socket.writable && inFlight?.headersSent !== true) {
      socket.end(rawErrorResponse(answer));
      lingerThenDestroy(socket);
    } else {
      socket.destroy();
    }
  };

  /**
   * A live upgrade from `address` (the client's, from X-Forwarded-For behind a trusted proxy).
   * Behind a trusted proxy the TCP count does not see clients, so their live sockets are counted
   * here; a direct client was counted when it connected. False: refuse it.
   */
  admitLive(request: IncomingMessage, address: string | undefined): boolean {
    if (this.refused.has(request.socket)) return false;
    const peer = normalize(request.socket.remoteAddress);
    if (peer === undefined || !this.isTrustedProxy(peer)) return true;
    const client = normalize(address) ?? peer;
    if (client === peer) return true;
    if (!this.liveBehindProxy.tryAcquire(client)) {
      this.options.refusals.note(client, 'too_many_connections');
      return false;
    }
    request.socket.once('close', () => {
      this.liveBehindProxy.release(client);
    });
    return true;
  }

  private admit(socket: Socket): void {
    const address = normalize(socket.remoteAddress);
    // A proxy carries many clients: its own connections are not capped (their live sockets are,
    // per client, in admitLive).
    if (address === undefined || this.isTrustedProxy(address)) return;
    if (this.sockets.tryAcquire(address)) {
      socket.once('close', () => {
        this.sockets.release(address);
      });
      return;
    }
    this.refused.add(socket);
    this.answered.add(socket);
    this.options.refusals.note(address, 'too_many_connections');
    socket.on('error', () => undefined);
    // Refused sockets still waiting to be read are bounded per address too, so one address holds
    // at most 2 × its cap of descriptors however fast it connects: beyond, no answer at all.
    if (!this.refusing.tryAcquire(address)) {
      socket.destroy();
      return;
    }
    socket.once('close', () => {
      this.refusing.release(address);
    });
    socket.end(this.tooManyConnections);
    lingerThenDestroy(socket, REFUSED_LINGER_MS);
  }
}

/** The answer to a request Node could not read: timed out, headers too large, or malformed. */
function clientErrorAnswer(code: string | undefined): {
  status: number;
  code: 'request_timeout' | 'headers_too_large' | 'validation_failed';
  message: string;
} {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT')
    return { status: 408, code: 'request_timeout', message: MESSAGES.requestTimeout };
  if (code === 'HPE_HEADER_OVERFLOW')
    return { status: 431, code: 'headers_too_large', message: MESSAGES.headersTooLarge };
  return { status: 400, code: 'validation_failed', message: MESSAGES.malformedRequest };
}

/** Gives the answer time to be read, then frees the descriptor whatever the client does. */
export function lingerThenDestroy(socket: Duplex, lingerMs = ANSWERED_LINGER_MS): void {
  const timer = setTimeout(() => {
    socket.destroy();
  }, lingerMs);
  timer.unref();
  socket.once('close', () => {
    clearTimeout(timer);
  });
}
