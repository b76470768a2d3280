/**
 * Sending one alert: a POST to a destination a stranger chose (a generic webhook, Slack,
 * Discord, ntfy), made safe for the server to send.
 *
 * - The URL is checked first (destination.ts): https:// only, no credentials, at most 2,048
 *   characters, and a host that is, or resolves only to, public addresses.
 * - The connection resolves the name again through a lookup that refuses any answer holding a
 *   refused address, so a name that answers a public address to the check and a private one a
 *   moment later (DNS rebinding) still cannot reach the server's network.
 * - A redirect is not followed (it would lead anywhere): a 3xx is a failed delivery.
 * - The body is at most maxBodyBytes; at most 1 KB of the answer is read; the whole exchange,
 *   the check's lookup included, ends after timeoutMs.
 * - It never throws for a network failure, and logs nothing: the URL of a Slack or Discord
 *   webhook is the secret that lets anyone post, so it appears in no result and no log.
 * - Requests go out through undici's Client (one origin, one socket; ADR 29): no proxy from the
 *   environment, no redirect followed.
 * - The alert sender keeps one connection open per destination between its alerts
 *   (DestinationClient): its URL is checked once, and each new connection resolves the name
 *   through the same checked lookup, so a kept connection only ever leads to an address that was
 *   checked when it was made.
 */
import type { LookupFunction } from 'node:net';
import { Client } from 'undici';
import type { AddressRange } from './addresses.js';
import {
  type DestinationOptions,
  type DestinationRefusal,
  type Resolver,
  checkAddresses,
  checkDestinationUrl,
  resolveAndCheck,
  systemResolver,
  unresolvable,
} from './destination.js';

export { classifyAddress, rangeAllowed, type AddressRange } from './addresses.js';
export {
  MAX_DESTINATION_URL_LENGTH,
  checkDestinationUrl,
  resolveAndCheck,
  systemResolver,
  type DestinationCheck,
  type DestinationOptions,
  type DestinationProblem,
  type DestinationRefusal,
  type ResolutionCheck,
  type Resolver,
} from './destination.js';

export const DEFAULT_TIMEOUT_MS = 5_000;
/**
 * How long a destination's kept connection may wait unused before it is closed, ms. A receiver
 * that says a shorter `Keep-Alive: timeout` is believed (the connection is let go
 * KEEP_ALIVE_MARGIN_MS before it).
 */
export const KEEP_ALIVE_IDLE_MS = 30_000;
/** How much sooner than a receiver's `Keep-Alive: timeout` its connection is let go, ms. */
const KEEP_ALIVE_MARGIN_MS = 1_000;
export const DEFAULT_MAX_BODY_BYTES = 4_096;
/** How much of the destination's answer is read: enough to finish a short reply, no more. */
export const MAX_RESPONSE_BYTES = 1_024;

export interface OutboundRequest {
  url: string;
  body: string | Uint8Array;
  headers?: Readonly<Record<string, string>>;
}

export interface DeliveryOptions extends DestinationOptions {
  /** The whole delivery, lookups, connection and answer included. Default 5 s. */
  timeoutMs?: number;
  /** The largest body sent, in bytes; a larger one is refused unsent. Default 4,096. */
  maxBodyBytes?: number;
  /** How host names are resolved, at the check and at the connection. Default: dns.lookup. */
  resolver?: Resolver;
}

/** Why a delivery failed. */
export type DeliveryFailure =
  | DestinationRefusal['code']
  | 'body_too_large'
  | 'invalid_request'
  | 'timeout'
  | 'redirect'
  | 'http_status'
  | 'network';

export interface DeliveryResult {
  /** The destination answered 2xx. */
  ok: boolean;
  /** The destination's status, when it answered. */
  status?: number;
  /** Why it failed, for the program. */
  code?: DeliveryFailure;
  /** Why it failed, in a sentence for the group's members; never the URL. */
  error?: string;
  /** For a refused address, which kind it was. */
  range?: AddressRange;
  durationMs: number;
}

/** Headers the transport sets itself: a caller's would describe the wrong body or host. */
const TRANSPORT_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection']);

/** The error a refused lookup fails the connection with; deliver() turns it into a result. */
class RefusedLookupError extends Error {
  readonly code: string;
  constructor(readonly refusal: DestinationRefusal) {
    super(refusal.message);
    this.code = refusal.code;
  }
}

/** The families net.connect may ask for: 0 (any), 4, 6, or their names. */
function wantedFamily(family: number | string | undefined): 4 | 6 | undefined {
  if (family === 4 || family === 'IPv4') return 4;
  if (family === 6 || family === 'IPv6') return 6;
  return undefined;
}

/**
 * A lookup for net.connect that resolves through `resolver` and refuses the connection when any
 * address of the answer may not be reached: the check that holds at the moment of connecting.
 */
