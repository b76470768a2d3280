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
 * - The alert sender keeps one connection open per destination between its alerts
 *   (DestinationClient): its URL is checked once, and each new connection resolves the name
 *   through the same checked lookup, so a kept connection only ever leads to an address that was
 *   checked when it was made.
 */
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { AddressRange } from './addresses.js';
import {
  type DestinationCheck,
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
 * that says a shorter `Keep-Alive: timeout` is believed (Node's agent closes it a second before).
 */
export const KEEP_ALIVE_IDLE_MS = 30_000;
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

/** Errors of a kept connection the destination closed while it waited unused. */
const STALE_CONNECTION = new Set(['ECONNRESET', 'EPIPE']);

/**
 * POSTs the body to a URL the URL check and both address checks allow, through `agent` (a
 * destination's kept connection) or, when false, a connection of its own.
 */
function post(
  url: URL,
  request: {
    body: Buffer;
    headers: Record<string, string>;
    lookup: LookupFunction;
    agent: http.Agent | false;
  },
  timeoutMs: number,
): Promise<Omit<DeliveryResult, 'durationMs'>> {
  return new Promise((resolve) => {
    let settled = false;
    let outgoing: http.ClientRequest | undefined;
    /** `kept`: the answer was read to its end, so its connection may serve the next request. */
    const finish = (result: Omit<DeliveryResult, 'durationMs'>, kept = false): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (!kept) outgoing?.destroy();
      resolve(result);
    };
    const timer = setTimeout(() => {
      finish(timedOut(timeoutMs));
    }, timeoutMs);

    const open = url.protocol === 'https:' ? https.request : http.request;
    const send = (again: boolean): void => {
      let current: http.ClientRequest;
      try {
        current = open(url, {
          method: 'POST',
          headers: request.headers,
          lookup: request.lookup,
          // A destination's own agent, or a fresh one: no socket shared with anything else, no
          // proxy from the environment.
          agent: request.agent,
        });
      } catch {
        // Node refuses a header it cannot send (a newline in a value, say) before connecting.
        finish({ ok: false, code: 'invalid_request', error: 'The alert has an invalid header' });
        return;
      }
      outgoing = current;
      let answered = false;
      current.on('error', (error: NodeJS.ErrnoException) => {
        // A kept connection the receiver closed as it was reused fails before any answer: sent
        // once more on a new connection (a receiver drops a repeated webhook-id).
        if (!answered && !again && current.reusedSocket && STALE_CONNECTION.has(error.code ?? '')) {
          send(true);
          return;
        }
        finish(failureOf(error));
      });
      current.on('response', (response) => {
        answered = true;
        const answer = answerOf(response.statusCode ?? 0);
        let read = 0;
        response.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read >= MAX_RESPONSE_BYTES) finish(answer);
        });
        response.on('end', () => {
          finish(answer, true);
        });
        // The answer's status is known: a connection dropped mid-body does not change it.
        response.on('error', () => {
          finish(answer);
        });
      });
      current.end(request.body);
    };
    send(false);
  });
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
  const result = await post(
    checked.url,
    {
      body,
      headers: outgoingHeaders(request.headers, body.length),
      lookup: guardedLookup(destination),
      agent: false,
    },
    remaining,
  );
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
  private readonly checked: DestinationCheck;
  private readonly options: DeliveryOptions;
  private readonly lookup: LookupFunction;
  private readonly agent: http.Agent | undefined;

  constructor(url: string, options: DeliveryOptions) {
    this.options = options;
    const destination = { allowPrivate: options.allowPrivate, resolver: options.resolver };
    this.checked = checkDestinationUrl(url, destination);
    this.lookup = guardedLookup(destination);
    if (this.checked.ok) {
      const keepAlive = {
        keepAlive: true,
        maxSockets: 1,
        maxFreeSockets: 1,
        timeout: KEEP_ALIVE_IDLE_MS,
      };
      this.agent =
        this.checked.url.protocol === 'https:'
          ? new https.Agent(keepAlive)
          : new http.Agent(keepAlive);
    }
  }

  /** Sends one request to the destination; resolves as deliver() does, never rejects. */
  async send(request: Omit<OutboundRequest, 'url'>): Promise<DeliveryResult> {
    const started = performance.now();
    if (!this.checked.ok) return timed(refusalOf(this.checked), started);
    const body = Buffer.from(request.body);
    const refused = tooLarge(body, this.options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES);
    if (refused) return timed(refused, started);
    const result = await post(
      this.checked.url,
      {
        body,
        headers: outgoingHeaders(request.headers, body.length),
        lookup: this.lookup,
        agent: this.agent ?? false,
      },
      this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    );
    return timed(result, started);
  }

  /** Closes the kept connection (an attempt under way is cut). */
  close(): void {
    this.agent?.destroy();
  }
}
