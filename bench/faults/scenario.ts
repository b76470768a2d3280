/**
 * One database fault under steady taps on two Tally instances, measured: what the fault suite
 * (test/hardening/database-faults.test.ts) checks and `npm run bench -- --fault …` reports.
 *
 * Tally instances A and B reach their own PostgreSQL (cluster.ts) through a fault proxy
 * (proxy.ts); groups of three tap through B and watch on A (taps.ts). A fault is started a moment
 * into the taps; it returns when the database accepts connections again, and the taps go on for a
 * while after that.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import pg from 'pg';
import { PostgresCluster } from './cluster.js';
import { FaultProxy } from './proxy.js';
import { TapLoad, type TapSummary } from './taps.js';
import { freePort, startFlags } from '../targets.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

export const FAULTS = ['restart', 'terminate', 'blackhole', 'failover'] as const;
export type FaultName = (typeof FAULTS)[number];

/** How long the path drops everything in the black-hole fault, ms. */
export const BLACKHOLE_MS = 10_000;

export interface Instance {
  port: number;
  child: ChildProcess;
  /** The exit code or signal, once it exited. */
  exited: string | null;
  /** When it exited (ISO time, to set beside PostgreSQL's log), once it did. */
  exitedAt: string | null;
  output: string[];
}

/**
 * Starts one Tally instance on `databaseUrl`: from source through tsx (`source`, what the tests
 * run) or from dist/ as `npm start` runs it (the benchmark). Resolves once /api/health says 200.
 */
export async function startInstance(databaseUrl: string, source: boolean): Promise<Instance> {
  const port = await freePort();
  const args = source
    ? ['--import', 'tsx', 'src/server/main.ts']
    : [...startFlags(), 'dist/server/main.js'];
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: databaseUrl,
      LOG_LEVEL: 'warn',
      MAX_CONNECTIONS_PER_ADDRESS: '1000000',
      MAX_GROUPS_PER_ADDRESS_PER_HOUR: '1000000',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const instance: Instance = { port, child, exited: null, exitedAt: null, output: [] };
  const keep = (chunk: Buffer) => {
    instance.output.push(chunk.toString());
    // The last lines are what explains an exit; older ones go.
    if (instance.output.length > 200) instance.output.splice(0, 100);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  child.on('exit', (code, signal) => {
    instance.exited = String(code ?? signal);
    instance.exitedAt = new Date().toISOString();
  });
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (instance.exited !== null) {
      throw new Error(`Tally exited at start: ${instance.output.join('')}`);
    }
    try {
      const health = await fetch(`http://127.0.0.1:${port}/api/health`);
      if (health.status === 200) return instance;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`Tally did not start: ${instance.output.join('')}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export function stopInstance(instance: Instance): Promise<void> {
  return new Promise((resolve) => {
    if (instance.exited !== null) {
      resolve();
      return;
    }
    instance.child.once('exit', () => {
      resolve();
    });
    instance.child.kill('SIGTERM');
    setTimeout(() => instance.child.kill('SIGKILL'), 5_000).unref();
  });
}

/** Runs one statement on a server directly (not through the proxy). */
export async function adminQuery(url: string, sql: string): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end();
  }
}

/** Two instances on their own PostgreSQL through a fault proxy. */
export class FaultBed {
  replica: PostgresCluster | null = null;

  private constructor(
    public primary: PostgresCluster,
    readonly proxy: FaultProxy,
    readonly a: Instance,
    readonly b: Instance,
  ) {}

  static async start(source: boolean): Promise<FaultBed> {
    const primary = await PostgresCluster.create();
    const proxy = new FaultProxy(primary.port);
    const instances: Instance[] = [];
    try {
      await proxy.listen();
      const url = `postgres://postgres@127.0.0.1:${proxy.port}/postgres?schema=tally`;
      // One after the other: the second finds the schema migrated.
      instances.push(await startInstance(url, source));
      instances.push(await startInstance(url, source));
      const [a, b] = instances as [Instance, Instance];
      return new FaultBed(primary, proxy, a, b);
    } catch (error) {
      await Promise.all(instances.map(stopInstance));
      await proxy.close();
      primary.destroy();
      throw error;
    }
  }

  /** Instances that exited, with when and their last output. */
  exits(): string[] {
    return [this.a, this.b]
      .filter((instance) => instance.exited !== null)
      .map(
        (instance) =>
          `instance on port ${instance.port} exited ${instance.exited} at ${instance.exitedAt}: ` +
          instance.output.join('').slice(-2_000),
      );
  }

  /** Throws, naming `step`, if an instance has exited; with the end of PostgreSQL's log. */
  checkInstances(step: string): void {
    const exited = this.exits();
    if (exited.length === 0) return;
    throw new Error(
      `a Tally instance is gone ${step}: ${exited.join('\n')}\n` +
        `PostgreSQL's log ends: ${this.primary.logTail(2_000)}`,
    );
  }

  /**
   * A synchronous streaming replica, for the failover: made now, so that taps acknowledged
   * before the primary dies are on it. Returns once it streams as the synchronous standby.
   */
  async prepareFailover(): Promise<void> {
    this.checkInstances('before the replica was made');
    const replica = await this.primary.replica();
    this.replica = replica;
    await this.primary.requireSynchronousReplica(replica, (sql) =>
      adminQuery(this.primary.url, sql),
    );
    this.checkInstances('while the replica was made');
  }

  /** Starts the fault; resolves with performance.now() when the database takes connections again. */
  async fault(name: FaultName): Promise<number> {
    switch (name) {
      case 'restart':
        await this.primary.restart();
        return performance.now();
      case 'terminate':
        await adminQuery(
          this.primary.url,
          // Client backends only: a replica's WAL sender streams as tally_replica.
          "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name LIKE 'tally%' AND backend_type = 'client backend'",
        );
        return performance.now();
      case 'blackhole':
        this.proxy.blackhole();
        await new Promise((resolve) => setTimeout(resolve, BLACKHOLE_MS));
        this.proxy.heal();
        return performance.now();
      case 'failover': {
        const replica = this.replica;
        if (!replica) throw new Error('prepareFailover() first');
        await this.primary.stop('immediate');
        await replica.promote();
        this.proxy.switchTo(replica.port);
        this.proxy.cut();
        const old = this.primary;
        this.primary = replica;
        this.replica = null;
        old.destroy();
        return performance.now();
      }
    }
  }

  async stop(): Promise<void> {
    await Promise.all([stopInstance(this.a), stopInstance(this.b)]);
    await this.proxy.close();
    this.primary.destroy();
    this.replica?.destroy();
  }
}