export function guardedLookup(
  options: DestinationOptions & { resolver?: Resolver },
): LookupFunction {
  const resolver = options.resolver ?? systemResolver;
  return (hostname, lookupOptions, callback) => {
    resolver(hostname).then(
      (answer) => {
        const checked = checkAddresses(answer, options);
        if (!checked.ok) {
          callback(new RefusedLookupError(checked), '');
          return;
        }
        const family = wantedFamily(lookupOptions.family);
        const usable = checked.addresses.filter(
          (entry) => family === undefined || entry.family === family,
        );
        const first = usable[0];
        if (first === undefined) {
          callback(new RefusedLookupError(unresolvable()), '');
        } else if (lookupOptions.all === true) {
          callback(null, [...usable]);
        } else {
          callback(null, first.address, first.family);
        }
      },
      () => {
        callback(new RefusedLookupError(unresolvable()), '');
      },
    );
  };
}

/** Headers as sent: the caller's, less the transport's own, with the body's length. */
function outgoingHeaders(
  headers: Readonly<Record<string, string>> | undefined,
  length: number,
): Record<string, string> {
  const sent: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (!TRANSPORT_HEADERS.has(name.toLowerCase())) sent[name] = value;
  }
  sent['content-length'] = String(length);
  return sent;
}

/** A refused destination as a delivery result. */
function refusalOf(refusal: DestinationRefusal): Omit<DeliveryResult, 'durationMs'> {
  const { code, message, range } = refusal;
  return range === undefined
    ? { ok: false, code, error: message }
    : { ok: false, code, error: message, range };
}

/** What a failed request's error means for the result. */
function failureOf(error: unknown): Omit<DeliveryResult, 'durationMs'> {
  if (error instanceof RefusedLookupError) return refusalOf(error.refusal);
  return { ok: false, code: 'network', error: 'The destination could not be reached' };
}

/** What an answer's status means for the result. */
function answerOf(status: number): Omit<DeliveryResult, 'durationMs'> {
  if (status >= 200 && status < 300) return { ok: true, status };
  if (status >= 300 && status < 400) {
    return {
      ok: false,
      status,
      code: 'redirect',
      error: `The destination answered with a redirect (${status}), which alerts do not follow`,
    };
  }
  return { ok: false, status, code: 'http_status', error: `The destination answered ${status}` };
}

const TIMED_OUT = Symbol('timed out');

/** The promise's value, or TIMED_OUT after `ms` (the promise is left to settle unheard). */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | typeof TIMED_OUT> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(() => {
      resolve(TIMED_OUT);
    }, ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function timedOut(timeoutMs: number): Omit<DeliveryResult, 'durationMs'> {
  return {
    ok: false,
    code: 'timeout',
    error: `The destination did not answer within ${(timeoutMs / 1000).toLocaleString('en-US')} s`,
  };
}

/**
 * Errors of a request that failed before any answer because its connection went: a kept
 * connection the destination closed while it waited unused fails so as it is reused.
 */
const CONNECTION_LOST = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE']);

/** undici's errors for a request it refused to write (a header it cannot send). */
const INVALID_REQUEST = new Set([
  'UND_ERR_INVALID_ARG',
  'ERR_INVALID_CHAR',
  'ERR_INVALID_ARG_VALUE',
]);

/** undici's errors for a connection, an answer's headers or its body that took too long. */
const TIMED_OUT_CODES = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

/** The error's `code`, when it has one. */
function codeOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : '';
}

/**
 * A connection to one origin (undici's Client: one socket, kept open between requests for
 * KEEP_ALIVE_IDLE_MS, or less when the destination says so) that resolves the host through
 * `lookup` each time it connects. No proxy from the environment, no redirect followed.
 */
function connectionTo(url: URL, lookup: LookupFunction, timeoutMs: number): Client {
  // Whole ms, as undici takes them.
  timeoutMs = Math.max(1, Math.ceil(timeoutMs));
  return new Client(url.origin, {
    connect: { lookup, timeout: timeoutMs },
    keepAliveTimeout: KEEP_ALIVE_IDLE_MS,
    keepAliveMaxTimeout: KEEP_ALIVE_IDLE_MS,
    keepAliveTimeoutThreshold: KEEP_ALIVE_MARGIN_MS,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    pipelining: 1,
  });
}

/**
 * POSTs the body to a URL the URL check and both address checks allow, over `connection`,
 * within timeoutMs. A request that fails before any answer because its connection went is sent
 * once more (on a new connection): a receiver drops a repeated webhook-id.
 */
