/**
 * The composition root (src/server/backend.ts): from a configuration it opens the right store
 * with the bus that goes with it and a batcher committing through both; closing it commits
 * what was submitted before letting the database go.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { openBackend, type Backend } from '../../src/server/backend.js';
import type { Config, DatabaseConfig } from '../../src/server/config.js';
import type { Change } from '../../src/shared/protocol.js';
import { dropSchemas, postgresDatabase, postgresUrl, uniqueSchema } from '../helpers/postgres.js';

const silent = pino({ level: 'silent' });

const configOn = (database: DatabaseConfig): Config => ({
  port: 0,
  host: '127.0.0.1',
  database,
  logLevel: 'silent',
});

/** A mutation submitted through the batcher, and the changes the bus announced for it. */
async function createCounterThrough(backend: Backend, groupName: string) {
  const { group } = await backend.store.createGroup(groupName, 'a'.repeat(64));
  const announced: Change[] = [];
  const unsubscribe = backend.bus.subscribe(group.id, (changes) => {
    announced.push(...changes);
  });
  const outcome = await backend.batcher.submit({
    groupId: group.id,
    mutation: { kind: 'createCounter', fields: { name: 'Coffees' } },
  });
  await expect.poll(() => announced.length).toBeGreaterThan(0);
  unsubscribe();
  return { group, outcome, announced };
}

function describeBackend(kind: 'sqlite' | 'postgres', database: () => DatabaseConfig): void {
  it(`opens a ${kind} store whose committed changes reach the bus`, async () => {
    const backend = await openBackend(configOn(database()), silent);
    try {
      expect(backend.store.kind).toBe(kind);
      const { group, outcome, announced } = await createCounterThrough(backend, `${kind}-root`);

      expect(outcome.ok).toBe(true);
      expect(announced.map((change) => change.type)).toEqual(['counter.created']);
      const state = await backend.store.loadGroupState(group.id);
      expect(state?.counters.map((counter) => counter.name)).toEqual(['Coffees']);
    } finally {
      await backend.close();
    }
  });

  it(`commits what was submitted before ${kind} closes`, async () => {
    const config = configOn(database());
    const backend = await openBackend(config, silent);
    const { group } = await backend.store.createGroup(`${kind}-closing`, 'b'.repeat(64));
    const submitted = backend.batcher.submit({
      groupId: group.id,
      mutation: { kind: 'createCounter', fields: { name: 'Last' } },
    });
    await backend.close();
    expect((await submitted).ok).toBe(true);

    // The database was let go: a new backend opens it and finds the counter.
    const reopened = await openBackend(config, silent);
    try {
      const state = await reopened.store.loadGroupState(group.id);
      expect(state?.counters.map((counter) => counter.name)).toEqual(['Last']);
    } finally {
      await reopened.close();
    }
  });
}

describe('the back end on SQLite', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tally-backend-'));
  afterAll(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });
  let files = 0;
  describeBackend('sqlite', () => ({
    kind: 'sqlite',
    file: path.join(dir, `tally-${String((files += 1))}.sqlite`),
  }));
});

describe.skipIf(postgresUrl === undefined)('the back end on PostgreSQL', () => {
  const schemas: string[] = [];
  afterAll(async () => {
    await dropSchemas(schemas);
  });
  describeBackend('postgres', () => {
    const schema = uniqueSchema();
    schemas.push(schema);
    return postgresDatabase(schema);
  });
});

describe('the back end without its database', () => {
  it('refuses an unreachable PostgreSQL with one readable line', async () => {
    // Port 1 on loopback: nothing listens there.
    const config = configOn({
      kind: 'postgres',
      url: 'postgres://postgres@127.0.0.1:1/test',
      poolSize: 1,
    });
    await expect(openBackend(config, silent)).rejects.toThrow(
      /^cannot use PostgreSQL: .*ECONNREFUSED/,
    );
  });
});
