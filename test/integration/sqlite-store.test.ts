import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hashKey } from '../../src/server/core/access.js';
import { SqliteStore } from '../../src/server/store/sqlite.js';
import type { Store } from '../../src/server/store/types.js';
import { describeActivityContract } from './activity.suite.js';
import { describeStoreContract } from './store.suite.js';

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

describeStoreContract('SQLite', {
  create: () => open(path.join(dir, `store-${++count}.sqlite`)),
  reopen: (store) => {
    const file = files.get(store);
    if (file === undefined) throw new Error('unknown store');
    return open(file);
  },
});

describeActivityContract('SQLite', () => open(path.join(dir, `activity-${++count}.sqlite`)));

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