async function post(
  url: URL,
  request: { body: Buffer; headers: Record<string, string>; connection: Client },
  timeoutMs: number,
): Promise<Omit<DeliveryResult, 'durationMs'>> {
  const abort = new AbortController();
  const timer = setTimeout(() => {
    abort.abort();
  }, timeoutMs);
  const path = `${url.pathname}${url.search}`;
  try {
    for (let tries = 1; ; tries += 1) {
      try {
        const answer = await request.connection.request({
          method: 'POST',
          path,
          headers: request.headers,
          body: request.body,
          signal: abort.signal,
        });
        const result = answerOf(answer.statusCode);
        let read = 0;
        try {
          for await (const chunk of answer.body) {
            read += (chunk as Buffer).length;
            // Enough of the answer: the connection is dropped rather than read to its end.
            if (read >= MAX_RESPONSE_BYTES) break;
          }
        } catch {
          // The answer's status is known: a connection dropped mid-body does not change it.
        }
        return result;
      } catch (error) {
        if (abort.signal.aborted) return timedOut(timeoutMs);
        const code = codeOf(error);
        if (tries === 1 && CONNECTION_LOST.has(code)) continue;
        if (TIMED_OUT_CODES.has(code)) return timedOut(timeoutMs);
        if (INVALID_REQUEST.has(code)) {
          return { ok: false, code: 'invalid_request', error: 'The alert has an invalid header' };
        }
        return failureOf(error);
      }
    }
  } finally {
    clearTimeout(timer);
  }
}

/** The refusal of a body over `maxBodyBytes`, if it is. */
function tooLarge(body: Buffer, maxBodyBytes: number): Omit<DeliveryResult, 'durationMs'> | null {
  if (body.length <= maxBodyBytes) return null;
  return {
    ok: false,
    code: 'body_too_large',
    error: `The alert is ${body.length.toLocaleString('en-US')} bytes, more than the ${maxBodyBytes.toLocaleString('en-US')} allowed`,
  };
}

/** The result with the time since `started` (performance.now()), whole ms. */
function timed(result: Omit<DeliveryResult, 'durationMs'>, started: number): DeliveryResult {
  return { ...result, durationMs: Math.round(performance.now() - started) };
}

/**
 * Sends one alert. Resolves, never rejects, with whether the destination answered 2xx, its
 * status, and why it failed. Nothing is sent when the URL or body is refused, or when the
 * host name resolves, at the check or at the connection, to any address that may not be reached.
 */
export async function deliver(
  request: OutboundRequest,
  options: DeliveryOptions,
): Promise<DeliveryResult> {
  const started = performance.now();
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const done = (result: Omit<DeliveryResult, 'durationMs'>) => timed(result, started);
  const destination = { allowPrivate: options.allowPrivate, resolver: options.resolver };

  const checked = checkDestinationUrl(request.url, destination);
  if (!checked.ok) return done(refusalOf(checked));

  const body = Buffer.from(request.body);
  const refused = tooLarge(body, options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES);
  if (refused) return done(refused);

  const resolved = await within(resolveAndCheck(checked.url.hostname, destination), timeoutMs);
  if (resolved === TIMED_OUT) return done(timedOut(timeoutMs));
  if (!resolved.ok) return done(refusalOf(resolved));

  const remaining = Math.max(1, timeoutMs - (performance.now() - started));
  // A connection of its own, closed once the answer is in.
  const connection = connectionTo(checked.url, guardedLookup(destination), remaining);
  const result = await post(
    checked.url,
    { body, headers: outgoingHeaders(request.headers, body.length), connection },
    remaining,
  ).finally(() => void connection.destroy().catch(() => undefined));
  // The timeout message names the whole budget, not what was left of it.
  return done(result.code === 'timeout' ? timedOut(timeoutMs) : result);
}

/**
 * One destination's alerts, sent over a connection kept open between them (HTTP keep-alive):
 * at most one socket, closed after KEEP_ALIVE_IDLE_MS unused or by close(). The URL is checked
 * once, as deliver() checks it. A new connection resolves the host through the checked lookup
 * (guardedLookup), which is then the only check of the name's addresses: a kept connection
 * leads to the address checked when it was made, and a name that answers differently later
 * (DNS rebinding) is refused at the next new connection.
 */
export class DestinationClient {
  private readonly options: DeliveryOptions;
  /** The checked URL and its connection, or why the URL was refused. */
  private readonly target: { url: URL; connection: Client } | DestinationRefusal;

  constructor(url: string, options: DeliveryOptions) {
    this.options = options;
    const destination = { allowPrivate: options.allowPrivate, resolver: options.resolver };
    const checked = checkDestinationUrl(url, destination);
    this.target = checked.ok
      ? {
          url: checked.url,
          connection: connectionTo(
            checked.url,
            guardedLookup(destination),
            options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
          ),
        }
      : checked;
  }

  /** Sends one request to the destination; resolves as deliver() does, never rejects. */
  async send(request: Omit<OutboundRequest, 'url'>): Promise<DeliveryResult> {
    const started = performance.now();
    const { target } = this;
    if (!('connection' in target)) return timed(refusalOf(target), started);
    const body = Buffer.from(request.body);
    const refused = tooLarge(body, this.options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES);
    if (refused) return timed(refused, started);
    const result = await post(
      target.url,
      {
        body,
        headers: outgoingHeaders(request.headers, body.length),
        connection: target.connection,
      },
      this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    );
    return timed(result, started);
  }

  /** Closes the kept connection (an attempt under way is cut). */
  close(): void {
    if ('connection' in this.target) void this.target.connection.destroy().catch(() => undefined);
  }
}
