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

/** Connection settings every Tally connection uses: its schema, and bigint as number. */
export function clientConfig(
  connection: PostgresConnection,
  applicationName: string,
): pg.ClientConfig {
  return {
    connectionString: connection.connectionString,
    options: `-c search_path=${connection.schema}`,
    application_name: applicationName,
    types: BIGINT_AS_NUMBER,
  };
}

/** The NOTIFY channel of a schema, so two deployments on one database never hear each other. */
export const notifyChannelOf = (schema: string) => `tally_changes_${schema}`;
