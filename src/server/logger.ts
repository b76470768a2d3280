/**
 * Logging. The access key must never reach a log line: it can appear in a page URL (?key=…), in
 * the Authorization header and in live-channel messages. Request URLs are redacted here, headers
 * and bodies are never logged, and live messages are never logged.
 */
import type { FastifyRequest } from 'fastify';

const KEY_PARAM = /([?&])key=[^&#]*/gi;

export function redactUrl(url: string): string {
  return url.replace(KEY_PARAM, '$1key=[REDACTED]');
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
