/**
 * The security headers, defined once and computed once: helmet turns the policy below into
 * headers at start, and every answer (routed or written straight to a socket before routing)
 * carries the same set. Built per request, they were a visible share of the increment route's time
 * (helmet parses its directives on every call; ADR 18).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { STATUS_CODES } from 'node:http';
import helmet, { type HelmetOptions } from 'helmet';
import type { ApiError, ErrorCode } from '../../shared/api.js';

/** Content-Security-Policy directives, in helmet's camelCase form. */
export const CSP_DIRECTIVES = {
  defaultSrc: ["'self'"],
  scriptSrc: ["'self'"],
  styleSrc: ["'self'", "'unsafe-inline'"],
  // Thumbnails and profile pictures are user-supplied http(s) URLs.
  imgSrc: ["'self'", 'https:', 'http:'],
  connectSrc: ["'self'"],
  // The service worker (/sw.js) and the web app manifest: same origin only. (Both would fall back
  // to default-src 'self' anyway; said here so a later default-src change cannot drop them.)
  workerSrc: ["'self'"],
  manifestSrc: ["'self'"],
  frameAncestors: ["'none'"],
  objectSrc: ["'none'"],
  baseUri: ["'self'"],
  formAction: ["'self'"],
  // Self-hosted on plain http (a LAN box) must keep working: no forced https upgrade.
  upgradeInsecureRequests: null,
};

const HELMET_OPTIONS: HelmetOptions = {
  contentSecurityPolicy: { directives: CSP_DIRECTIVES },
  // The page URL carries the key: never send it to image hosts.
  referrerPolicy: { policy: 'no-referrer' },
  // Thumbnails come from other origins without CORP headers.
  crossOriginEmbedderPolicy: false,
  // Tally runs on plain http on a LAN too; HSTS is the TLS terminator's call.
  strictTransportSecurity: false,
};

/** Runs helmet's middleware once against a response that only records what it is told. */
function headersOf(options: HelmetOptions): Readonly<Record<string, string>> {
  const headers: Record<string, string> = {};
  const recorder = {
    setHeader(name: string, value: string | number | readonly string[]) {
      headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
    },
    removeHeader(name: string) {
      // Helmet removes X-Powered-By, which Tally never sets.
      Reflect.deleteProperty(headers, name.toLowerCase());
    },
  };
  let failure: unknown;
  helmet(options)(
    Object.create(null) as IncomingMessage,
    recorder as unknown as ServerResponse,
    (error?: unknown) => {
      failure = error;
    },
  );
  if (failure !== undefined)
    throw failure instanceof Error ? failure : new Error('helmet refused its options');
  // Helmet's middleware is synchronous; an empty set would mean that changed.
  if (headers['content-security-policy'] === undefined) throw new Error('helmet set no headers');
  return Object.freeze(headers);
}

/** Every security header, lower-case names: sent on every answer. */
export const SECURITY_HEADERS = headersOf(HELMET_OPTIONS);

/** The same, plus no-store: API answers are never cached (a kept answer could show stale or
 * private data) unless a route chooses its own cache header. */
export const API_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  ...SECURITY_HEADERS,
  'cache-control': 'no-store',
});

/** An error answered straight on a socket: its status, Tally's error code and message. */
export interface RawErrorAnswer {
  status: number;
  code: ErrorCode;
  message: string;
  /** Added to the security headers (e.g. retry-after). */
  headers?: Record<string, string>;
}

/**
 * A whole HTTP answer in Tally's error shape, for sockets answered before (or instead of) any
 * routing: a refused connection, a request too slow or malformed. The connection closes after it.
 */
export function rawErrorResponse({
  status,
  code,
  message,
  headers: extraHeaders,
}: RawErrorAnswer): string {
  const body = JSON.stringify({ error: { code, message } } satisfies ApiError);
  const headers: Record<string, string> = {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(body)),
    'cache-control': 'no-store',
    connection: 'close',
    ...SECURITY_HEADERS,
    ...extraHeaders,
  };
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}`);
  return `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\n${lines.join('\r\n')}\r\n\r\n${body}`;
}
