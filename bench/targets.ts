/**
 * The servers a benchmark run measures, each started as its own process on loopback, and how the
 * load generator speaks to each. Tally on PostgreSQL, several instances: postgres-target.ts.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export interface GroupSetup {
  name: string;
  key: string;
  counterId: string;
}

export interface Target {
  name: string;
  /** Whether the server keeps counter values (so lost and duplicated increments can be counted). */
  keepsState: boolean;
  /** Whether a client learns its own tap was applied from the broadcast (no separate ack). */
  ackIsEcho: boolean;
  /** Whether a tap sends the value the client computed (the original product's way). */
  sendsValue: boolean;
  /**
   * How its clients name their operations (ADR 24): numbered (`<session>.<n>`, a live client's
   * way) or opaque, for a Tally built before numbered ids, which refuses them.
   */
  opIds: OperationIdForm;
  start(): Promise<RunningTarget>;
}

export type OperationIdForm = 'numbered' | 'opaque';

export interface RunningTarget {
  /** Every server process of the target (one per instance). */
  pids: number[];
  /** Where members connect (on several instances: instance A, where groups are created). */
  wsUrl(group: GroupSetup): string;
  /** Where tappers connect, when that is another instance than wsUrl's. */
  tapperWsUrl?(group: GroupSetup): string;
  setupGroup(name: string): Promise<GroupSetup>;
  authMessage(group: GroupSetup): string;
  finalValue(group: GroupSetup): Promise<number | null>;
  stop(): Promise<void>;
}

const ROOT = path.resolve(import.meta.dirname, '..');

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => {
        if (address && typeof address === 'object') resolve(address.port);
        else reject(new Error('no port'));
      });
    });
  });
}

async function waitForPort(port: number, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => {
        resolve(false);
      });
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`server did not open port ${port}`);
}

function launch(args: string[], env: Record<string, string>, cwd = ROOT): ChildProcess {
  return spawn(process.execPath, args, {
    cwd,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) {
      resolve();
      return;
    }
    child.once('exit', () => {
      resolve();
    });
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
  });
}

/** Times a setup request answered 503 (busy: Tally sheds load past its target) is resent. */
const BUSY_RETRIES = 20;

/** A JSON request, resent while the server answers 503 busy; throws on any other non-2xx. */
export async function json<T>(url: string, init?: RequestInit): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    const response = await fetch(url, init);
    if (response.status === 503 && attempt < BUSY_RETRIES) {
      // A busy server was not changed by the refused request: resend after its Retry-After.
      const seconds = Number(response.headers.get('retry-after') ?? '1') || 1;
      await new Promise((resolve) => setTimeout(resolve, seconds * 1_000));
      continue;
    }
    if (!response.ok) throw new Error(`${init?.method ?? 'GET'} ${url}: ${response.status}`);
    return (await response.json()) as T;
  }
}

/**
 * Node's flags in `npm start` (package.json), so the benchmark runs the server as it is deployed:
 * `node <flags> dist/server/main.js`.
 */
export function startFlags(): string[] {
  const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
    scripts?: Record<string, string>;
  };
  const match = /\bnode ((?:--\S+ )*)dist\/server\/main\.js/.exec(manifest.scripts?.start ?? '');
  if (!match) throw new Error('package.json: npm start does not run node dist/server/main.js');
  return (match[1] ?? '').split(' ').filter(Boolean);
}

/** Tally's settings for the load generator's setup, whatever the store. */
const LIFTED_LIMITS: Record<string, string> = {
  LOG_LEVEL: 'warn',
  // The load generator's thousands of members all connect from 127.0.0.1, and it creates
  // up to a thousand groups from there: the per-address limits would refuse its setup.
  MAX_CONNECTIONS_PER_ADDRESS: '1000000',
  MAX_GROUPS_PER_ADDRESS_PER_HOUR: '1000000',
};

export interface ServerProcess {
  child: ChildProcess;
  port: number;
}

/**
 * Starts one Tally server from dist/ as `npm start` runs it, on loopback, with the load
 * generator's limits lifted; `env` gives its DATABASE_URL and any other setting. Resolves once it
 * listens (it migrates its database before listening).
 */
export function startTally(env: Record<string, string>, root = ROOT): Promise<ServerProcess> {
  const nodeOptions = process.env.TALLY_BENCH_NODE_OPTIONS?.split(' ').filter(Boolean) ?? [];
  return startListening(
    [...startFlags(), ...nodeOptions, 'dist/server/main.js'],
    (port) => ({
      PORT: String(port),
      HOST: '127.0.0.1',
      ...LIFTED_LIMITS,
      ...env,
    }),
    root,
  );
}

/** Starts a baseline server script (TypeScript, through tsx) on loopback; resolves once it listens. */
export function startBaseline(script: string): Promise<ServerProcess> {
  return startListening(['--import', 'tsx', script], (port) => ({ PORT: String(port) }));
}

/** Runs `node <args>` on a free port (`env` says how it is told the port) until it listens. */
async function startListening(
  args: string[],
  env: (port: number) => Record<string, string>,
  cwd = ROOT,
): Promise<ServerProcess> {
  const port = await freePort();
  const child = launch(args, env(port), cwd);
  try {
    await waitForPort(port, child);
  } catch (error) {
    await stopChild(child);
    throw error;
  }
  return { child, port };
}

export function stopServer(server: ServerProcess): Promise<void> {
  return stopChild(server.child);
}

