/**
 * Bounded work per request: every read of the activity log and of a group's counters
 * goes through an index with a LIMIT, never a scan of the whole table, on both stores:
 *   - SQLite: EXPLAIN QUERY PLAN of every statement the reads run shows only SEARCH on activity
 *     (never SCAN activity, with or without an index) and no temporary B-tree (no grouping or
 *     sorting of every entry of a counter, as history did);
 *   - PostgreSQL: EXPLAIN with enable_seqscan off shows no Seq Scan on activity (a statement with
 *     no usable index would still get one);
 * and a counter's history over many entries, spread over a year, is at most `points` points,
 * each a real entry in time order, ending with the current value.
 */
import type Database from 'better-sqlite3';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { hashKey } from '../../src/server/core/access.js';
import type { PostgresStore } from '../../src/server/store/postgres/store.js';
import { SqliteStore } from '../../src/server/store/sqlite/store.js';
import type { Store } from '../../src/server/store/types.js';
import type { Counter } from '../../src/shared/api.js';
import {
  adminQuery,
  dropSchemas,
  openPostgresStore,
  postgresUrl,
  uniqueSchema,
} from '../helpers/postgres.js';

const ENTRIES = 3_000;
const YEAR_MS = 365 * 24 * 60 * 60 * 1000;

/** A group with one counter and ENTRIES taps on it; the ids the reads need. */
async function seed(store: Store) {
  const { group } = await store.createGroup(`bounded-${Date.now()}`, hashKey('ab'.repeat(16)));
  const [created] = await store.commit([
    { groupId: group.id, mutation: { kind: 'createCounter', fields: { name: 'c' } } },
  ]);
  if (!created?.ok || created.result.kind !== 'counter') throw new Error('create failed');
  const counter: Counter = created.result.counter;
  return { groupId: group.id, counterId: counter.id };
}

/** Every read a request or the background may run on the log and the counters. */
async function runEveryRead(store: Store, groupId: string, counterId: string): Promise<void> {
  await store.loadGroupState(groupId);
  await store.counterHistory(groupId, counterId, 200);
  await store.recentValues(groupId, 30);
  await store.listActivity(groupId, { limit: 50, order: 'newest' });
  await store.listActivity(groupId, { limit: 50, order: 'newest', before: 1_000 });
  await store.listActivity(groupId, { limit: 1_000, order: 'oldest', after: 10 });
  await store.listActivity(groupId, { limit: 50, order: 'newest', counterId });
  await store.listActivity(groupId, { limit: 50, order: 'newest', counterId, before: 1_000 });
  await store.listActivity(groupId, { limit: 50, order: 'oldest', counterId, after: 10 });
  await store.pruneActivity(10 * YEAR_MS);
}

function checkHistory(points: { t: number; v: number }[], max: number, current: number) {
  expect(points.length).toBeLessThanOrEqual(max);
  expect(points.length).toBeGreaterThan(max / 2);
  expect(points[points.length - 1]?.v).toBe(current);
  for (let i = 1; i < points.length; i++) {
    expect(points[i]?.t).toBeGreaterThanOrEqual(points[i - 1]?.t ?? 0);
  }
}

