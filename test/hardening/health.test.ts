/**
 * Storage that cannot take writes is never hidden (docs/api.md#health): /api/health answers 503
 * when a write cannot be committed, writes are refused with 503 instead of acknowledged and lost, a
 * second server on one SQLite file refuses to start, and another process holding SQLite's write
 * lock gets writes answered 503 `busy` at once while reads go on.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { sqliteDriverPath } from '../../src/server/store/sqlite/driver.js';
import type { ApiError, Counter } from '../../src/shared/api.js';
import { MESSAGES } from '../../src/shared/messages.js';
import type { ServerMessage } from '../../src/shared/protocol.js';
import { call, createGroup, newKey, uniqueGroupName } from '../helpers/client.js';
import { joinLive } from '../helpers/live.js';
import {
  adminQuery,
  dropSchemas,
  postgresDatabase,
  postgresUrl,
  uniqueSchema,
} from '../helpers/postgres.js';
import { startServer, type TestServer } from '../helpers/server.js';

const started: TestServer[] = [];
const schemas: string[] = [];
afterEach(async () => {
  for (const server of started.splice(0)) await server.close();
  await dropSchemas(schemas.splice(0));
});

async function start(options: Parameters<typeof startServer>[0] = {}): Promise<TestServer> {
  const server = await startServer(options);
  started.push(server);
  return server;
}

const health = (server: TestServer) => call<ApiError>(server.url, 'GET', '/api/health');

/** Polls /api/health until it answers `status` (its probe result is cached for about 1 s). */
async function healthBecomes(server: TestServer, status: number): Promise<ApiError> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const answer = await health(server);
    if (answer.status === status || Date.now() > deadline) {
      expect(answer.status).toBe(status);
      return answer.body;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const unavailable = { code: 'storage_unavailable', message: MESSAGES.storageUnavailable };

describe('a SQLite file deleted or replaced under the running server', () => {
  it.each(['deleted', 'replaced'])(
    'when %s: health answers 503 and writes are refused, not acknowledged',
    async (how) => {
      const server = await start();
      const member = await createGroup(server.url);
      const counter = await member.addCounter();
      expect((await health(server)).status).toBe(200);

      if (how === 'deleted') {
        fs.rmSync(server.databaseFile);
      } else {
        fs.copyFileSync(server.databaseFile, `${server.databaseFile}.copy`);
        fs.renameSync(`${server.databaseFile}.copy`, server.databaseFile);
      }

      const taps = [];
      for (let i = 0; i < 10; i++) {
        taps.push(
          await call<ApiError>(
            server.url,
            'POST',
            `${member.base}/counters/${counter.id}/increment`,
            { key: member.key },
          ),
        );
      }
      for (const tap of taps) {
        expect(tap.status).toBe(503);
        expect(tap.body.error).toEqual(unavailable);
      }
      const join = await call<ApiError>(
        server.url,
        'POST',
        `/api/groups/${uniqueGroupName()}/join`,
        {
          body: { key: newKey() },
        },
      );
      expect([join.status, join.body.error.code]).toEqual([503, 'storage_unavailable']);
      expect((await healthBecomes(server, 503)).error).toEqual(unavailable);
    },
  );
});

describe('two servers on one SQLite file', () => {
  it('the second refuses to start with one line; once the first stops, a new one starts', async () => {
    const first = await start();
    const database = { kind: 'sqlite', file: first.databaseFile } as const;
    const error = await startServer({ database }).then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(Error);
    const message = (error as Error).message;
    expect(message).toContain('another Tally server is already using');
    expect(message).not.toContain('\n');
    expect((await health(first)).status).toBe(200);

    await first.close({ keepDatabase: true });
    started.splice(started.indexOf(first), 1);
    const next = await start({ database });
    expect((await health(next)).status).toBe(200);
    fs.rmSync(first.databaseFile.replace(/\/[^/]+$/, ''), { recursive: true, force: true });
  });
});

/** Another process holding SQLite's write lock (BEGIN EXCLUSIVE) until told to let go. */
async function holdWriteLock(file: string): Promise<{ release(): Promise<void> }> {
  const driver = sqliteDriverPath();
  const script = `
    const Database = require(process.env.DRIVER);
    const db = new Database(process.env.FILE);
    db.exec('BEGIN EXCLUSIVE');
    process.stdout.write('locked\\n');
    process.stdin.once('data', () => {
      db.exec('COMMIT');
      db.close();
      process.stdout.write('released\\n');
      process.exit(0);
    });`;
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, ['-e', script], {
    env: { ...process.env, DRIVER: driver, FILE: file },
  });
  const said = (word: string) =>
    new Promise<void>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes(word)) resolve();
      });
      child.once('exit', () => {
        reject(new Error(`lock holder exited before saying ${word}`));
      });
    });
  await said('locked');
  return {
    async release() {
      const released = said('released');
      child.stdin.write('go\n');
      await released;
    },
  };
}

describe('a SQLite write lock held by another process', () => {
  it('answers writes 503 busy at once, keeps serving reads, and writes again once released', async () => {
    const server = await start();
    const member = await createGroup(server.url);
    const counter = await member.addCounter();
    const tap = () =>
      call<Counter & ApiError>(
        server.url,
        'POST',
        `${member.base}/counters/${counter.id}/increment`,
        { key: member.key },
      );
    const live = await joinLive(server.wsUrl, member.group.name, member.key);
    const lock = await holdWriteLock(server.databaseFile);
    try {
      for (let i = 0; i < 5; i++) {
        const answer = await tap();
        expect(answer.status).toBe(503);
        expect(answer.body.error).toEqual({ code: 'busy', message: MESSAGES.busy });
      }
      live.send({
        type: 'mutate',
        opId: 'while-locked',
        mutation: {
          kind: 'adjustCounter',
          counterId: counter.id,
          direction: 'increment',
          times: 1,
        },
      });
      const refused = await live.waitFor(
        (m: ServerMessage): m is Extract<ServerMessage, { type: 'error' }> =>
          m.type === 'error' && m.opId === 'while-locked',
      );
      expect(refused.error.code).toBe('busy');
      // Reads and other requests are served meanwhile.
      expect(await member.counters()).toEqual([counter]);
      expect(
        (await call(server.url, 'GET', `${member.base}/activity`, { key: member.key })).status,
      ).toBe(200);
      expect((await healthBecomes(server, 503)).error.code).toBe('busy');
    } finally {
      await lock.release();
    }
    const after = await tap();
    expect([after.status, after.body.value]).toEqual([200, 1]);
    await healthBecomes(server, 200);
    live.close();
  });
});

describe.skipIf(postgresUrl === undefined)('a PostgreSQL schema dropped under the server', () => {
  it('makes health answer 503 and writes 503 storage_unavailable (not 500)', async () => {
    const schema = uniqueSchema();
    schemas.push(schema);
    const server = await start({ database: postgresDatabase(schema) });
    const member = await createGroup(server.url);
    const counter = await member.addCounter();
    expect((await health(server)).status).toBe(200);

    await adminQuery(`DROP SCHEMA ${schema} CASCADE`);
    await adminQuery(`CREATE SCHEMA ${schema}`);

    const tap = await call<ApiError>(
      server.url,
      'POST',
      `${member.base}/counters/${counter.id}/increment`,
      { key: member.key },
    );
    expect([tap.status, tap.body.error.code]).toEqual([503, 'storage_unavailable']);
    expect((await healthBecomes(server, 503)).error).toEqual(unavailable);
  });
});
