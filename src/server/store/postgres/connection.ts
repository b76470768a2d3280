/**
 * How every Tally connection to PostgreSQL is made: the store's pool and the bus's LISTEN
 * connection both use it, so neither imports the other.
 */
import pg from 'pg';

/** Counter values are bounded to ±(2^53 − 1), so a bigint always fits a JS number exactly. */
const BIGINT_AS_NUMBER = new pg.TypeOverrides();
BIGINT_AS_NUMBER.setTypeParser(pg.types.builtins.INT8, (value: string) => Number(value));

export interface PostgresConnection {
  /** The connection string without Tally's own `schema` parameter. */
  connectionString: string;
  /** The schema Tally's tables live in. */
  schema: string;
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** Splits Tally's `schema` query parameter off a postgres:// URL. */
export function parsePostgresUrl(url: string): PostgresConnection {
  const parsed = new URL(url);
  const schema = parsed.searchParams.get('schema') ?? 'public';
  if (!SCHEMA_NAME.test(schema)) {
    throw new Error('DATABASE_URL schema must be lowercase letters, digits and underscores');
  }
  parsed.searchParams.delete('schema');
  return { connectionString: parsed.toString(), schema };
}

/**
 * How long connecting (TCP, TLS and authentication) may take before it counts as failed, ms. A
 * database that is restarting refuses at once; one behind a black-holed path would otherwise
 * hold a connect for TCP's retransmission timeout (minutes).
 */
export const CONNECT_TIMEOUT_MS = 2_000;

/**
 * Idle time before TCP keep-alive probes start on a connection, ms. Node (libuv) then probes
 * every 1 s and gives up after 10 unanswered probes, so a database host that vanished under an
 * idle connection is noticed in about 15 s instead of the kernel's default of over two hours.
 */
export const KEEPALIVE_IDLE_MS = 5_000;

/**
 * Longest one statement may run on the server, ms: a runaway statement is cancelled there. Tally's
 * statements take milliseconds; migrations lift it for their own session.
 */
export const STATEMENT_TIMEOUT_MS = 15_000;

/**
 * A transaction left open this long with no statement running is ended by the server, ms: a
 * Tally whose connection was cut mid-batch must not leave its group locks held for the next
 * instance (the server would otherwise keep them until its own keep-alive notices, hours).
 */
export const IDLE_IN_TRANSACTION_TIMEOUT_MS = 10_000;

/**
 * Connection settings every Tally connection uses: its schema, bigint as number, and the
 * timeouts that turn a dead or black-holed database into an error within seconds.
 */
export function clientConfig(
  connection: PostgresConnection,
  applicationName: string,
): pg.ClientConfig {
  return {
    connectionString: connection.connectionString,
    options: `-c search_path=${connection.schema}`,
    application_name: applicationName,
    types: BIGINT_AS_NUMBER,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_IDLE_MS,
    statement_timeout: STATEMENT_TIMEOUT_MS,
    idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_TIMEOUT_MS,
  };
}

/**
 * Whether an error from `pg` says the connection itself failed or cannot be trusted any more,
 * rather than that a statement was refused: the socket was refused, reset or closed, the server
 * is shutting down or starting up (57P01–57P03: a restart, a failover, pg_terminate_backend), a
 * connection exception (08), a read-only server (25006: a standby not yet promoted), or no answer
 * in time (the driver's own timeouts, which carry no code).
 */
export function isConnectionFailure(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (/^(08|57P0[123]$|25006$)/.test(code)) return true;
    if (/^E[A-Z]+$/.test(code)) return true;
  }
  const message = error instanceof Error ? error.message : '';
  // Not "timeout exceeded when trying to connect": that is the pool's wait for a free connection,
  // which a busy instance reaches with a healthy database.
  return /Connection terminated|Query read timeout|timeout expired|connection timeout|connection error|Client was closed|not queryable|terminating connection/i.test(
    message,
  );
}

/** The NOTIFY channel of a schema, so two deployments on one database never hear each other. */
export const notifyChannelOf = (schema: string) => `tally_changes_${schema}`;
