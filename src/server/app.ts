/**
 * Builds the whole Tally server from a configuration: API, live channel and the built web app.
 * It does not listen; main.ts and the tests do (tests on a random port).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';
import fastifyStatic from '@fastify/static';
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
import type { DestinationStream } from 'pino';
import { BODY_LIMIT_BYTES } from '../shared/limits.js';
import { MESSAGES } from '../shared/messages.js';
import { CLOSE_CODES } from '../shared/protocol.js';
import { openBackend } from './backend.js';
import { DEFAULT_ALERTS_CONFIG, limitsOf, publicSourceUrl, type Config } from './config.js';
import { newVapidKeys, type VapidKeys } from './alerts/push.js';
import { AlertSender } from './alerts/sender.js';
import { AlertService } from './core/alerts.js';
import { registerAlertRoutes } from './routes/alerts.js';
import { registerLinkRoutes } from './routes/links.js';
import { TapLinkService } from './core/tap-links.js';
import { GroupAccessCache } from './core/access-cache.js';
import { TallyService } from './core/service.js';
import { LiveFairShare } from './live/fair-share.js';
import { LiveHub } from './live/hub.js';
import { acceptLiveUpgrades } from './live/upgrade.js';
import { clientAddressOf } from './security/client-address.js';
import { logSerializers, redactPaths } from './logger.js';
import { registerImportRoutes } from './routes/import.js';
import { registerActivityRoutes } from './routes/activity.js';
import { registerAccessRoutes, registerApiRoutes } from './routes/api.js';
import { registerApiDocs } from './routes/docs.js';
import { answerError, errorBody } from './routes/errors.js';
import { registerHealthRoute } from './routes/health.js';
import {
  ConnectionLimits,
  DEFAULT_EDGE_TIMEOUTS,
  type EdgeTimeouts,
} from './security/connection-limits.js';
import { API_HEADERS, SECURITY_HEADERS } from './security/headers.js';
import { GroupCreationQuota } from './security/group-quota.js';
import { HeavyReads } from './security/heavy-reads.js';
import { KeyGuard } from './security/key-guard.js';
import { DEFAULT_SECURITY_POLICY, type SecurityPolicy } from './security/policy.js';
import { RefusalLog } from './security/refusal-log.js';
import type { Store } from './store/types.js';

const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const DEFAULT_WEB_ROOT = path.join(PROJECT_ROOT, 'dist/web');

export interface AppOptions {
  config: Config;
  /** Where log lines go (tests capture them this way); standard output otherwise. */
  logStream?: DestinationStream;
  /** Serve the built web app from here; null serves none. */
  webRoot?: string | null;
  /** Server ping interval for live sockets, ms. */
  heartbeatMs?: number;
  /** Rate and flood limits (security/policy.ts); the defaults unless a test needs others. */
  security?: Partial<SecurityPolicy>;
  /** Header, body and keep-alive timeouts (security/connection-limits.ts); tests use small ones. */
  timeouts?: Partial<EdgeTimeouts>;
  /** The alert sender's first retry wait, ms (alerts/sender.ts); tests retry sooner. */
  alertRetryFirstMs?: number;
  /** Each address's share of the taps; one sampling the event loop unless a test drives it. */
  fairShare?: LiveFairShare;
}

