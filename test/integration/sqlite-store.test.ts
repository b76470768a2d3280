import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { hashKey } from '../../src/server/core/access.js';
import { SAFETY_NET_PAGES } from '../../src/server/store/sqlite/checkpointer.js';
import { MIGRATIONS } from '../../src/server/store/sqlite/migrations.js';
import { SqliteStore } from '../../src/server/store/sqlite/store.js';
import { sqliteDatabase } from '../../src/server/store/sqlite/driver.js';
import type { Operation, Store } from '../../src/server/store/types.js';
import type { Counter, Group, Mutation } from '../../src/shared/api.js';
import { describeActivityContract } from './activity.suite.js';
import { describeNotesContract } from './notes.suite.js';
import { describePurposeContract } from './purpose.suite.js';
import { describeNumberedIdsContract } from './numbered-ids.suite.js';
import { describeStoreContract, type StoreFactory } from './store.suite.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tally-sqlite-'));
const files = new WeakMap<Store, string>();
let count = 0;

afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

async function open(file: string): Promise<Store> {
  const store = new SqliteStore(file);
  await store.migrate();
  files.set(store, file);
  return store;
}

/** A new group named `name` with one counter, in `store`. */
async function groupWithCounter(
  store: Store,
  name: string,
): Promise<{ groupId: string; counterId: string }> {
  const { group } = await store.createGroup(name, hashKey('cd'.repeat(16)));
  const [created] = await store.commit([
    { groupId: group.id, mutation: { kind: 'createCounter', fields: {} } },
  ]);
  if (!created?.ok || created.result.kind !== 'counter') throw new Error('no counter');
  return { groupId: group.id, counterId: created.result.counter.id };
}

/** One +1 tap by Ada, with an operation id when given. */
function tapOn(groupId: string, counterId: string, opId?: string): Operation {
  return {
    groupId,
    ...(opId === undefined ? {} : { opId }),
    actor: 'Ada',
    mutation: { kind: 'adjustCounter', counterId, direction: 'increment', times: 1 },
  };
}

/** A database file at an older schema `version`, as that version's server left it (open). */
function databaseAtSchema(file: string, version: number) {
  const db = new (sqliteDatabase())(file);
  db.exec(
    'CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL) STRICT',
  );
  MIGRATIONS.slice(0, version).forEach((sql, index) => {
    db.exec(sql);
    db.prepare('INSERT INTO schema_migrations VALUES (?, ?)').run(index + 1, Date.now());
  });
  return db;
}

/** Fresh stores in files of their own; `reopen` opens the same file again. */
const sqliteStores: StoreFactory = {
  create: () => open(path.join(dir, `store-${++count}.sqlite`)),
  reopen: (store) => {
    const file = files.get(store);
    if (file === undefined) throw new Error('unknown store');
    return open(file);
  },
};
describeStoreContract('SQLite', sqliteStores);
describeNumberedIdsContract('SQLite', sqliteStores);

describeActivityContract('SQLite', () => open(path.join(dir, `activity-${++count}.sqlite`)));

describePurposeContract('SQLite', async (clock) => {
  const store = new SqliteStore(path.join(dir, `purpose-${++count}.sqlite`), { clock });
  await store.migrate();
  return store;
});

// The same place opens the same file again: a restart.
describeNotesContract('SQLite', async (clock, place) => {
  const store = new SqliteStore(path.join(dir, `${place}.sqlite`), { clock });
  await store.migrate();
  return store;
});

describe('SQLite store with ACTIVITY_LOG=off', () => {
  it('applies changes and writes no activity entry', async () => {
    const store = new SqliteStore(path.join(dir, `no-log-${++count}.sqlite`), {
      activityLog: false,
    });
    await store.migrate();
    const { group } = await store.createGroup('no-log', hashKey('ab'.repeat(16)));
    const [created] = await store.commit([
      { groupId: group.id, mutation: { kind: 'createCounter', fields: {} }, opId: 'c1' },
    ]);
    expect(created?.ok).toBe(true);
    expect(await store.listActivity(group.id, { limit: 10, order: 'newest' })).toEqual([]);
    const [undo] = await store.commit([
      { groupId: group.id, mutation: { kind: 'undoOperation', opId: 'c1' } },
    ]);
    expect(undo).toMatchObject({ ok: false, code: 'activity_not_found' });
    await store.close();
  });
});

