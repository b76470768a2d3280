/**
 * GET /metrics for operators (Prometheus scrapes it). Registered only when METRICS_TOKEN is set;
 * then it answers only `Authorization: Bearer <METRICS_TOKEN>`, compared in constant time, and
 * anything else 401 `invalid_metrics_token`, without saying whether a token was missing or wrong.
 * The token is never logged (headers never are).
 */
import type { FastifyInstance } from 'fastify';
import { MESSAGES } from '../../shared/messages.js';
import { hashKey, keyMatches } from '../core/access.js';
import { errorBody, STATUS_OF } from '../routes/errors.js';
import { bearerKey } from '../routes/parse.js';
import type { TallyMetrics } from './metrics.js';

export const METRICS_PATH = '/metrics';

export function registerMetricsRoute(
  app: FastifyInstance,
  metrics: TallyMetrics,
  token: string,
): void {
  // Compared as SHA-256 digests, like group keys: equal lengths whatever the token's length.
  const expected = hashKey(token);
  app.get(METRICS_PATH, async (request, reply) => {
    const given = bearerKey(request);
    if (given === undefined || !keyMatches(given, expected)) {
      return reply
        .code(STATUS_OF.invalid_metrics_token)
        .header('www-authenticate', 'Bearer realm="metrics"')
        .header('cache-control', 'no-store')
        .send(errorBody('invalid_metrics_token', MESSAGES.invalidMetricsToken));
    }
    const text = await metrics.exposition();
    return reply
      .header('content-type', metrics.contentType)
      .header('cache-control', 'no-store')
      .send(text);
  });
}