export interface FaultRun {
  fault: FaultName;
  /** Taps sent before, during and after the fault, with their answers (after the retries: see below). */
  taps: TapSummary;
  /** Answers of the first send of each tap, before any retry. */
  firstAnswers: TapSummary;
  /** ms from the fault's start to the first tap refused (or to the fault's end, if none was). */
  detectMs: number | null;
  /** ms from the database taking connections again to the first acknowledged tap sent after. */
  recoverMs: number | null;
  /** ms from the fault's start to /api/health answering 503 on instance B; null if it never did. */
  healthDownMs: number | null;
  /**
   * Answer p99 of first sends, ms: the steady taps before the fault, and from the fault to 2 s
   * after recovery.
   */
  p99Before: number;
  p99Around: number;
  counters: { sent: number; acked: number; stored: number | null }[];
  /** Taps still refused after retrying with their operation ids. */
  refusedAfterRetries: number;
  /** Per counter: stored after the retries, and what each watcher shows. */
  storedAfterRetries: (number | null)[];
  watchers: (number | null)[][];
  storageFrames: boolean[][];
  closedSockets: number;
  exits: string[];
}

const percentile = (sorted: number[], p: number) =>
  sorted.length === 0
    ? 0
    : (sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0);

/** Steady taps, the fault, taps after it, every answer awaited, then the refused taps retried. */
export async function runFault(
  bed: FaultBed,
  fault: FaultName,
  options: { groups: number; rate: number; beforeMs: number; afterMs: number },
): Promise<FaultRun> {
  // An instance that exited during an earlier fault would show here only as a refused
  // connection: say so, with what it printed last.
  bed.checkInstances(`before the ${fault} fault`);
  const load = await TapLoad.start(bed.a.port, bed.b.port, options.groups);
  try {
    load.run(options.rate);
    await new Promise((resolve) => setTimeout(resolve, options.beforeMs));
    const faultAt = performance.now();
    // Mutated by the watching loop below (an object: the compiler cannot see the loop change it).
    const health: { watching: boolean; downMs: number | null } = { watching: true, downMs: null };
    const watchHealth = (async () => {
      while (health.watching && health.downMs === null) {
        const status = await fetch(`http://127.0.0.1:${bed.b.port}/api/health`, {
          signal: AbortSignal.timeout(5_000),
        }).then(
          (response) => response.status,
          () => 0,
        );
        if (status === 503) health.downMs = performance.now() - faultAt;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    const recoveredAt = await bed.fault(fault);
    await new Promise((resolve) => setTimeout(resolve, options.afterMs));
    health.watching = false;
    await watchHealth;
    load.stop();
    await load.settled(15_000);
    // Measured before the retries below, which answer refused taps again much later.
    const firstAnswers = load.summary();
    const detectMs = load.detectionAfter(faultAt);
    const recoverMs = load.recoveryAfter(recoveredAt);
    const p99Before = percentile(load.latencies(0, faultAt), 0.99);
    const p99Around = percentile(load.latencies(faultAt, recoveredAt + 2_000), 0.99);
    const counters = await load.counts();
    const refusedAfterRetries = await load.retryRefused(20_000);
    const after = await load.counts();
    const stored = after.map((counter) => counter.stored);
    // Watchers get every change, or a fresh snapshot: wait for them to show what is stored.
    const deadline = performance.now() + 10_000;
    while (performance.now() < deadline) {
      const shown = load.watcherValues();
      if (shown.every((values, index) => values.every((value) => value === stored[index]))) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return {
      fault,
      taps: load.summary(),
      firstAnswers,
      detectMs,
      recoverMs,
      healthDownMs: health.downMs,
      p99Before,
      p99Around,
      counters,
      refusedAfterRetries,
      storedAfterRetries: stored,
      watchers: load.watcherValues(),
      storageFrames: load.storageFrames(),
      closedSockets: load.closedSockets(),
      exits: bed.exits(),
    };
  } finally {
    load.close();
  }
}
