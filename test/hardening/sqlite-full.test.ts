/**
 * SQLite's own faults under load: the disk filling up (SQLITE_FULL, brought about with
 * max_page_count, which SQLite answers exactly as it answers ENOSPC) and the file turning
 * read-only (SQLITE_READONLY, with query_only). Taps keep coming in waves; while the fault lasts
 * they are answered 503 storage_unavailable (a full disk still takes the writes that fit in pages
 * it has), /api/health says 503 while nothing can be written, nothing is acknowledged that is not
 * stored, and once space (or write access) returns, taps are applied again without a restart.
 */
import type Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import type { Counter } from '../../src/shared/api.js';
import { call, createGroup } from '../helpers/client.js';
import { startServer, type TestServer } from '../helpers/server.js';

const started: TestServer[] = [];
afterEach(async () => {
  for (const server of started.splice(0)) await server.close();
});

/** The server's own write connection (its store keeps it private). */
function writer(server: TestServer): Database.Database {
  return (server.app.tally.store as unknown as { db: Database.Database }).db;
}

const FAULTS = {
  'the disk fills up': {
    start: (db: Database.Database) => {
      db.pragma(`max_page_count = ${String(db.pragma('page_count', { simple: true }))}`);
    },
    // SQLite's default ceiling, far past anything a test writes.
    end: (db: Database.Database) => db.pragma('max_page_count = 1073741823'),
    /** The health probe rewrites one row in place: a full disk may still take it. */
    healthDown: false,
  },
  'the file turns read-only': {
    start: (db: Database.Database) => db.pragma('query_only = ON'),
    end: (db: Database.Database) => db.pragma('query_only = OFF'),
    healthDown: true,
  },
};

describe.each(Object.entries(FAULTS))('SQLite under load when %s', (_name, fault) => {
  it('answers 503, acknowledges only what is stored, and recovers without a restart', async () => {
    const server = await startServer({ logLevel: 'silent' });
    started.push(server);
    const member = await createGroup(server.url);
    const counter = await member.addCounter();
    let sent = 0;
    let acked = 0;
    const statuses: number[] = [];
    /** 20 taps at once, each with an operation id of its own. */
    const wave = async () => {
      const answers = await Promise.all(
        Array.from({ length: 20 }, () => {
          sent += 1;
          return call(server.url, 'POST', `${member.base}/counters/${counter.id}/increment`, {
            key: member.key,
            headers: { 'idempotency-key': `wave-${String(sent)}` },
          });
        }),
      );
      for (const answer of answers) {
        statuses.push(answer.status);
        if (answer.status === 200) acked += 1;
        else expect(answer.body).toMatchObject({ error: { code: 'storage_unavailable' } });
      }
      return answers.map((answer) => answer.status);
    };
    await wave();
    fault.start(writer(server));
    // Free space in the pages it has may take a few taps first.
    let refused = 0;
    for (let i = 0; i < 50 && refused < 20; i++) {
      refused += (await wave()).filter((status) => status === 503).length;
    }
    expect(refused).toBeGreaterThanOrEqual(20);
    if (fault.healthDown) expect((await call(server.url, 'GET', '/api/health')).status).toBe(503);

    fault.end(writer(server));
    const after = await wave();
    expect(after.every((status) => status === 200)).toBe(true);
    await expect
      .poll(async () => (await call(server.url, 'GET', '/api/health')).status, { timeout: 5_000 })
      .toBe(200);
    const stored = (await member.counters()).find((c: Counter) => c.id === counter.id)?.value;
    expect(stored).toBe(acked);
    expect(statuses.filter((status) => status !== 200 && status !== 503)).toEqual([]);
  });
});
