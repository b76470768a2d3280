import { afterAll, describe, expect, it } from 'vitest';
import type { PostgresStore } from '../../src/server/store/postgres/store.js';
import type { Store } from '../../src/server/store/types.js';
import { dropSchemas, openPostgresStore, postgresUrl, uniqueSchema } from '../helpers/postgres.js';
import { describeActivityContract } from './activity.suite.js';
import { describeNotesContract } from './notes.suite.js';
import { describePurposeContract } from './purpose.suite.js';
import { describeNumberedIdsContract } from './numbered-ids.suite.js';
import { describeStoreContract, type StoreFactory } from './store.suite.js';

const schemas = new Map<Store, string>();

async function open(schema: string, clock?: () => number): Promise<PostgresStore> {
  const store = await openPostgresStore(schema, {
    instanceId: 'store-suite',
    poolSize: 4,
    ...(clock ? { clock } : {}),
  });
  schemas.set(store, schema);
  return store;
}

describe.skipIf(postgresUrl === undefined)('on PostgreSQL', () => {
  afterAll(async () => {
    await dropSchemas(new Set(schemas.values()));
  });

  describeActivityContract('PostgreSQL', () => open(uniqueSchema()));

  // One schema for these tests (their groups have unique names): a second store opened in a
  // test stands for a second instance on the same database.
  const purposeSchema = uniqueSchema();
  describePurposeContract('PostgreSQL', (clock) => open(purposeSchema, clock));

  // One schema per place: opening the same place again is a restart on the same database.
  const notePlaces = new Map<string, string>();
  describeNotesContract('PostgreSQL', (clock, place) => {
    const schema = notePlaces.get(place) ?? uniqueSchema();
    notePlaces.set(place, schema);
    return open(schema, clock);
  });

  /** A fresh schema each; `reopen` opens the same schema again. */
  const postgresStores: StoreFactory = {
    create: () => open(uniqueSchema()),
    reopen: (store) => {
      const schema = schemas.get(store);
      if (schema === undefined) throw new Error('unknown store');
      return open(schema);
    },
  };
  describeStoreContract('PostgreSQL', postgresStores);

  it('a connection that fails as the pool hands it over does not end the process', async () => {
    const store = await open(uniqueSchema());
    // Handed over: the pool's idle listener is off, and no caller has added its own yet. A
    // server's FATAL read then (a restart ends every backend) is emitted as 'error' right there.
    const client = await store.pool.connect();
    try {
      expect(() =>
        client.emit('error', new Error('terminating connection due to administrator command')),
      ).not.toThrow();
    } finally {
      client.release(true);
    }
    // The store goes on: the broken connection was discarded.
    const { created } = await store.createGroup('after-a-lost-connection', 'a'.repeat(64));
    expect(created).toBe(true);
    await store.close();
  });
  describeNumberedIdsContract('PostgreSQL', postgresStores);
});
