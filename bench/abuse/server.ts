/**
 * Tally as `npm start` runs it (node's flags read from package.json), built first when dist/ is
 * older than the sources, on a throwaway SQLite file or a fresh PostgreSQL schema.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort, startFlags } from '../targets.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const MAIN = path.join(ROOT, 'dist/server/main.js');
/** The server must answer its health check within this time, ms. */
const START_TIMEOUT_MS = 30_000;
/** A server still running this long after SIGTERM is killed, ms. */
const STOP_TIMEOUT_MS = 10_000;

export type StoreKind = 'sqlite' | 'postgres';

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    newest = Math.max(newest, fs.statSync(path.join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

/** Runs `npm run build` unless dist/ (server and web app) is newer than every source file. */
export function ensureBuilt(log: (message: string) => void): void {
  const built = [MAIN, path.join(ROOT, 'dist/web/index.html')];
  const oldestBuilt = Math.min(
    ...built.map((file) => (fs.existsSync(file) ? fs.statSync(file).mtimeMs : 0)),
  );
  const sources = Math.max(
    newestMtime(path.join(ROOT, 'src')),
    fs.statSync(path.join(ROOT, 'package.json')).mtimeMs,
  );
  if (oldestBuilt > sources) {
    log('dist/ is up to date: not building');
    return;
  }
  log('building (npm run build)');
  execFileSync('npm', ['run', 'build'], {
    cwd: ROOT,
    stdio: ['ignore', process.stderr, 'inherit'],
  });
}

export interface RunningServer {
  origin: URL;
  pid: number;
  /** Bytes the server has written to its log so far (stdout and stderr). */
  logBytes(): number;
  /** Lines of its log from byte `from` on. */
  logLines(from: number): string[];
  exited(): number | null;
  stop(): Promise<void>;
}

function newSchema(): { url: string; drop: () => Promise<void> } {
  const base = process.env.DATABASE_URL;
  if (base === undefined || !/^postgres(ql)?:\/\//.test(base)) {
    throw new Error('--store postgres needs DATABASE_URL=postgres://…');
  }
  const schema = `tally_abuse_${String(process.pid)}_${randomBytes(4).toString('hex')}`;
  const url = new URL(base);
  url.searchParams.set('schema', schema);
  const drop = async () => {
    const client = new pg.Client({ connectionString: base });
    await client.connect();
    try {
      await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    } finally {
      await client.end();
    }
  };
  return { url: url.toString(), drop };
}

export async function startServer(store: StoreKind): Promise<RunningServer> {
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tally-abuse-'));
  const schema = store === 'postgres' ? newSchema() : undefined;
  const logFile = path.join(dir, 'server.log');
  const logFd = fs.openSync(logFile, 'a');
  // TALLY_BENCH_NODE_OPTIONS: extra Node flags for the server, as for the other scenarios
  // (--cpu-prof --cpu-prof-dir=…, which NODE_OPTIONS does not allow).
  const extraFlags = process.env.TALLY_BENCH_NODE_OPTIONS?.split(' ').filter(Boolean) ?? [];
  const child: ChildProcess = spawn(process.execPath, [...startFlags(), ...extraFlags, MAIN], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      // Loopback: the attacker (127.0.0.1), the member (127.0.0.2) and the newcomers
      // (127.1.x.y) all reach it, each as its own client address.
      HOST: '127.0.0.1',
      DATABASE_URL: schema?.url ?? `file:${path.join(dir, 'abuse.sqlite')}`,
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', logFd, logFd],
  });
  fs.closeSync(logFd);
  const cleanup = async () => {
    await stopChild(child);
    fs.rmSync(dir, { recursive: true, force: true });
    await schema?.drop();
  };
  const origin = new URL(`http://127.0.0.1:${String(port)}`);
  try {
    await waitForHealth(origin, child);
  } catch (error) {
    const log = fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8').slice(-2_000) : '';
    await cleanup();
    throw new Error(`${error instanceof Error ? error.message : String(error)}\n${log}`);
  }
  return {
    origin,
    pid: child.pid ?? 0,
    logBytes: () => (fs.existsSync(logFile) ? fs.statSync(logFile).size : 0),
    logLines(from) {
      if (!fs.existsSync(logFile)) return [];
      const text = fs.readFileSync(logFile).subarray(from).toString('utf8');
      return text.split('\n').filter((line) => line.trim() !== '');
    },
    exited: () => child.exitCode ?? (child.signalCode === null ? null : -1),
    stop: cleanup,
  };
}

async function waitForHealth(origin: URL, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null)
      throw new Error(`the server exited with code ${String(child.exitCode)}`);
    try {
      if ((await fetch(new URL('/api/health', origin))).ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`the server did not answer /api/health within ${String(START_TIMEOUT_MS)} ms`);
}

export function stopChild(child: ChildProcess, timeoutMs = STOP_TIMEOUT_MS): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
