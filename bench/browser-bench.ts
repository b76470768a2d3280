/**
 * What the browser benchmarks share (bench/lighthouse.ts, bench/offline-flush.ts): Debian's
 * Chromium and its flags, and the built Tally server started on a throwaway SQLite file.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');

/** Playwright's own browser download cannot work here: Debian's chromium is used. */
export const CHROMIUM_PATH =
  process.env.CHROMIUM_PATH ?? process.env.CHROME_PATH ?? '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** The server must answer its health check within this time, ms. */
const START_TIMEOUT_MS = 30_000;
/** A server that has not stopped this long after SIGTERM is killed, ms. */
const STOP_TIMEOUT_MS = 5_000;

export interface BuiltServer {
  origin: string;
  stop(): Promise<void>;
}

/** Starts dist/server/main.js (`npm run build` first) and waits until it answers. */
export async function startBuiltServer(port: number, sqliteFile: string): Promise<BuiltServer> {
  const server = spawn(process.execPath, [path.join(ROOT, 'dist/server/main.js')], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: `file:${sqliteFile}`,
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const origin = `http://127.0.0.1:${String(port)}`;
  try {
    await waitForHealth(origin, server);
  } catch (error) {
    await stop(server);
    throw error;
  }
  return { origin, stop: () => stop(server) };
}

async function waitForHealth(origin: string, server: ChildProcess): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (server.exitCode !== null) {
      throw new Error(`the server exited with code ${String(server.exitCode)}`);
    }
    try {
      if ((await fetch(`${origin}/api/health`)).ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(
    `the server did not answer ${origin}/api/health within ${String(START_TIMEOUT_MS)} ms`,
  );
}

function stop(server: ChildProcess): Promise<void> {
  if (server.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => server.kill('SIGKILL'), STOP_TIMEOUT_MS);
    server.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    server.kill('SIGTERM');
  });
}
