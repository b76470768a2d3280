/**
 * A PostgreSQL server of the caller's own for fault tests and the fault benchmark: its own data
 * directory and port on 127.0.0.1, made with initdb and run with pg_ctl as the `postgres` user, so
 * it can be restarted, killed and failed over without touching the machine's shared server. A
 * replica is a pg_basebackup of it, streaming synchronously, so a commit acknowledged before the
 * primary is killed is on the replica when it is promoted.
 */
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../targets.js';

const run = promisify(execFile);

/** Longest one pg_ctl, initdb or pg_basebackup may take, ms. */
const COMMAND_TIMEOUT_MS = 60_000;

/** Longest a started replica may take to stream as the synchronous standby, ms. */
const SYNC_STANDBY_WAIT_MS = 30_000;

/** The replica's cluster_name, which is also the name it streams under (application_name). */
const REPLICA_NAME = 'tally_replica';

/** The newest installed PostgreSQL's bin directory (Debian: /usr/lib/postgresql/<major>/bin), or null. */
export function postgresBinaries(): string | null {
  const root = '/usr/lib/postgresql';
  if (!fs.existsSync(root)) return null;
  const majors = fs
    .readdirSync(root)
    .filter((name) => fs.existsSync(path.join(root, name, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return majors[0] === undefined ? null : path.join(root, majors[0], 'bin');
}

/** Runs a PostgreSQL program as `postgres` (it refuses to run as root). */
function asPostgres(bin: string, program: string, args: string[]) {
  const file = path.join(bin, program);
  const root = process.getuid?.() === 0;
  return run(root ? 'runuser' : file, root ? ['-u', 'postgres', '--', file, ...args] : args, {
    timeout: COMMAND_TIMEOUT_MS,
  });
}

function asPostgresSync(bin: string, program: string, args: string[]): void {
  const file = path.join(bin, program);
  const root = process.getuid?.() === 0;
  try {
    execFileSync(root ? 'runuser' : file, root ? ['-u', 'postgres', '--', file, ...args] : args, {
      stdio: 'ignore',
      timeout: COMMAND_TIMEOUT_MS,
    });
  } catch {
    // Already stopped.
  }
}

function ownedByPostgres(dir: string): void {
  if (process.getuid?.() !== 0) return;
  const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
  fs.chownSync(dir, uid, gid);
}

/** Clusters not yet destroyed: stopped on exit, even when a test run is cut short. */
const live = new Set<PostgresCluster>();
process.once('exit', () => {
  for (const cluster of live) cluster.killNow();
});

export class PostgresCluster {
  private constructor(
    readonly bin: string,
    /** The directory holding the data directory and the log. */
    readonly home: string,
    readonly port: number,
  ) {
    live.add(this);
  }

  get dataDir(): string {
    return path.join(this.home, 'data');
  }

  get logFile(): string {
    return path.join(this.home, 'postgres.log');
  }

  /** postgres://postgres@127.0.0.1:<port>/postgres */
  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  /** A new server in a temporary directory, started. */
  static async create(bin = postgresBinaries()): Promise<PostgresCluster> {
    if (bin === null)
      throw new Error('PostgreSQL server programs not found under /usr/lib/postgresql');
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'tally-pg-'));
    ownedByPostgres(home);
    const cluster = new PostgresCluster(bin, home, await freePort());
    try {
      await asPostgres(bin, 'initdb', [
        '-D',
        cluster.dataDir,
        '-A',
        'trust',
        '-U',
        'postgres',
        '-E',
        'UTF8',
        '--no-sync',
      ]);
      cluster.configure();
      await cluster.start();
    } catch (error) {
      cluster.destroy();
      throw error;
    }
    return cluster;
  }

  /**
   * Loopback only, its own port and socket directory; fsync off (a test machine does not lose
   * power, and a killed server's writes are in the page cache), commits still wait for the WAL
   * write and for a synchronous replica once one is set.
   */
  private configure(extra: string[] = []): void {
    const settings = [
      "listen_addresses = '127.0.0.1'",
      `port = ${this.port}`,
      `unix_socket_directories = '${this.home}'`,
      'fsync = off',
      'full_page_writes = off',
      'max_connections = 100',
      'shared_buffers = 32MB',
      ...extra,
    ];
    fs.appendFileSync(path.join(this.dataDir, 'postgresql.conf'), `\n${settings.join('\n')}\n`);
  }

  /** The last `chars` characters of the server's log (empty if it has none yet). */
  logTail(chars: number): string {
    try {
      return fs.readFileSync(this.logFile, 'utf8').slice(-chars);
    } catch {
      return '';
    }
  }

  start(): Promise<unknown> {
    return this.pgCtl('start');
  }

  /** A fast restart (what `pg_ctlcluster … restart` does): sessions are ended, then it starts again. */
  restart(): Promise<unknown> {
    return this.pgCtl('-m', 'fast', 'restart');
  }

  /** pg_ctl on this server, waiting (at most 30 s) for it to finish, logging to its log file. */
  private pgCtl(...args: string[]): Promise<unknown> {
    return asPostgres(this.bin, 'pg_ctl', [
      '-D',
      this.dataDir,
      '-l',
      this.logFile,
      '-w',
      '-t',
      '30',
      ...args,
    ]);
  }

  /** `immediate`: killed, as a crashed host would be; `fast`: a clean shutdown. */
  stop(mode: 'fast' | 'immediate' = 'fast'): Promise<unknown> {
    return this.pgCtl('-m', mode, 'stop');
  }

  /**
   * Makes every commit wait until a replica has it (`*`: any replica), and returns once `replica`
   * streams as the synchronous standby. A started standby is not streaming yet (its WAL receiver
   * connects after start-up, and it turns synchronous only once the primary's processes have
   * reloaded the setting), and until it is, every commit waits for it: the next taps would meet
   * that wait, longer the busier the machine, instead of the fault being measured.
   */
  async requireSynchronousReplica(
    replica: PostgresCluster,
    query: (sql: string) => Promise<{ rows: unknown[] }>,
  ): Promise<void> {
    await query("ALTER SYSTEM SET synchronous_standby_names = '*'");
    await query('SELECT pg_reload_conf()');
    const deadline = Date.now() + SYNC_STANDBY_WAIT_MS;
    let seen = 'not connected';
    for (;;) {
      const { rows } = await query(
        `SELECT state, sync_state FROM pg_stat_replication WHERE application_name = '${REPLICA_NAME}'`,
      );
      const row = rows[0] as { state: string; sync_state: string } | undefined;
      if (row?.state === 'streaming' && row.sync_state === 'sync') return;
      if (row) seen = `${row.state}, ${row.sync_state}`;
      if (Date.now() > deadline) {
        throw new Error(
          `replica on port ${replica.port} not a streaming synchronous standby after ${SYNC_STANDBY_WAIT_MS} ms (${seen})`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** A streaming replica of this server (pg_basebackup), started as a standby on its own port. */
  async replica(): Promise<PostgresCluster> {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'tally-pg-replica-'));
    ownedByPostgres(home);
    const replica = new PostgresCluster(this.bin, home, await freePort());
    try {
      await asPostgres(this.bin, 'pg_basebackup', [
        '-h',
        '127.0.0.1',
        '-p',
        String(this.port),
        '-U',
        'postgres',
        '-D',
        replica.dataDir,
        '-R',
        '-X',
        'stream',
        '--no-sync',
      ]);
      replica.configure([`cluster_name = '${REPLICA_NAME}'`]);
      await replica.start();
    } catch (error) {
      replica.destroy();
      throw error;
    }
    return replica;
  }

  /** Promotes a replica to a primary that takes writes. */
  promote(): Promise<unknown> {
    return this.pgCtl('promote');
  }

  /** Stops the server at once (if running) and deletes its directory. */
  destroy(): void {
    this.killNow();
    fs.rmSync(this.home, { recursive: true, force: true });
  }

  /** Synchronous: also used from the process's exit hook. */
  killNow(): void {
    if (!live.has(this)) return;
    live.delete(this);
    if (fs.existsSync(path.join(this.dataDir, 'postmaster.pid'))) {
      asPostgresSync(this.bin, 'pg_ctl', ['-D', this.dataDir, '-m', 'immediate', '-w', 'stop']);
    }
  }
}
