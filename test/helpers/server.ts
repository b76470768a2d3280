/**
 * Starts a real Tally server on a random loopback port with a throwaway SQLite file, and
 * captures its log lines so tests can search them.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { buildApp, type AppOptions } from '../../src/server/app.js';
import type { Config, DatabaseConfig } from '../../src/server/config.js';
import type { SecurityPolicy } from '../../src/server/security/policy.js';

export interface TestServer {
  app: FastifyInstance;
  /** http://127.0.0.1:PORT */
  url: string;
  /** ws://127.0.0.1:PORT */
  wsUrl: string;
  /** The SQLite file behind this server (unused when it runs on PostgreSQL). */
  databaseFile: string;
  /** Every log line written so far, raw JSON text. */
  logs: () => string;
  /** Stops the server; removes its database unless told to keep it. */
  close: (options?: { keepDatabase?: boolean }) => Promise<void>;
}

export interface TestServerOptions {
  heartbeatMs?: number;
  logLevel?: Config['logLevel'];
  /** Defaults to a throwaway SQLite file. */
  database?: DatabaseConfig;
  /** A built web app to serve; none by default. */
  webRoot?: string;
  /** Rate and flood limits; the server's defaults unless given. */
  security?: Partial<SecurityPolicy>;
  /** TRUST_PROXY: whose X-Forwarded-For names the client. None by default. */
  trustProxy?: Config['trustProxy'];
  /** Quotas and connection caps (docs/api.md#limits); the server's defaults unless given. */
  limits?: Config['limits'];
  /** Header, body and keep-alive timeouts; the server's defaults unless given. */
  timeouts?: AppOptions['timeouts'];
  /** METRICS_TOKEN: GET /metrics exists only with one. */
  metricsToken?: string;
  /** Alerts' settings (ALERTS_ALLOW_PRIVATE_TARGETS, PUBLIC_URL, PUSH_CONTACT). */
  alerts?: Config['alerts'];
  /** The alert sender's first retry wait, ms. */
  alertRetryFirstMs?: number;
  /** Each address's share of the taps (a test's own, that it marks behind). */
  fairShare?: AppOptions['fairShare'];
}

export async function startServer(options: TestServerOptions = {}): Promise<TestServer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tally-test-'));
  const lines: string[] = [];
  const logStream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(chunk.toString());
      callback();
    },
  });
  const databaseFile = path.join(dir, 'tally.sqlite');
  const app = await buildApp({
    config: {
      port: 0,
      host: '127.0.0.1',
      database: options.database ?? { kind: 'sqlite', file: databaseFile },
      logLevel: options.logLevel ?? 'info',
      ...(options.trustProxy === undefined ? {} : { trustProxy: options.trustProxy }),
      ...(options.limits === undefined ? {} : { limits: options.limits }),
      ...(options.metricsToken === undefined ? {} : { metricsToken: options.metricsToken }),
      ...(options.alerts === undefined ? {} : { alerts: options.alerts }),
    },
    ...(options.alertRetryFirstMs === undefined
      ? {}
      : { alertRetryFirstMs: options.alertRetryFirstMs }),
    logStream,
    webRoot: options.webRoot ?? null,
    ...(options.security === undefined ? {} : { security: options.security }),
    ...(options.heartbeatMs === undefined ? {} : { heartbeatMs: options.heartbeatMs }),
    ...(options.timeouts === undefined ? {} : { timeouts: options.timeouts }),
    ...(options.fairShare === undefined ? {} : { fairShare: options.fairShare }),
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return {
    app,
    url: `http://127.0.0.1:${address.port}`,
    wsUrl: `ws://127.0.0.1:${address.port}`,
    databaseFile,
    logs: () => lines.join(''),
    close: async ({ keepDatabase = false } = {}) => {
      await app.close();
      if (!keepDatabase) fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
