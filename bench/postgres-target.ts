/**
 * Tally on PostgreSQL, several instances on one database, each run in a fresh schema that is
 * dropped when the target stops (runs never accumulate data). Groups are created and read through
 * instance A, where watchers connect; tappers connect to the other instances, so what a watcher
 * measures has crossed instances (LISTEN/NOTIFY).
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import {
  startTally,
  stopServer,
  tallyApi,
  type GroupSetup,
  type RunningTarget,
  type Target,
  type ServerProcess,
} from './targets.js';

/** The database the benchmark uses unless `--postgres` names another (the tests' one). */
export const DEFAULT_POSTGRES_URL = 'postgres://postgres@127.0.0.1:5432/test';

/** The URL without Tally's own `schema` parameter: what an admin connection is given. */
function withoutSchema(url: string): string {
  const parsed = new URL(url);
  parsed.searchParams.delete('schema');
  return parsed.toString();
}

function checkPostgresUrl(url: string): void {
  if (!/^postgres(ql)?:\/\//.test(url)) {
    throw new Error('--postgres must be a postgres:// URL');
  }
}

async function withAdmin<T>(url: string, use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: withoutSchema(url) });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

/** Server version and commit durability, printed with the results (they set what "durable" is). */
export async function describePostgres(url: string): Promise<string> {
  checkPostgresUrl(url);
  try {
    return await readSettings(url);
  } catch (error) {
    // Host and port only: the URL may carry a password.
    const { hostname, port } = new URL(url);
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`cannot use PostgreSQL at ${hostname}:${port || '5432'}: ${reason}`);
  }
}

function readSettings(url: string): Promise<string> {
  return withAdmin(url, async (client) => {
    const setting = async (name: string) => {
      const { rows } = await client.query<{ value: string }>(
        'SELECT setting AS value FROM pg_settings WHERE name = $1',
        [name],
      );
      return rows[0]?.value ?? '?';
    };
    const version = await setting('server_version');
    return `PostgreSQL ${version}, synchronous_commit=${await setting('synchronous_commit')}, fsync=${await setting('fsync')}`;
  });
}

/**
 * `env`: settings every instance also gets. A `schema` in `url` names the fresh schemas
 * (`<schema>_<pid>_<random>`) instead of `tally_bench`.
 */
export function tallyOnPostgres(
  instances: number,
  url = DEFAULT_POSTGRES_URL,
  env: Record<string, string> = {},
): Target {
  if (!Number.isInteger(instances) || instances < 1) {
    throw new Error(`--instances must be a whole number from 1 (got ${instances})`);
  }
  checkPostgresUrl(url);
  const prefix = (new URL(url).searchParams.get('schema') ?? 'tally_bench').slice(0, 40);
  if (!/^[a-z_][a-z0-9_]*$/.test(prefix)) {
    throw new Error(`schema= must be lowercase letters, digits and underscores (got "${prefix}")`);
  }
  return {
    name: `Tally, PostgreSQL ×${instances}`,
    keepsState: true,
    ackIsEcho: false,
    opIds: 'numbered',
    sendsValue: false,
    async start() {
      // Lowercase letters, digits and underscores: what Tally accepts as a schema name.
      const schema = `${prefix}_${process.pid}_${randomBytes(4).toString('hex')}`;
      const withSchema = new URL(withoutSchema(url));
      withSchema.searchParams.set('schema', schema);
      const dropSchema = () =>
        withAdmin(url, async (client) => {
          await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
        });
      // All at once: each migrates under Tally's advisory lock, so concurrent starts are safe.
      const started = await Promise.allSettled(
        Array.from({ length: instances }, () =>
          startTally({ ...env, DATABASE_URL: withSchema.toString() }),
        ),
      );
      const servers = started
        .filter((result) => result.status === 'fulfilled')
        .map((result) => result.value);
      const stop = async () => {
        await Promise.all(servers.map(stopServer));
        await dropSchema();
      };
      const failed = started.find((result) => result.status === 'rejected');
      if (failed) {
        await stop();
        throw failed.reason;
      }
      return runningCluster(servers, stop);
    },
  };
}

function runningCluster(servers: ServerProcess[], stop: () => Promise<void>): RunningTarget {
  const [a, ...others] = servers;
  if (!a) throw new Error('no instance started');
  const running: RunningTarget = {
    pids: servers.map((s) => s.child.pid ?? 0),
    ...tallyApi(a.port),
    stop,
  };
  if (others.length === 0) return running;
  // Tappers are spread over every instance but A, one group after the other.
  const tapperApis = others.map((server) => tallyApi(server.port));
  const placed = new Map<string, number>();
  running.tapperWsUrl = (group: GroupSetup) => {
    let instance = placed.get(group.name);
    if (instance === undefined) {
      instance = placed.size % tapperApis.length;
      placed.set(group.name, instance);
    }
    return (tapperApis[instance] ?? tallyApi(a.port)).wsUrl(group);
  };
  return running;
}
