/**
 * Starts what the end-to-end tests run against: the real Tally server (built web app, API, live
 * channel) on a random port with a throwaway SQLite file, and a local server for test images
 * (there is no external network here). Their addresses reach the tests through environment
 * variables (workers inherit them). Set E2E_SKIP_BUILD=1 to reuse an existing dist/web.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { startImageServer } from './support/images.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
/** The server must be listening within this time, ms. */
const START_TIMEOUT_MS = 30_000;

export default async function globalSetup(): Promise<() => Promise<void>> {
  if (process.env.E2E_SKIP_BUILD !== '1') {
    execFileSync(
      process.execPath,
      [path.join(ROOT, 'node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'warn'],
      {
        cwd: ROOT,
        stdio: 'inherit',
      },
    );
    // As `npm run build` does: files served precompressed, as in production (a Lighthouse run
    // with --skip-build after the tests measures what visitors get), and the source archive the
    // footer links to when nothing else is configured.
    for (const script of ['scripts/precompress.mjs', 'scripts/source-archive.mjs']) {
      execFileSync(process.execPath, [path.join(ROOT, script)], { cwd: ROOT, stdio: 'inherit' });
    }
  }
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tally-e2e-'));
  const images = await startImageServer();
  const server = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(ROOT, 'src/server/main.ts')],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        PORT: '0',
        HOST: '127.0.0.1',
        DATABASE_URL: `file:${path.join(dataDir, 'tally.sqlite')}`,
        LOG_LEVEL: 'info',
        // Every test creates groups from 127.0.0.1: more than the default 100 an hour.
        MAX_GROUPS_PER_ADDRESS_PER_HOUR: '1000000',
        // Alerts go to receivers the tests run on loopback, as an intranet's would be.
        ALERTS_ALLOW_PRIVATE_TARGETS: 'true',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let baseUrl: string;
  try {
    baseUrl = await listeningAddress(server);
  } catch (error) {
    server.kill('SIGKILL');
    await images.close();
    throw error;
  }
  process.env.E2E_BASE_URL = baseUrl;
  process.env.E2E_IMAGES_URL = images.url;

  return async () => {
    await stop(server);
    await images.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
}

/** Reads the server's JSON log until Fastify says where it listens. */
function listeningAddress(server: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    const output: string[] = [];
    const timer = setTimeout(() => {
      reject(new Error(`Tally did not start within ${START_TIMEOUT_MS} ms:\n${output.join('\n')}`));
    }, START_TIMEOUT_MS);
    const lines = createInterface({ input: server.stdout ?? process.stdin });
    lines.on('line', (line) => {
      output.push(line);
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(line);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    server.stderr?.on('data', (data: Buffer) => {
      output.push(data.toString());
      process.stderr.write(data);
    });
    server.on('exit', (code) => {
      clearTimeout(timer);
      reject(
        new Error(`Tally exited with code ${String(code)} before listening:\n${output.join('\n')}`),
      );
    });
  });
}

function stop(server: ChildProcess): Promise<void> {
  if (server.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => server.kill('SIGKILL'), 5_000);
    server.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    server.kill('SIGTERM');
  });
}