declare module 'fastify' {
  interface FastifyInstance {
    tally: { store: Store; hub: LiveHub; service: TallyService };
  }
}

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const { config } = options;
  const refusals = new RefusalLog();
  const connections = new ConnectionLimits({
    perAddress: limitsOf(config).connectionsPerAddress,
    trustProxy: config.trustProxy ?? false,
    timeouts: { ...DEFAULT_EDGE_TIMEOUTS, ...options.timeouts },
    refusals,
  });
  const app = Fastify({
    // Tally's timeouts and per-address connection caps, and malformed or slow requests answered
    // in Tally's error shape with the security headers (security/connection-limits.ts).
    serverFactory: connections.serverFactory,
    clientErrorHandler: connections.clientErrorHandler,
    logger: {
      level: config.logLevel,
      redact: { paths: redactPaths, censor: '[REDACTED]' },
      serializers: logSerializers,
      ...(options.logStream ? { stream: options.logStream } : {}),
    },
    bodyLimit: BODY_LIMIT_BYTES,
    // Behind a proxy, request.ip is the client's address only if the proxy is trusted.
    trustProxy: config.trustProxy ?? false,
    return503OnClosing: true,
    // Errors raised before routing (a malformed %-escape in the URL) get the API error shape too.
    frameworkErrors: (_error, _request, reply) => {
      reply.raw.writeHead(400, {
        'content-type': 'application/json; charset=utf-8',
        ...API_HEADERS,
      });
      reply.raw.end(JSON.stringify(errorBody('validation_failed', MESSAGES.malformedRequest)));
    },
    routerOptions: { maxParamLength: 200 },
  });
  refusals.useLogger(app.log);

  // Operators' metrics (metrics/): nothing is created or measured unless METRICS_TOKEN is set.
  const { metricsToken } = config;
  // Loaded only then: prom-client costs start-up time a server without metrics need not pay.
  const [metricsModule, metricsRoute] =
    metricsToken === undefined
      ? []
      : await Promise.all([import('./metrics/metrics.js'), import('./metrics/route.js')]);
  const metrics = metricsModule && new metricsModule.TallyMetrics(config.database.kind);
  const backend = await openBackend(config, app.log, metrics);
  const { store, bus, batcher } = backend;
  const security = { ...DEFAULT_SECURITY_POLICY, ...options.security };
  const accessCache = new GroupAccessCache((slug) => store.findGroup(slug), bus);
  const service = new TallyService({
    store,
    batcher,
    accessCache,
    guard: new KeyGuard(security.keyFailures),
    creations: new GroupCreationQuota(limitsOf(config).groupsPerAddressPerHour),
    countersPerGroup: limitsOf(config).countersPerGroup,
  });
  // One share of the taps per address, live and REST alike (ADR 32, ADR 34).
  const fairShare = options.fairShare ?? new LiveFairShare();
  const hub = new LiveHub({
    bus,
    service,
    log: app.log,
    heartbeatMs: options.heartbeatMs,
    messagePolicy: security.liveMessages,
    gate: batcher,
    availability: store.availability,
    fairShare,
  });
  app.decorate('tally', { store, hub, service });

  const alertsConfig = config.alerts ?? DEFAULT_ALERTS_CONFIG;
  // Made at the first start and kept in the database: every instance signs pushes alike, and
  // browsers' subscriptions (made for this public key) outlive restarts.
  const vapid = JSON.parse(
    await store.alerts.setting('vapid', () => JSON.stringify(newVapidKeys())),
  ) as VapidKeys;
  const sender = new AlertSender({
    alerts: store.alerts,
    groupName: async (slug) => (await store.findGroup(slug))?.displayName ?? null,
    allowPrivate: alertsConfig.allowPrivateTargets,
    vapid: { ...vapid, subject: alertsConfig.pushContact },
    logger: app.log,
    retryFirstMs: options.alertRetryFirstMs,
  });
  sender.start();
  const alerts = new AlertService({
    store,
    service,
    sender,
    allowPrivate: alertsConfig.allowPrivateTargets,
    publicUrl: alertsConfig.publicUrl,
    vapidPublicKey: vapid.publicKey,
  });

  installJsonParser(app);
  // Security headers on every answer, and no-store on API answers unless a route sets its own
  // cache header later: one precomputed set per kind (security/headers.ts), nothing built per
  // request. In onRequest, so 404s and error answers carry them too.
  app.addHook('onRequest', (request, reply, done) => {
    void reply.headers(request.url.startsWith('/api/') ? API_HEADERS : SECURITY_HEADERS);
    done();
  });
  // Before any plugin or route: a handler set after a plugin registration does not reach the
  // routes registered before it, and every API error must have the { error } shape.
  app.setNotFoundHandler((_request, reply) => {
    void reply.code(404).send(errorBody('not_found', MESSAGES.notFound));
  });
  // Domain errors become their status and { error } body here (routes/errors.ts).
  app.setErrorHandler(answerError);

  const live = acceptLiveUpgrades(app.server, hub, {
    clientAddress: clientAddressOf(config.trustProxy ?? false),
    admit: (request, address) => connections.admitLive(request, address),
  });
  app.addHook('preClose', async () => {
    hub.closeAll(CLOSE_CODES.goingAway, 'Server shutting down');
    await live.close();
  });

  registerHealthRoute(app, store, () => hub.connectionCount);
  registerApiRoutes(app, service, fairShare);
  // Exports, imports and the other heavy reads share one budget per address (ADR 34).
  const heavyReads = new HeavyReads(security.heavyReads);
  registerActivityRoutes(app, service, {
    alertRules: async (group) => (await alerts.list(group)).rules,
    heavyReads,
  });
  registerImportRoutes(app, service, { heavyReads });
  registerAccessRoutes(app, service);
  registerAlertRoutes(app, { service, alerts });
  registerLinkRoutes(app, { service, links: new TapLinkService(store, service) });
  registerApiDocs(app);

  const webRoot = options.webRoot === undefined ? DEFAULT_WEB_ROOT : options.webRoot;
  const indexHtml = webRoot === null ? null : path.join(webRoot, 'index.html');
  const serveWeb = indexHtml !== null && webRoot !== null && fs.existsSync(indexHtml);
  const appShell = serveWeb ? shellServer(indexHtml, footerSource(config, webRoot)) : staticShell;
  if (serveWeb) {
    await app.register(fastifyStatic, {
      root: webRoot,
      wildcard: false,
      index: false,
      // scripts/precompress.mjs writes .br and .gz beside each file at build time.
      preCompressed: true,
      setHeaders(reply, filePath) {
        // Vite names built assets by content hash: they never change under the same name.
        // Everything else is revalidated on every use: index.html, theme.js, the icons, and above
        // all sw.js and manifest.webmanifest, so a deploy's new service worker is seen at once.
        const immutable = filePath.includes(`${path.sep}assets${path.sep}`);
        void reply.header(
          'cache-control',
          immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
        );
      },
    });
    app.get('/*', (request, reply) => {
      const file = request.url.split('?')[0] ?? '/';
      // Unknown API paths stay JSON 404s; only page routes get the app shell.
      if (file.startsWith('/api/')) {
        reply.callNotFound();
        return reply;
      }
      const candidate = path.join(webRoot, path.normalize(safeDecode(file)));
      if (
        file !== '/' &&
        candidate.startsWith(webRoot + path.sep) &&
        fs.existsSync(candidate) &&
        fs.statSync(candidate).isFile()
      ) {
        return reply.sendFile(path.relative(webRoot, candidate));
      }
      // Client-side routes (/ and /{groupName}) all load the single-page app.
      return appShell(reply);
    });
  }
  if (metrics && metricsRoute && metricsToken !== undefined) {
    metrics.watchSockets(() => hub.connectionCount);
    // A group named "metrics" still opens at /metrics in a browser (metrics/route.ts).
    metricsRoute.registerMetricsRoute(app, {
      metrics,
      token: metricsToken,
      page: serveWeb ? appShell : undefined,
    });
  }

  app.addHook('onClose', async () => {
    accessCache.close();
    await sender.stop();
    await backend.close();
  });
  return app;
}

