/**
 * GET /metrics for operators (Prometheus scrapes it). Registered only when METRICS_TOKEN is set;
 * then it answers only `Authorization: Bearer <METRICS_TOKEN>`, compared in constant time, and
 * anything else 401 `invalid_metrics_token`, without saying whether a token was missing or wrong.
 * The token is never logged (headers never are).
 *
 * `/metrics` is also the page URL of a group named "metrics". A browser opening it sends no
 * Authorization and asks for HTML; it gets the web app, as on any group's page. A scraper (no
 * `text/html` in its Accept) or any request with an Authorization header gets the answer above.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { MESSAGES } from '../../shared/messages.js';
import { hashKey, keyMatches } from '../core/access.js';
import { errorBody, STATUS_OF } from '../routes/errors.js';
import { bearerKey } from '../routes/parse.js';
import type { TallyMetrics } from './metrics.js';

export const METRICS_PATH = '/metrics';

export interface MetricsRouteOptions {
  metrics: TallyMetrics;
  /** The bearer token a scraper must send (METRICS_TOKEN). */
  token: string;
  /** Answers with the web app's page; undefined when this server serves no web app. */
  page?: ((reply: FastifyReply) => FastifyReply) | undefined;
}

export function registerMetricsRoute(
  app: FastifyInstance,
  { metrics, token, page }: MetricsRouteOptions,
): void {
  // Compared as SHA-256 digests, like group keys: equal lengths whatever the token's length.
  const expected = hashKey(token);
  app.get(METRICS_PATH, async (request, reply) => {
    if (page && opensPage(request)) return page(reply);
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

/** A browser's navigation to the page: no credentials, and HTML asked for by name. */
function opensPage(request: FastifyRequest): boolean {
  const { authorization, accept } = request.headers;
  return authorization === undefined && accept !== undefined && accept.includes('text/html');
}
