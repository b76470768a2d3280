/**
 * The REST fuzz of fuzz.test.ts against PostgreSQL, which is stricter than SQLite about text
 * (it found NUL characters answered with 500 there). Skips without DATABASE_URL=postgres://…
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiErrorSchema, CounterSchema, GroupSchema, type ApiError } from '../../src/shared/api.js';
import { sanitizeText } from '../../src/shared/rules.js';
import { call, createGroup } from '../helpers/client.js';
import { dropSchemas, postgresDatabase, postgresUrl, uniqueSchema } from '../helpers/postgres.js';
import { hostileContentType, hostileId, jsonText, wireBody } from './support/hostile.js';
import { UNLIMITED, startHardenedServer, type HardenedServer } from './support/server.js';

const SEED = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
const CASES = 3_000;
const IN_FLIGHT = 16;

const segment = (raw: string) =>
  [...Buffer.from(raw, 'utf8')].map((byte) => `%${byte.toString(16).padStart(2, '0')}`).join('');

describe.skipIf(postgresUrl === undefined)('hostile input on PostgreSQL', () => {
  const schema = uniqueSchema();
  let server: HardenedServer;
  beforeAll(async () => {
    server = await startHardenedServer({ security: UNLIMITED, database: postgresDatabase(schema) });
  });
  afterAll(async () => {
    await server.close();
    await dropSchemas([schema]);
  });

  it('refuses NUL characters in text fields (400) and counter ids (404); they used to be 500s', async () => {
    const member = await createGroup(server.url);
    const counter = await member.addCounter();
    const cases: [string, string, unknown, number][] = [
      ['PATCH', `/counters/${counter.id}`, { name: 'a\u0000b' }, 400],
      ['PATCH', `/counters/${counter.id}`, { description: '\u0000' }, 400],
      ['POST', '/counters', { name: 'x\u0000' }, 400],
      ['PATCH', '', { displayName: 'x\u0000y' }, 400],
      ['POST', '/counters/a%00b/increment', undefined, 404],
      ['PATCH', '/counters/%00', { value: 1 }, 404],
      ['DELETE', '/counters/%00', undefined, 404],
    ];
    for (const [method, path, body, status] of cases) {
      const answer = await call<ApiError>(server.url, method, member.base + path, {
        key: member.key,
        ...(body === undefined ? {} : { body }),
      });
      expect(answer.status, `${method} ${path}`).toBe(status);
      expect(answer.body.error.code).not.toBe('internal_error');
    }
    expect(await member.counters()).toEqual([counter]);
  });

  it(`answers ${CASES} generated bodies with a clear 4xx or a valid 2xx, stores nothing invalid`, async () => {
    console.log(`fuzz (PostgreSQL) seed ${SEED}`);
    const member = await createGroup(server.url);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await member.addCounter()).id);
    const cases = fc.sample(
      fc.record({
        path: fc.constantFrom(
          '',
          '/counters',
          '/counters/:id',
          '/counters/:id/increment',
          '/counters/:id/decrement',
        ),
        id: fc.oneof(fc.constantFrom(...ids), hostileId),
        body: wireBody,
        contentType: hostileContentType,
      }),
      { numRuns: CASES, seed: SEED },
    );
    const failures: string[] = [];
    const statuses = new Map<number, number>();
    let next = 0;
    const started = Date.now();
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (next < cases.length) {
          const fuzz = cases[next++];
          if (!fuzz) break;
          const method = fuzz.path === '' || fuzz.path === '/counters/:id' ? 'PATCH' : 'POST';
          const path = member.base + fuzz.path.replace(':id', segment(fuzz.id));
          const headers: Record<string, string> = { authorization: `Bearer ${member.key}` };
          if (fuzz.contentType !== undefined) headers['content-type'] = fuzz.contentType;
          const body =
            fuzz.body.kind === 'json'
              ? jsonText(fuzz.body.value)
              : fuzz.body.kind === 'text'
                ? fuzz.body.text
                : Uint8Array.from(fuzz.body.bytes);
          const response = await fetch(server.url + path, { method, headers, body });
          const text = await response.text();
          statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
          if (
            response.status >= 500 ||
            (response.status >= 400 && !ApiErrorSchema.safeParse(JSON.parse(text)).success)
          )
            failures.push(
              `${method} ${fuzz.path} ${jsonText(fuzz.body).slice(0, 300)} → ${response.status} ${text.slice(0, 200)}`,
            );
        }
      }),
    );
    console.log(
      `fuzz REST (PostgreSQL): ${CASES} requests in ${((Date.now() - started) / 1000).toFixed(1)} s; statuses ${JSON.stringify(Object.fromEntries([...statuses].sort()))}`,
    );
    expect(failures.slice(0, 5)).toEqual([]);

    const state = await server.app.tally.store.loadGroupState(member.group.id);
    if (!state) throw new Error('group vanished');
    GroupSchema.parse(state.group);
    expect(sanitizeText(state.group.displayName)).toBe(state.group.displayName);
    for (const counter of state.counters) {
      CounterSchema.parse(counter);
      expect(sanitizeText(counter.name)).toBe(counter.name);
      expect(sanitizeText(counter.description)).toBe(counter.description);
      if (counter.thumbnailUrl !== null) expect(counter.thumbnailUrl).toMatch(/^https?:\/\//);
    }
  }, 120_000);
});
