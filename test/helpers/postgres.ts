/**
 * PostgreSQL for the tests: DATABASE_URL=postgres://… points at a server; every test gets its own
 * schema so runs never collide. Without DATABASE_URL the PostgreSQL suites skip and say so;
 * with TALLY_REQUIRE_POSTGRES=1 (set by .ci/run) a missing DATABASE_URL is an error instead.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { encodeAnnouncements } from '../../src/server/bus/notify.js';
import type { DatabaseConfig } from '../../src/server/config.js';
import { parsePostgresUrl } from '../../src/server/store/postgres/connection.js';
import { PostgresStore } from '../../src/server/store/postgres/store.js';
import { startServer, type TestServer, type TestServerOptions } from './server.js';

const raw = process.env.DATABASE_URL;
export const postgresUrl = raw !== undefined && /^postgres(ql)?:\/\//.test(raw) ? raw : undefined;

if (postgresUrl === undefined) {
  if (process.env.TALLY_REQUIRE_POSTGRES === '1') {
    throw new Error('TALLY_REQUIRE_POSTGRES=1 but DATABASE_URL is not a postgres:// URL');
  }
  console.warn('PostgreSQL suites skipped: set DATABASE_URL=postgres://… to run them');
}

/** A new, unused schema name for one test. */
export const uniqueSchema = () => `tally_test_${process.pid}_${randomBytes(4).toString('hex')}`;

/** The DatabaseConfig for a server on the given schema. */
export function postgresDatabase(schema: string, poolSize = 5): DatabaseConfig {
  const url = new URL(postgresUrl ?? 'postgres://unset');
  url.searchParams.set('schema', schema);
  return { kind: 'postgres', url: url.toString(), poolSize };
}

/**
 * A PostgresStore on `schema`, migrated, as an instance named `instanceId` (its announcements
 * say so), without a server around it.
 */
export async function openPostgresStore(
  schema: string,
  options: { instanceId: string; poolSize?: number; clock?: () => number },
): Promise<PostgresStore> {
  const database = postgresDatabase(schema);
  if (database.kind !== 'postgres') throw new Error('not postgres');
  const store = new PostgresStore({
    connection: parsePostgresUrl(database.url),
    poolSize: options.poolSize ?? 2,
    encodeAnnouncements: (groupId, changes) =>
      encodeAnnouncements({ instanceId: options.instanceId, groupId }, changes),
    ...(options.clock ? { clock: options.clock } : {}),
  });
  await store.migrate();
  return store;
}

/** Runs one statement as the test's own administrative connection. */
export async function adminQuery(sql: string, params: unknown[] = []): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: postgresUrl });
  await client.connect();
  try {
    return await client.query(sql, params);
  } finally {
    await client.end();
  }
}

export async function dropSchemas(schemas: Iterable<string>): Promise<void> {
  for (const schema of schemas) await adminQuery(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
}

/**
 * The stores a suite runs on, for `describe.each`: SQLite always, and PostgreSQL (each call a
 * fresh schema) when DATABASE_URL is set. Registers the afterAll that drops those schemas.
 */
export function storeBackends(): [string, () => DatabaseConfig | undefined][] {
  const schemas = new Set<string>();
  const backends: [string, () => DatabaseConfig | undefined][] = [['SQLite', () => undefined]];
  if (postgresUrl !== undefined) {
    backends.push([
      'PostgreSQL',
      () => {
        const schema = uniqueSchema();
        schemas.add(schema);
        return postgresDatabase(schema);
      },
    ]);
  }
  afterAll(async () => {
    if (postgresUrl !== undefined) await dropSchemas(schemas);
  });
  return backends;
}

/**
 * Two Tally servers on one fresh schema, as two instances behind a load balancer, each started
 * with `options` (its database aside). Registers its own beforeAll/afterAll (call it inside a
 * describe); the servers exist once those have run.
 */
export function twoInstancesOnPostgres(options: Omit<TestServerOptions, 'database'> = {}): {
  a: () => TestServer;
  b: () => TestServer;
} {
  const schema = uniqueSchema();
  let servers: [TestServer, TestServer] | undefined;
  beforeAll(async () => {
    servers = await Promise.all([
      startServer({ ...options, database: postgresDatabase(schema) }),
      startServer({ ...options, database: postgresDatabase(schema) }),
    ]);
  });
  afterAll(async () => {
    if (servers) await Promise.all(servers.map((server) => server.close()));
    await dropSchemas([schema]);
  });
  const started = (index: 0 | 1): TestServer => {
    const server = servers?.[index];
    if (!server) throw new Error('instances not started: call inside a describe');
    return server;
  };
  return { a: () => started(0), b: () => started(1) };
}
