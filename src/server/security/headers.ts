/**
 * The security headers' policy, defined once: helmet sends it on every routed answer (app.ts),
 * and answers written before routing (a malformed URL) get the same headers from here.
 */
import { STATUS_CODES } from 'node:http';
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

/** The headers helmet would add, for answers written straight to the socket. */
export function rawSecurityHeaders(): Record<string, string> {
  const csp = Object.entries(CSP_DIRECTIVES)
    .filter((entry): entry is [string, string[]] => entry[1] !== null)
    .map(
      ([name, values]) =>
        `${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} ${values.join(' ')}`,
    )
    .join(';');
  return {
    'content-security-policy': csp,
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
  };
}

/**
 * A whole HTTP answer in Tally's error shape, for sockets answered before (or instead of) any
 * routing: a refused connection, a request too slow or malformed. The connection closes after it.
 */
export function rawErrorResponse(
  status: number,
  code: ErrorCode,
  message: string,
  extraHeaders: Record<string, string> = {},
): string {
  const body = JSON.stringify({ error: { code, message } } satisfies ApiError);
  const headers: Record<string, string> = {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(body)),
    'cache-control': 'no-store',
    connection: 'close',
    ...rawSecurityHeaders(),
    ...extraHeaders,
  };
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}`);
  return `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\n${lines.join('\r\n')}\r\n\r\n${body}`;
}