describe('SQLite rows kept in memory (ADR 25)', () => {
  it('answer every batch of random changes as the file holds them after it, change numbers too', async () => {
    const store = await open(path.join(dir, `rows-${++count}.sqlite`));
    const groups = await Promise.all(
      ['rows-a', 'rows-b'].map((name) => groupWithCounter(store, name)),
    );
    const change = fc.record({
      group: fc.constantFrom(0, 1),
      kind: fc.constantFrom(
        'tap',
        'tap',
        'tap',
        'set',
        'rename',
        'create',
        'delete',
        'undo',
        'group',
      ),
      amount: fc.integer({ min: 1, max: 5 }),
    });
    const batches = fc.sample(fc.array(change, { minLength: 1, maxLength: 6 }), {
      numRuns: 150,
      seed: 25,
    });
    const counterIds = async (groupId: string) =>
      ((await store.loadGroupState(groupId))?.counters ?? []).map((c) => c.id);
    for (const batch of batches) {
      const operations: Operation[] = [];
      for (const { group, kind, amount } of batch) {
        const { groupId } = groups[group] as { groupId: string };
        const ids = await counterIds(groupId);
        const counterId = ids[amount % Math.max(ids.length, 1)] ?? 'none';
        const mutation: Mutation =
          kind === 'tap'
            ? { kind: 'adjustCounter', counterId, direction: 'increment', times: amount }
            : kind === 'set'
              ? { kind: 'updateCounter', counterId, patch: { value: amount * 10 } }
              : kind === 'rename'
                ? { kind: 'updateCounter', counterId, patch: { name: `n${amount}` } }
                : kind === 'create'
                  ? { kind: 'createCounter', fields: { value: amount } }
                  : kind === 'delete'
                    ? { kind: 'deleteCounter', counterId }
                    : kind === 'group'
                      ? { kind: 'updateGroup', patch: { displayName: `Group ${amount}` } }
                      : { kind: 'undoEntry', entryId: await newestEntry(groupId) };
        operations.push({ groupId, actor: 'Ada', mutation });
      }
      const outcomes = await store.commit(operations);
      // The last answer about each counter and group is its row in the file now, and each
      // group's newest change number is the one in the file.
      const answered = new Map<string, Counter | Group>();
      const newestSeq = new Map<string, number>();
      outcomes.forEach((outcome, index) => {
        if (!outcome.ok) return;
        const { result } = outcome;
        if (result.kind === 'counter') answered.set(result.counter.id, result.counter);
        if (result.kind === 'group') answered.set(result.group.id, result.group);
        const groupId = operations[index]?.groupId ?? '';
        for (const { seq } of outcome.changes) {
          newestSeq.set(groupId, Math.max(newestSeq.get(groupId) ?? 0, seq));
        }
      });
      for (const { groupId } of groups) {
        const state = await store.loadGroupState(groupId);
        const seq = newestSeq.get(groupId);
        if (seq !== undefined) expect(state?.seq).toBe(seq);
        const group = answered.get(groupId);
        if (group) expect(state?.group).toMatchObject(group);
        for (const counter of state?.counters ?? []) {
          const answer = answered.get(counter.id);
          if (answer) expect(answer).toEqual(counter);
        }
      }
    }
    await store.close();

    async function newestEntry(groupId: string): Promise<number> {
      const [entry] = await store.listActivity(groupId, { limit: 1, order: 'newest' });
      return entry?.id ?? 0;
    }
  });
});

