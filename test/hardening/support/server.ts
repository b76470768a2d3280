/**
 * Like test/helpers/server.ts, plus the server's security limits: suites that fire thousands of
 * requests from one address choose their own limits, and the rate-limit suite chooses small ones.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../../src/server/app.js';
import type { DatabaseConfig } from '../../../src/server/config.js';
import type { SecurityPolicy } from '../../../src/server/security/policy.js';

export interface HardenedServer {
  app: FastifyInstance;
  url: string;
  wsUrl: string;
  databaseFile: string;
  logs: () => string;
  close: (options?: { keepDatabase?: boolean }) => Promise<void>;
}

/** Limits no test reaches: for suites that are not about limits. */
export const UNLIMITED: SecurityPolicy = {
  keyFailures: {
    perClient: { burst: 1e9, refillMs: 1 },
    perGroup: { burst: 1e9, refillMs: 1 },
    trustMs: 60_000,
  },
  liveMessages: { burst: 1e9, refillMs: 1 },
};

export async function startHardenedServer(
  options: {
    security?: Partial<SecurityPolicy>;
    database?: DatabaseConfig;
    logLevel?: 'info' | 'trace';
  } = {},
): Promise<HardenedServer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tally-hardening-'));
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
    },
    logStream,
    webRoot: null,
    ...(options.security === undefined ? {} : { security: options.security }),
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
