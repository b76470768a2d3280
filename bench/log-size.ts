/**
 * `npx tsx bench/log-size.ts`: how much the activity log grows per 1,000 taps (ADR 0007), on
 * SQLite and, when DATABASE_URL is a postgres:// URL, on PostgreSQL. 10,000 taps by 10 members on
 * one counter, committed one per batch (a quiet group) and 50 per batch (a busy one).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { hashKey } from '../src/server/core/access.js';
import { parsePostgresUrl } from '../src/server/store/postgres/connection.js';
import { PostgresStore } from '../src/server/store/postgres/store.js';
import { encodeAnnouncements } from '../src/server/bus/notify.js';
import { SqliteStore } from '../src/server/store/sqlite/store.js';
import { sqliteDatabase } from '../src/server/store/sqlite/driver.js';
import type { Store } from '../src/server/store/types.js';

const TAPS = 10_000;
const MEMBERS = 10;
const BATCH_SIZES = [1, 50];

async function fill(store: Store, perBatch: number): Promise<void> {
  const { group } = await store.createGroup(`log-size-${perBatch}`, hashKey('ab'.repeat(16)));
  const [created] = await store.commit([
    { groupId: group.id, mutation: { kind: 'createCounter', fields: { name: 'Coffees' } } },
  ]);
  if (!created?.ok || created.result.kind !== 'counter') throw new Error('no counter');
  const counterId = created.result.counter.id;
  for (let i = 0; i < TAPS; i += perBatch) {
    await store.commit(
      Array.from({ length: perBatch }, (_, j) => ({
        groupId: group.id,
        actor: `Guest${1000 + ((i + j) % MEMBERS)}`,
        opId: `op-${perBatch}-${i + j}`,
        mutation: {
          kind: 'adjustCounter' as const,
          counterId,
          direction: 'increment' as const,
          times: 1,
        },
      })),
    );
  }
}

function report(store: string, perBatch: number, entries: number, bytes: number): void {
  const perThousand = (bytes / (TAPS / 1_000) / 1024).toFixed(0);
  console.log(
    `${store}, ${perBatch} tap(s) per commit: ${entries} entries, ${perThousand} KB per 1,000 taps (${(bytes / entries).toFixed(0)} B per entry, indexes included)`,
  );
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tally-log-size-'));
try {
  for (const perBatch of BATCH_SIZES) {
    const file = path.join(dir, `log-${perBatch}.sqlite`);
    const store = new SqliteStore(file);
    await store.migrate();
    await fill(store, perBatch);
    await store.close();
    const Sqlite = sqliteDatabase();
    const db = new Sqlite(file, { readonly: true });
    const { n } = db.prepare('SELECT count(*) AS n FROM activity').get() as { n: number };
    const { b } = db
      .prepare("SELECT SUM(pgsize) AS b FROM dbstat WHERE name LIKE 'activity%'")
      .get() as { b: number };
    db.close();
    report('SQLite', perBatch, n, b);
  }
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}

const url = process.env.DATABASE_URL;
if (url?.startsWith('postgres')) {
  const schema = `tally_log_size_${process.pid}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    for (const perBatch of BATCH_SIZES) {
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      const withSchema = new URL(url);
      withSchema.searchParams.set('schema', schema);
      const store = new PostgresStore({
        connection: parsePostgresUrl(withSchema.toString()),
        poolSize: 2,
        encodeAnnouncements: (groupId, changes) =>
          encodeAnnouncements({ instanceId: 'log-size', groupId }, changes),
      });
      await store.migrate();
      await fill(store, perBatch);
      await store.close();
      await admin.query(`VACUUM ANALYZE ${schema}.activity`);
      const { rows } = await admin.query<{ n: number; b: string }>(
        `SELECT count(*)::int AS n, pg_total_relation_size('${schema}.activity') AS b FROM ${schema}.activity`,
      );
      report('PostgreSQL', perBatch, rows[0]?.n ?? 0, Number(rows[0]?.b ?? 0));
    }
  } finally {
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.end();
  }
}