/** The single-page app's shell, revalidated on every use. */
function staticShell(reply: FastifyReply): FastifyReply {
  return reply.header('cache-control', 'no-cache').sendFile('index.html');
}

/** What the build's archive of its own source is called in the web root (package.json build). */
const SOURCE_ARCHIVE = 'source.tar.gz';

/**
 * Where the footer's source link points: SOURCE_URL, else package.json's `repository`, else the
 * archive of this server's source the build made (in a git checkout); null: there is none.
 */
function footerSource(config: Config, webRoot: string): string | null {
  const url = publicSourceUrl(config, path.join(PROJECT_ROOT, 'package.json'));
  if (url !== null) return url;
  return fs.existsSync(path.join(webRoot, SOURCE_ARCHIVE)) ? `/${SOURCE_ARCHIVE}` : null;
}

/**
 * The shell with `<meta name="tally-source">` in its head, so the web app's footer links to the
 * source without a request of its own (and without an inline script, which the CSP forbids).
 * Written and compressed once, at start; with no source to name, the built file as it is.
 */
function shellServer(
  indexHtml: string,
  source: string | null,
): (reply: FastifyReply) => FastifyReply {
  const html = fs.readFileSync(indexHtml, 'utf8');
  if (source === null || !html.includes('</head>')) return staticShell;
  const attribute = source.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
  const body = Buffer.from(
    html.replace('</head>', `<meta name="tally-source" content="${attribute}" /></head>`),
  );
  const encoded = { br: zlib.brotliCompressSync(body), gzip: zlib.gzipSync(body) };
  return (reply) => {
    const accepted = reply.request.headers['accept-encoding'] ?? '';
    const encoding = /\bbr\b/.test(accepted) ? 'br' : /\bgzip\b/.test(accepted) ? 'gzip' : null;
    void reply
      .header('cache-control', 'no-cache')
      .header('vary', 'accept-encoding')
      .type('text/html; charset=utf-8');
    if (encoding === null) return reply.send(body);
    return reply.header('content-encoding', encoding).send(encoded[encoding]);
  };
}

/** A malformed %-escape is just a path that matches no file. */
function safeDecode(urlPath: string): string {
  try {
    return decodeURIComponent(urlPath);
  } catch {
    return urlPath;
  }
}

/**
 * JSON bodies through Fastify's own parser (which refuses __proto__ and constructor poisoning),
 * except that an empty body counts as no body: `POST …/increment` needs none.
 */
function installJsonParser(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  // JSON only: a text/plain body is answered 415, not parsed into a string.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body.toString();
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    void parseJson(request, text, done);
  });
}
