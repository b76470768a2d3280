/**
 * Logging. The access key must never reach a log line: it can appear in a page URL (?key=…), in
 * the Authorization header and in live-channel messages. Request URLs are redacted here, headers
 * and bodies are never logged, and live messages are never logged.
 */
import type { FastifyRequest } from 'fastify';

const REDACTED = '[REDACTED]';
/** A name is decoded at most this many times: `%25%36%42ey` needs two passes to read "key". */
const MAX_DECODE_PASSES = 3;

/**
 * The URL with the value of every query parameter that could carry the key replaced. Parameters
 * are split the way URLSearchParams and common servers split them (on `&`, and on `;`) and their
 * names read the way any of them might decode them (`+` as space, %-escapes, repeatedly, any
 * case), so `?%6Bey=`, `?KEY=`, `?k%65y=`, `?x=1&amp;key=` and repeated parameters are all
 * caught. Over-redacting a parameter merely named like a key costs nothing.
 */
export function redactUrl(url: string): string {
  const hash = url.indexOf('#');
  // A fragment never reaches the server in a request; one in a URL from elsewhere is dropped.
  const fragment = hash === -1 ? '' : `#${REDACTED}`;
  const withoutHash = hash === -1 ? url : url.slice(0, hash);
  const question = withoutHash.indexOf('?');
  if (question === -1) return withoutHash + fragment;
  const path = withoutHash.slice(0, question);
  const query = withoutHash
    .slice(question + 1)
    .split(/([&;])/)
    .map((part) => {
      if (part === '&' || part === ';') return part;
      const equals = part.indexOf('=');
      const name = equals === -1 ? part : part.slice(0, equals);
      if (!mayNameTheKey(name)) return part;
      return `${name}=${REDACTED}`;
    })
    .join('');
  return `${path}?${query}${fragment}`;
}

function mayNameTheKey(rawName: string): boolean {
  let name = rawName;
  for (let pass = 0; pass < MAX_DECODE_PASSES; pass++) {
    const decoded = safeDecode(name.replace(/\+/g, ' '));
    if (decoded === name) break;
    name = decoded;
  }
  return /key/i.test(name);
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    // A stray % (as URLSearchParams does): decode the escapes that are valid, keep the rest.
    return text.replace(/%[0-9a-f]{2}/gi, (escape) =>
      String.fromCharCode(parseInt(escape.slice(1), 16)),
    );
  }
}

export const logSerializers = {
  req(request: FastifyRequest) {
    return {
      method: request.method,
      url: redactUrl(request.url),
      remoteAddress: request.ip,
    };
  },
};

/** Paths pino must censor if an object carrying them is ever logged. */
export const redactPaths = [
  'req.headers.authorization',
  'headers.authorization',
  'key',
  '*.key',
  'body.key',
];