describe('SQLite reads', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tally-bounded-'));
  afterAll(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('read activity and counters through indexes only: no SCAN activity in any plan', async () => {
    const store = new SqliteStore(path.join(dir, 'plans.sqlite'));
    await store.migrate();
    const db = (store as unknown as { db: Database.Database }).db;
    const statements = new Set<string>();
    const prepare = db.prepare.bind(db);
    db.prepare = (sql: string) => {
      statements.add(sql);
      return prepare(sql);
    };
    try {
      const { groupId, counterId } = await seed(store);
      statements.clear();
      await runEveryRead(store, groupId, counterId);
      // The background trim's statements (store/quotas.ts) too.
      const trim = store as unknown as {
        activityBoundary(groupId: string, cap: number): number | null;
        deleteActivityUpTo(groupId: string, upTo: number, limit: number): number;
      };
      trim.activityBoundary(groupId, 100);
      trim.deleteActivityUpTo(groupId, 0, 10);
      db.prepare = prepare;
      const reads = [...statements].filter((sql) => /\b(activity|counters)\b/.test(sql));
      expect(reads.length).toBeGreaterThanOrEqual(8);
      for (const sql of reads) {
        const parameters = Array.from(sql.matchAll(/\?/g), () => 1);
        const plan = (
          db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...parameters) as { detail: string }[]
        ).map((row) => row.detail);
        const onActivity = plan.filter((detail) => /\bactivity\b/.test(detail));
        for (const detail of onActivity) expect(detail, sql).toMatch(/^SEARCH /);
        for (const detail of plan) expect(detail, sql).not.toMatch(/^SCAN (activity|counters)\b/);
        // Nor grouping or sorting every entry of a counter (the old history did).
        for (const detail of plan) expect(detail, sql).not.toMatch(/TEMP B-TREE/);
      }
    } finally {
      await store.close();
    }
  });

  it('answers a history over a year of entries in at most `points` points ending at the current value', async () => {
    const store = new SqliteStore(path.join(dir, 'history.sqlite'));
    await store.migrate();
    try {
      const { groupId, counterId } = await seed(store);
      const db = (store as unknown as { db: Database.Database }).db;
      const start = Date.now() - YEAR_MS;
      const insert = db.prepare(
        `INSERT INTO activity (group_id, seq, at, actor, kind, counter_id, counter_name, value_after, delta)
         VALUES (?, ?, ?, 'Ada', 'counter.adjusted', ?, 'c', ?, 1)`,
      );
      // The counter was created before all of them (ids and times in the same order).
      db.prepare('UPDATE activity SET at = ? WHERE counter_id = ?').run(start - 20_000, counterId);
      db.transaction(() => {
        for (let i = 1; i <= ENTRIES; i++) {
          insert.run(
            groupId,
            i,
            start + Math.floor((i * YEAR_MS) / ENTRIES) - 10_000,
            counterId,
            i,
          );
        }
      })();
      await store.commit([
        {
          groupId,
          mutation: { kind: 'adjustCounter', counterId, direction: 'increment', times: 7 },
        },
      ]);
      const history = await store.counterHistory(groupId, counterId, 100);
      checkHistory(history ?? [], 100, 7);
    } finally {
      await store.close();
    }
  });
});

describe.skipIf(postgresUrl === undefined)('PostgreSQL reads', () => {
  const schemas: string[] = [];
  afterAll(async () => {
    await dropSchemas(schemas);
  });

  async function open(): Promise<{ store: PostgresStore; schema: string }> {
    const schema = uniqueSchema();
    schemas.push(schema);
    const store = await openPostgresStore(schema, { instanceId: 'bounded-reads' });
    return { store, schema };
  }

  it('read activity and counters through indexes only: no Seq Scan on activity with seqscan off', async () => {
    const { store, schema } = await open();
    const statements: { text: string; values: unknown[] }[] = [];
    const query = store.pool.query.bind(store.pool);
    try {
      const { groupId, counterId } = await seed(store);
      store.pool.query = ((text: string, values?: unknown[]) => {
        statements.push({ text, values: values ?? [] });
        return query(text, values);
      }) as typeof store.pool.query;
      await runEveryRead(store, groupId, counterId);
      store.pool.query = query;
      const reads = statements.filter(({ text }) => /\b(activity|counters)\b/.test(text));
      expect(reads.length).toBeGreaterThanOrEqual(8);
      const client = new pg.Client({ connectionString: postgresUrl });
      await client.connect();
      try {
        await client.query(`SET search_path = ${schema}`);
        await client.query('SET enable_seqscan = off');
        for (const { text, values } of reads) {
          const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${text}`, values);
          const plan = rows.map((row) => row['QUERY PLAN']).join('\n');
          expect(plan, text).not.toMatch(/Seq Scan on activity/);
        }
      } finally {
        await client.end();
      }
    } finally {
      store.pool.query = query;
      await store.close();
    }
  });

  it('answers a history over a year of entries in at most `points` points ending at the current value', async () => {
    const { store, schema } = await open();
    try {
      const { groupId, counterId } = await seed(store);
      // The counter was created before all of them (ids and times in the same order).
      await adminQuery(
        `UPDATE ${schema}.activity SET at = now() - interval '366 days' WHERE counter_id = $1`,
        [counterId],
      );
      await adminQuery(
        `INSERT INTO ${schema}.activity (group_id, seq, at, actor, kind, counter_id, counter_name, value_after, delta)
         SELECT $1, i, now() - interval '365 days' + (i * interval '365 days' / $3) - interval '10 seconds',
                'Ada', 'counter.adjusted', $2, 'c', i, 1
         FROM generate_series(1, $3::int) AS i`,
        [groupId, counterId, ENTRIES],
      );
      await store.commit([
        {
          groupId,
          mutation: { kind: 'adjustCounter', counterId, direction: 'increment', times: 7 },
        },
      ]);
      const history = await store.counterHistory(groupId, counterId, 100);
      checkHistory(history ?? [], 100, 7);
    } finally {
      await store.close();
    }
  });
});