describe('SQLite WAL checkpoints', () => {
  it('are run by a worker thread, and the WAL starts over under sustained writes', async () => {
    const file = path.join(dir, `wal-${++count}.sqlite`);
    const store = new SqliteStore(file);
    await store.migrate();
    const { groupId, counterId } = await groupWithCounter(store, 'wal');
    // Batches one after another, as under sustained load: ~3,000 commits of ~10 pages each,
    // 130 MB of WAL frames. A write always lands while the worker copies, so only the server
    // connection's safety-net checkpoint lets the file start over.
    let sent = 0;
    for (let round = 0; round < 30; round += 1) {
      for (let batch = 0; batch < 100; batch += 1) {
        sent += 1;
        await store.commit([tapOn(groupId, counterId, `tap-${sent}`)]);
      }
      // Let the worker's interval come round now and then, as idle moments do.
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await expect.poll(() => store.checkpoints, { timeout: 5_000 }).toBeGreaterThan(0);
    const walBytes = fs.statSync(`${file}-wal`).size;
    expect(walBytes).toBeLessThan((SAFETY_NET_PAGES + 1_000) * 4_096);
    const state = await store.loadGroupState(groupId);
    expect(state?.counters[0]?.value).toBe(sent);
    await store.close();
  });
});

describe('SQLite entry times', () => {
  it('never go backwards, across a clock stepping back and a restart, so a counter pages in id order', async () => {
    const file = path.join(dir, `clock-${++count}.sqlite`);
    const clock = { now: Date.parse('2026-11-24T12:00:00Z') };
    const first = new SqliteStore(file, { clock: () => clock.now });
    await first.migrate();
    const { groupId, counterId } = await groupWithCounter(first, 'clock');
    const tap = () => tapOn(groupId, counterId);
    await first.commit([tap()]);
    clock.now -= 60_000; // NTP steps the clock back a minute
    await first.commit([tap()]);
    await first.close();
    clock.now -= 60_000; // and again while the server restarts
    const second = new SqliteStore(file, { clock: () => clock.now });
    await second.migrate();
    await second.commit([tap()]);

    const entries = await second.listActivity(groupId, { limit: 50, counterId, order: 'oldest' });
    expect(entries).toHaveLength(4);
    expect(entries.map((entry) => entry.id)).toEqual(
      [...entries.map((entry) => entry.id)].sort((a, b) => a - b),
    );
    const times = entries.map((entry) => Date.parse(entry.at));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(times.at(-1)).toBe(Date.parse('2026-11-24T12:00:00Z'));
    const [newest] = await second.listActivity(groupId, { limit: 1, counterId, order: 'newest' });
    expect(newest?.id).toBe(entries.at(-1)?.id);
    await second.close();
  });
});

describe('SQLite upgrade from schema 6', () => {
  it('keeps operation ids and entries: a retried tap is answered, not applied again, and a counter still pages', async () => {
    const file = path.join(dir, `upgrade-${++count}.sqlite`);
    const old = databaseAtSchema(file, 6);
    const at = Date.parse('2026-11-23T10:00:00Z');
    old
      .prepare(
        `INSERT INTO counter_groups (id, name, display_name, access_key_hash, created_at, seq)
         VALUES ('g1', 'upgrade', 'upgrade', ?, ?, 3)`,
      )
      .run(hashKey('ab'.repeat(16)), at);
    old
      .prepare(
        `INSERT INTO counters (id, group_id, name, description, value, increment_step,
           decrement_step, created_at, created_seq, version)
         VALUES ('c1', 'g1', 'Coffees', '', 2, 1, 1, ?, 1, 3)`,
      )
      .run(at);
    const entry = old.prepare(
      `INSERT INTO activity (group_id, seq, at, actor, kind, counter_id, counter_name, value_after,
         delta, increments, decrements)
       VALUES ('g1', ?, ?, 'Ada', 'counter.adjusted', 'c1', 'Coffees', ?, 1, 1, 0)`,
    );
    const remember = old.prepare(
      `INSERT INTO operation_ids (group_id, op_id, result, created_at, activity_id, fingerprint)
       VALUES ('g1', ?, '{"kind":"counterRef","counterId":"c1"}', ?, ?, '+1@c1')`,
    );
    for (const [seq, opId] of [
      [2, 'tap-1'],
      [3, 'tap-2'],
    ] as const) {
      const { lastInsertRowid } = entry.run(seq, at + seq, seq - 1);
      remember.run(opId, at + seq, lastInsertRowid);
    }
    old.close();

    const store = new SqliteStore(file);
    await store.migrate();
    const tap = (opId: string) => store.commit([tapOn('g1', 'c1', opId)]);
    const [retried] = await tap('tap-2');
    expect(retried).toMatchObject({ ok: true, replayed: true });
    expect((await store.loadGroupState('g1'))?.counters[0]?.value).toBe(2);
    const [fresh] = await tap('tap-3');
    expect(fresh).toMatchObject({ ok: true, replayed: false });
    expect((await store.loadGroupState('g1'))?.counters[0]?.value).toBe(3);
    const entries = await store.listActivity('g1', { limit: 50, counterId: 'c1', order: 'newest' });
    expect(entries.map((e) => e.seq)).toEqual([4, 3, 2]);
    const [older] = await store.listActivity('g1', {
      limit: 1,
      counterId: 'c1',
      order: 'newest',
      before: entries[0]?.id,
    });
    expect(older?.seq).toBe(3);
    // Operation ids past their age are pruned from the new table: the two from the old schema,
    // stamped 2026-11-23, not the one just written (an age of 0 would race its millisecond).
    expect(await store.pruneOperationIds(60_000)).toBe(2);
    const [again] = await tap('tap-3');
    expect(again).toMatchObject({ ok: true, replayed: true });
    await store.close();
  });
});

describe('SQLite pruning by age, without an index by time (schema 9)', () => {
  it('deletes the rows older than the age by rowid, never a newer row written out of order', async () => {
    const file = path.join(dir, `prune-${++count}.sqlite`);
    const Sqlite = sqliteDatabase();
    const old = databaseAtSchema(file, 8);
    const now = Date.now();
    const hour = 3_600_000;
    // Hours before now, in rowid order: the third (entries) and second (operation ids) are out
    // of order, as a clock that stepped back, or migration 8's copy in key order, left them.
    const entryAges = [50, 49, 1, 48, 47, 2, 0.5];
    const entry = old.prepare(
      `INSERT INTO activity (group_id, seq, at, actor, kind, counter_id, counter_name, value_after,
         delta, increments, decrements)
       VALUES ('g1', ?, ?, 'Ada', 'counter.adjusted', 'c1', 'Coffees', 1, 1, 1, 0)`,
    );
    entryAges.forEach((age, index) => entry.run(index + 1, now - age * hour));
    const operationAges = [30, 1, 29, 28, 3, 2];
    const remember = old.prepare(
      `INSERT INTO operation_ids (group_id, op_id, result, created_at, activity_id, fingerprint)
       VALUES ('g1', ?, '{"kind":"counterRef","counterId":"c1"}', ?, NULL, NULL)`,
    );
    operationAges.forEach((age, index) => remember.run(`op-${index}`, now - age * hour));
    old.close();

    const store = new SqliteStore(file);
    await store.migrate();
    // Older than 24 hours: four entries and three operation ids.
    expect(await store.pruneActivity(24 * hour)).toBe(4);
    expect(await store.pruneOperationIds(24 * hour)).toBe(3);
    await store.close();
    const after = new Sqlite(file, { readonly: true });
    const left = (sql: string) => (after.prepare(sql).all() as { age: number }[]).map((r) => r.age);
    const hoursAgo = (column: string) => `ROUND((${now} - ${column}) / ${hour}.0, 1) AS age`;
    expect(left(`SELECT ${hoursAgo('at')} FROM activity ORDER BY id`)).toEqual([1, 2, 0.5]);
    expect(left(`SELECT ${hoursAgo('created_at')} FROM operation_ids ORDER BY rowid`)).toEqual([
      1, 3, 2,
    ]);
    // No index by time is left to pay a leaf per tap.
    const indexes = after
      .prepare(`SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE '%by_age'`)
      .all();
    expect(indexes).toEqual([]);
    after.close();
  });
});