/** How the load generator speaks to a Tally server on `port`: its HTTP API and live channel. */
export function tallyApi(
  port: number,
): Pick<RunningTarget, 'wsUrl' | 'setupGroup' | 'authMessage' | 'finalValue'> {
  const base = `http://127.0.0.1:${port}`;
  return {
    wsUrl: (group) => `ws://127.0.0.1:${port}/api/groups/${group.name}/live`,
    async setupGroup(name) {
      const key = randomBytes(32).toString('hex');
      await json(`${base}/api/groups/${name}/join`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ key }),
      });
      const counter = await json<{ id: string }>(`${base}/api/groups/${name}/counters`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}` },
      });
      return { name, key, counterId: counter.id };
    },
    authMessage: (group) => JSON.stringify({ type: 'auth', protocol: 1, key: group.key }),
    async finalValue(group) {
      const counters = await json<{ value: number }[]>(
        `${base}/api/groups/${group.name}/counters`,
        { headers: { authorization: `Bearer ${group.key}` } },
      );
      return counters[0]?.value ?? null;
    },
  };
}

/**
 * Tally built from dist/, on a throwaway SQLite file; `env` adds settings (ACTIVITY_LOG). `root`:
 * another checkout's build instead of this one (the hot path's before-and-after in one run).
 */
export function tallyTarget(
  name: string,
  env: Record<string, string>,
  root = ROOT,
  opIds: OperationIdForm = 'numbered',
): Target {
  return {
    name,
    keepsState: true,
    ackIsEcho: false,
    sendsValue: false,
    opIds,
    async start() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tally-bench-'));
      let server: ServerProcess;
      try {
        server = await startTally(
          { DATABASE_URL: `file:${path.join(dir, 'bench.sqlite')}`, ...env },
          root,
        );
      } catch (error) {
        fs.rmSync(dir, { recursive: true, force: true });
        throw error;
      }
      return {
        pids: [server.child.pid ?? 0],
        ...tallyApi(server.port),
        async stop() {
          await stopServer(server);
          fs.rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  };
}

export const tally = tallyTarget('Tally', {});
/** The same server, named for the store comparison, where it is the baseline. */
export const tallyOnSqlite = tallyTarget('Tally, SQLite ×1', {});
/** The same server with the activity log off: the ratio between the two is the log's cost. */
export const tallyWithoutLog = tallyTarget('Tally, activity log off', { ACTIVITY_LOG: 'off' });
/**
 * Floors, not products: the same server on SQLite in memory (no file, no WAL, no checkpoints:
 * nothing survives a restart), with and without the activity log. Their distance to Tally is
 * what durability costs; their distance to the bare server is what no storage tuning can remove.
 */
const IN_MEMORY = { DATABASE_URL: 'file::memory:' };
export const floorTargets = [
  tallyTarget('Tally, in memory (not durable)', IN_MEMORY),
  tallyTarget('Tally, in memory, log off (not durable)', { ...IN_MEMORY, ACTIVITY_LOG: 'off' }),
];

function baseline(name: string, script: string, keepsState: boolean, sendsValue: boolean): Target {
  return {
    name,
    keepsState,
    ackIsEcho: true,
    sendsValue,
    opIds: 'numbered',
    async start() {
      const port = await freePort();
      const child = launch(['--import', 'tsx', script], { PORT: String(port) });
      await waitForPort(port, child);
      return {
        pids: [child.pid ?? 0],
        wsUrl: (group) => `ws://127.0.0.1:${port}/${group.name}`,
        setupGroup: (name) => Promise.resolve({ name, key: '', counterId: `/${name}` }),
        authMessage: () => '{"type":"auth","protocol":1,"key":""}',
        async finalValue(group) {
          if (!keepsState) return null;
          const body = await json<{ value: number | null }>(
            `http://127.0.0.1:${port}/value/${encodeURIComponent(group.counterId)}`,
          );
          return body.value;
        },
        stop: () => stopChild(child),
      };
    },
  };
}

export const wsBaseline = baseline(
  'bare ws broadcast',
  'bench/baselines/ws-broadcast.ts',
  false,
  false,
);
export const naiveBaseline = baseline(
  'original (value + step)',
  'bench/baselines/naive.ts',
  true,
  true,
);

/**
 * A bare `ws` server speaking Tally's live message pattern (ws-pattern.ts): a real ack after one
 * `changes` frame to every socket of the group, the counter kept in memory (so lost and
 * duplicated taps are counted). Run with the same Node flags as Tally (`npm start`'s), so the
 * difference is the code, not the garbage collector's settings.
 */
export const patternBaseline: Target = {
  name: 'bare ws, same pattern',
  keepsState: true,
  ackIsEcho: false,
  sendsValue: false,
  opIds: 'numbered',
  async start() {
    // BARE_BENCH_NODE_OPTIONS: extra Node flags, as TALLY_BENCH_NODE_OPTIONS for Tally (--cpu-prof).
    const nodeOptions = process.env.BARE_BENCH_NODE_OPTIONS?.split(' ').filter(Boolean) ?? [];
    const server = await startListening(
      [...startFlags(), ...nodeOptions, '--import', 'tsx', 'bench/baselines/ws-pattern.ts'],
      (port) => ({ PORT: String(port) }),
    );
    const base = `http://127.0.0.1:${server.port}`;
    return {
      pids: [server.child.pid ?? 0],
      wsUrl: (group) => `ws://127.0.0.1:${server.port}/${encodeURIComponent(group.name)}`,
      async setupGroup(name) {
        const counter = await json<{ id: string }>(`${base}/groups/${encodeURIComponent(name)}`, {
          method: 'POST',
        });
        return { name, key: '', counterId: counter.id };
      },
      authMessage: () => JSON.stringify({ type: 'auth', protocol: 1, key: 'x'.repeat(64) }),
      async finalValue(group) {
        const body = await json<{ value: number | null }>(
          `${base}/value/${encodeURIComponent(group.name)}`,
        );
        return body.value;
      },
      stop: () => stopServer(server),
    };
  },
};
