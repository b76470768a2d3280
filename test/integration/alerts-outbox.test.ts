/**
 * The alert outbox behind a receiver that fails, on both stores: the alerts waiting behind a
 * destination in backoff wait as long as it does, so they are not due and no claim reads them.
 * Without that, every claim (after each commit that fires an alert, and every second) walked a
 * backlog that a receiver down for hours leaves behind, on the event loop every tap waits for.
 * Order per destination and at-least-once delivery are unchanged: once the alert ahead is over,
 * the ones behind it come, oldest first, none lost.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sqliteDatabase } from '../../src/server/store/sqlite/driver.js';
import { SqliteStore } from '../../src/server/store/sqlite/store.js';
import type { Store } from '../../src/server/store/types.js';
import { groupAlertingEveryTap } from '../helpers/alerts.js';
import { newKey } from '../helpers/client.js';
import {
  adminQuery,
  dropSchemas,
  openPostgresStore,
  postgresUrl,
  uniqueSchema,
} from '../helpers/postgres.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tally-alert-outbox-'));
const schemas: string[] = [];
afterAll(async () => {
  fs.rmSync(dir, { recursive: true, force: true });
  if (postgresUrl !== undefined) await dropSchemas(schemas);
});

interface OpenStore {
  store: Store;
  /** Alerts in the outbox due at `now`, whatever their place behind others. */
  dueCount: (now: number) => Promise<number>;
}

async function openSqlite(): Promise<OpenStore> {
  const file = path.join(dir, `${newKey(4)}.sqlite`);
  const store = new SqliteStore(file);
  await store.migrate();
  return {
    store,
    dueCount: (now) => {
      // A second connection, as a reader: the store's own is in WAL mode.
      const Database = sqliteDatabase();
      const reader = new Database(file, { readonly: true });
      try {
        const row = reader
          .prepare('SELECT count(*) AS n FROM alert_outbox WHERE next_attempt_at <= ?')
          .get(now) as { n: number };
        return Promise.resolve(row.n);
      } finally {
        reader.close();
      }
    },
  };
}

async function openPostgres(): Promise<OpenStore> {
  const schema = uniqueSchema();
  schemas.push(schema);
  const store = await openPostgresStore(schema, { instanceId: 'alert-outbox' });
  return {
    store,
    dueCount: async (now) => {
      const { rows } = await adminQuery(
        `SELECT count(*)::int AS n FROM ${schema}.alert_outbox WHERE next_attempt_at <= $1`,
        [now],
      );
      return (rows[0] as { n: number }).n;
    },
  };
}

const multipleOf = (body: string) => (JSON.parse(body) as { multiple?: number }).multiple;

const backends: [string, () => Promise<OpenStore>][] = [['SQLite', openSqlite]];
if (postgresUrl !== undefined) backends.push(['PostgreSQL', openPostgres]);

describe.each(backends)('the alert outbox on %s', (_name, open) => {
  it('alerts behind a destination in backoff are not due until it is, and then come in order, none lost', async () => {
    const { store, dueCount } = await open();
    try {
      const failing = await groupAlertingEveryTap(store, 'failing', 'http://127.0.0.1:9/failing');
      const healthy = await groupAlertingEveryTap(store, 'healthy', 'http://127.0.0.1:9/healthy');
      await failing.tap(5);
      const now = Date.now();
      const [head, ...others] = await store.alerts.claim(now, 60_000, 10);
      expect(others).toHaveLength(0);
      expect(head?.groupId).toBe(failing.groupId);
      expect(multipleOf(head?.body ?? '{}')).toBe(1);

      // Its receiver failed: tried again in an hour.
      const retryAt = now + 60 * 60 * 1000;
      await store.alerts.settle([
        { id: head?.id ?? 0, record: null, next: { at: retryAt, attempted: true, progress: null } },
      ]);
      // Alerts fired meanwhile, for the failing destination and another group's.
      await failing.tap(3);
      await healthy.tap(1);

      const later = Date.now() + 1_000;
      expect(await dueCount(later)).toBe(1);
      const claimed = await store.alerts.claim(later, 60_000, 10);
      expect(claimed.map((alert) => alert.groupId)).toEqual([healthy.groupId]);
      await store.alerts.settle(
        claimed.map((alert) => ({ id: alert.id, record: null, next: null })),
      );

      // The hour is over: the head goes, then each alert behind it, one at a time, in order.
      const sent: (number | undefined)[] = [];
      for (let round = 0; round < 10; round += 1) {
        const batch = await store.alerts.claim(retryAt, 60_000, 10);
        if (batch.length === 0) break;
        expect(batch).toHaveLength(1);
        sent.push(...batch.map((alert) => multipleOf(alert.body)));
        await store.alerts.settle(
          batch.map((alert) => ({ id: alert.id, record: null, next: null })),
        );
      }
      expect(sent).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      expect(await store.alerts.pendingCount(failing.groupId)).toBe(0);
    } finally {
      await store.close();
    }
  });
});
