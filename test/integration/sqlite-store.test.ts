import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';
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
