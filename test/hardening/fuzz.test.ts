/**
 * Hostile input: thousands of generated bodies (support/hostile.ts) thrown at every mutation
 * route and at the live channel, many at a time. Every answer must be a clear 4xx in the API's
 * error shape (or a 2xx whose body is valid), never a 5xx; live sockets are answered or closed
 * with a protocol code, never dropped; the server stays up, its heap stays bounded, and every
 * stored row still satisfies the schemas and the sanitising rules.
 *
 * The seed changes every run and is printed; FUZZ_SEED=<n> replays a run.
 */
import v8 from 'node:v8';
import { COUNTER_FIELDS } from '../../src/shared/fields.js';
import vm from 'node:vm';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ApiErrorSchema,
  CounterSchema,
  GroupSchema,
  GroupSnapshotSchema,
  type Counter,
} from '../../src/shared/api.js';
import { MAX_STEP, MAX_VALUE, MIN_VALUE } from '../../src/shared/limits.js';
import { PROTOCOL_VERSION, type ServerMessage } from '../../src/shared/protocol.js';
import { normaliseUrl, sanitizeText } from '../../src/shared/rules.js';
import { createGroup, type Answer } from '../helpers/client.js';
import { connectLive, isReady } from '../helpers/live.js';
import {
  hostileContentType,
  hostileId,
  hostileJson,
  hostileLeaf,
  hostileOpId,
  hostileText,
  invalidUtf8,
  jsonText,
  wireBody,
  type WireBody,
} from './support/hostile.js';
import { UNLIMITED, startHardenedServer, type HardenedServer } from './support/server.js';

const SEED = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
const REST_CASES = 10_000;
const LIVE_CASES = Number(process.env.LIVE_CASES ?? 1_500);
const REST_IN_FLIGHT = 32;
const LIVE_IN_FLIGHT = 16;

let server: HardenedServer;
let member: Awaited<ReturnType<typeof createGroup>>;
let other: Awaited<ReturnType<typeof createGroup>>;
let ids: string[];
beforeAll(async () => {
  console.log(`fuzz seed ${SEED} (FUZZ_SEED=${SEED} replays this run)`);
  server = await startHardenedServer({ security: UNLIMITED });
  member = await createGroup(server.url);
  other = await createGroup(server.url);
  ids = [];
  for (let i = 0; i < 5; i++) ids.push((await member.addCounter({ name: `C${i}` })).id);
  ids.push((await other.addCounter({ name: 'Other' })).id);
});
afterAll(async () => {
  await server.close();
});

/** Path segment for any string, lone surrogates included (encodeURIComponent throws on them). */
function segment(raw: string): string {
  return [...Buffer.from(raw, 'utf8')]
    .map((byte) =>
      /[A-Za-z0-9_.~-]/.test(String.fromCharCode(byte))
        ? String.fromCharCode(byte)
        : `%${byte.toString(16).padStart(2, '0')}`,
    )
    .join('');
}

function wire(body: WireBody): string | Uint8Array<ArrayBuffer> {
  switch (body.kind) {
    case 'json':
      return jsonText(body.value);
    case 'text':
      return body.text;
    case 'bytes':
      return Uint8Array.from(body.bytes);
  }
}

const describeCase = (value: unknown) =>
  JSON.stringify(value, (_k, v: unknown) =>
    v instanceof Uint8Array ? `bytes:${Buffer.from(v).toString('hex')}` : v,
  ).slice(0, 400);

type RouteName =
  'join' | 'patchGroup' | 'createCounter' | 'patchCounter' | 'increment' | 'decrement' | 'delete';
const ROUTES: RouteName[] = [
  'join',
  'patchGroup',
  'createCounter',
  'patchCounter',
  'increment',
  'decrement',
  'delete',
];

function request(route: RouteName, id: string): { method: string; path: string } {
  const base = member.base;
  const counter = `${base}/counters/${segment(id)}`;
  switch (route) {
    case 'join':
      return { method: 'POST', path: `${base}/join` };
    case 'patchGroup':
      return { method: 'PATCH', path: base };
    case 'createCounter':
      return { method: 'POST', path: `${base}/counters` };
    case 'patchCounter':
      return { method: 'PATCH', path: counter };
    case 'increment':
      return { method: 'POST', path: `${counter}/increment` };
    case 'decrement':
      return { method: 'POST', path: `${counter}/decrement` };
    case 'delete':
      return { method: 'DELETE', path: counter };
  }
}

/** What a 2xx answer of each route must look like. */
function checkSuccess(route: RouteName, answer: Answer): void {
  if (route === 'delete') expect(answer.status).toBe(204);
  else if (route === 'join') GroupSnapshotSchema.parse(answer.body);
  else if (route === 'patchGroup') GroupSchema.parse(answer.body);
  else CounterSchema.parse(answer.body);
}

/** Every stored text and URL is what the rules would store: sanitised and normalised. */
function checkStoredCounter(counter: Counter): void {
  CounterSchema.parse(counter);
  expect(sanitizeText(counter.name)).toBe(counter.name);
  expect(sanitizeText(counter.description)).toBe(counter.description);
  expect(counter.value).toBeGreaterThanOrEqual(MIN_VALUE);
  expect(counter.value).toBeLessThanOrEqual(MAX_VALUE);
  for (const step of [counter.incrementStep, counter.decrementStep]) {
    expect(Number.isSafeInteger(step) && step >= 1 && step <= MAX_STEP).toBe(true);
  }
  if (counter.thumbnailUrl !== null) {
    expect(normaliseUrl(counter.thumbnailUrl)).toEqual({ ok: true, value: counter.thumbnailUrl });
    expect(counter.thumbnailUrl).toMatch(/^https?:\/\//);
  }
}

async function runPool<T>(items: T[], inFlight: number, run: (item: T) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < items.length) {
        const item = items[next++] as T;
        await run(item);
      }
    }),
  );
}

// A full collection before each reading, so the numbers are what is retained, not garbage.
v8.setFlagsFromString('--expose-gc');
const collect = vm.runInNewContext('gc') as () => void;
const heapMb = () => {
  collect();
  return process.memoryUsage().heapUsed / 2 ** 20;
};

describe('hostile input', () => {
  it(`answers ${REST_CASES} generated bodies on every mutation route with a clear 4xx or a valid 2xx, never a 5xx`, async () => {
    const cases = fc.sample(
      fc.record({
        route: fc.constantFrom(...ROUTES),
        id: fc.oneof(fc.constantFrom(...ids), hostileId),
        body: wireBody,
        contentType: hostileContentType,
        opId: hostileOpId,
      }),
      { numRuns: REST_CASES, seed: SEED },
    );
    // Deleting the real counters would leave nothing to fuzz: DELETE gets garbage ids only
    // (and the other group's counter).
    const usable = cases.map((c) =>
      c.route === 'delete' && ids.slice(0, 5).includes(c.id) ? { ...c, id: `${c.id}x` } : c,
    );
    const heapBefore = heapMb();
    const started = Date.now();
    const failures: string[] = [];
    const statuses = new Map<number, number>();
    await runPool(usable, REST_IN_FLIGHT, async (fuzz) => {
      const { method, path } = request(fuzz.route, fuzz.id);
      const headers: Record<string, string> = { authorization: `Bearer ${member.key}` };
      if (fuzz.contentType !== undefined) headers['content-type'] = fuzz.contentType;
      if (fuzz.opId !== undefined) headers['idempotency-key'] = fuzz.opId;
      const response = await fetch(server.url + path, {
        method,
        headers,
        body: wire(fuzz.body),
      });
      const text = await response.text();
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      try {
        expect(response.status).toBeLessThan(500);
        const body: unknown = text === '' ? undefined : JSON.parse(text);
        const answer = { status: response.status, body, headers: response.headers };
        if (response.status >= 400) {
          expect(ApiErrorSchema.strict().parse(body).error.code).not.toBe('internal_error');
        } else checkSuccess(fuzz.route, answer);
      } catch (error) {
        failures.push(
          `${method} ${path} ${describeCase(fuzz.body)} → ${response.status} ${text.slice(0, 200)}: ${String(error).slice(0, 200)}`,
        );
      }
    });
    const seconds = (Date.now() - started) / 1000;
    const heapAfter = heapMb();
    console.log(
      `fuzz REST: ${usable.length} requests in ${seconds.toFixed(1)} s; statuses ${JSON.stringify(Object.fromEntries([...statuses].sort()))}; heap ${heapBefore.toFixed(0)} → ${heapAfter.toFixed(0)} MB`,
    );
    expect(failures.slice(0, 5)).toEqual([]);
    expect(heapAfter - heapBefore).toBeLessThan(256);
    expect([...statuses.keys()].some((status) => status >= 500)).toBe(false);
  }, 120_000);

  it(`answers or closes ${LIVE_CASES} generated live messages with a protocol code, never drops or fails`, async () => {
    const mutation = fc.oneof(
      hostileJson,
      fc.record(
        {
          kind: fc.oneof(
            fc.constantFrom(
              'createCounter',
              'updateCounter',
              'adjustCounter',
              'deleteCounter',
              'updateGroup',
            ),
            hostileLeaf,
          ),
          counterId: fc.oneof(fc.constantFrom(...ids), hostileId),
          patch: hostileJson,
          fields: hostileJson,
          direction: fc.oneof(fc.constantFrom('increment', 'decrement'), hostileLeaf),
          times: hostileLeaf,
        },
        { requiredKeys: ['kind'] },
      ),
    );
    const id = fc.oneof(fc.constantFrom(...ids), hostileId);
    const counterFields = fc.constantFrom(...COUNTER_FIELDS);
    // Mutations of the right shape with hostile values: these get past the envelope and reach
    // the field rules and the store (answered by ack or error), where the others close 4400.
    const shaped = fc.oneof(
      fc.record({
        kind: fc.constant('adjustCounter'),
        counterId: id,
        direction: fc.constantFrom('increment', 'decrement'),
        times: fc.oneof(fc.integer({ min: 1, max: 1_000_000 }), hostileLeaf),
      }),
      fc.record({
        kind: fc.constant('updateCounter'),
        counterId: id,
        patch: fc.dictionary(counterFields, hostileLeaf, { minKeys: 1, maxKeys: 3 }),
      }),
      fc.record({
        kind: fc.constant('createCounter'),
        fields: fc.dictionary(counterFields, hostileLeaf, { maxKeys: 3 }),
      }),
      fc.record({ kind: fc.constant('deleteCounter'), counterId: hostileId }),
      fc.record({
        kind: fc.constant('updateGroup'),
        patch: fc.dictionary(fc.constantFrom('displayName', 'profileImageUrl'), hostileLeaf, {
          minKeys: 1,
          maxKeys: 2,
        }),
      }),
    );
    const frame = fc.oneof(
      {
        weight: 8,
        arbitrary: shaped.map((value) => ({
          text: JSON.stringify({ type: 'mutate', opId: 'fuzz-op', mutation: value }),
        })),
      },
      {
        // Well-formed envelopes, hostile mutations.
        weight: 3,
        arbitrary: mutation.map((value) => ({
          text: JSON.stringify({ type: 'mutate', opId: 'fuzz-op', mutation: value }),
        })),
      },
      {
        weight: 6,
        arbitrary: fc
          .record({
            type: fc.oneof(fc.constantFrom('mutate', 'ping', 'auth'), hostileLeaf),
            opId: fc.oneof(fc.constant('fuzz-op'), hostileLeaf),
            mutation,
          })
          .map((value) => ({ text: JSON.stringify(value) })),
      },
      { weight: 3, arbitrary: hostileText.map((text) => ({ text })) },
      { weight: 1, arbitrary: invalidUtf8.map((bytes) => ({ bytes, binary: false })) },
      { weight: 1, arbitrary: invalidUtf8.map((bytes) => ({ bytes, binary: true })) },
    );
    const cases = fc.sample(fc.record({ authenticated: fc.boolean(), frame }), {
      numRuns: LIVE_CASES,
      seed: SEED + 1,
    });
    const replies = new Map<string, number>();
    let sockets = 0;
    // 1000 we close ourselves; 1005 no code; 4400 invalid; 4401 auth first; 4403 key;
    // 4426 protocol; 1007 invalid UTF-8 in a text frame; 1009 too big.
    const allowedCloses = new Set([1000, 1005, 1007, 1009, 4400, 4401, 4403, 4426]);
    const failures: string[] = [];
    const closes = new Map<number, number>();
    const heapBefore = heapMb();
    const started = Date.now();
    await runPool(cases, LIVE_IN_FLIGHT, async ({ authenticated, frame: sent }) => {
      const client = await connectLive(server.wsUrl, member.group.name);
      let closedCode: number | undefined;
      client.socket.on('close', (code) => (closedCode = code));
      const isClosed = () => client.socket.readyState === client.socket.CLOSED;
      // Every case its own operation id: a reused one would be answered as a retry.
      const opId = `fuzz-op-${++sockets}`;
      const isPong = (m: ServerMessage) => m.type === 'pong' && m.t === -1;
      const mutating = 'text' in sent && sent.text.includes('"fuzz-op"');
      const opened = Date.now();
      try {
        if (authenticated) {
          client.send({ type: 'auth', protocol: PROTOCOL_VERSION, key: member.key });
          // A socket closed before its snapshot fails here at once, with its close code: the
          // member group's snapshot is ~100 KB after the REST run, and the per-address bound on
          // unread bytes once closed readers of it with 1013 (corked.ts).
          await client.waitFor(isReady, 10_000);
        }
        if ('text' in sent) client.socket.send(sent.text.replaceAll('"fuzz-op"', `"${opId}"`));
        else client.socket.send(sent.bytes, { binary: sent.binary });
        // A ping after it: its pong (or the close) says the frame was dealt with.
        if (authenticated) client.socket.send(JSON.stringify({ type: 'ping', t: -1 }));
        await client.waitUntil(
          () =>
            isClosed() ||
            (client.messages.some(isPong) &&
              (!mutating ||
                client.messages.some(
                  (m) => (m.type === 'ack' || m.type === 'error') && m.opId === opId,
                ))),
          10_000,
        );
        for (const m of client.messages) {
          const kind = m.type === 'error' ? `error ${m.error.code}` : m.type;
          if (kind !== 'ready' && kind !== 'pong') replies.set(kind, (replies.get(kind) ?? 0) + 1);
        }
        const internal = client.messages.filter(
          (m) => m.type === 'error' && m.error.code === 'internal_error',
        );
        expect(internal).toEqual([]);
        if (!isClosed()) client.close();
        closedCode = (await client.closed).code;
        closes.set(closedCode, (closes.get(closedCode) ?? 0) + 1);
        expect(allowedCloses.has(closedCode)).toBe(true);
      } catch (error) {
        failures.push(
          `${authenticated ? 'after auth' : 'first'} ${describeCase(sent)} → close ${String(closedCode)} after ${Date.now() - opened} ms, received ${client.messages.map((m) => m.type).join(',') || 'nothing'}: ${String(error).slice(0, 200)}`,
        );
        client.socket.terminate();
      }
    });
    const seconds = (Date.now() - started) / 1000;
    const heapAfter = heapMb();
    console.log(
      `fuzz live: ${cases.length} sockets in ${seconds.toFixed(1)} s; close codes ${JSON.stringify(Object.fromEntries([...closes].sort()))}; replies ${JSON.stringify(Object.fromEntries(replies))}; heap ${heapBefore.toFixed(0)} → ${heapAfter.toFixed(0)} MB`,
    );
    expect(failures.slice(0, 5)).toEqual([]);
    expect(heapAfter - heapBefore).toBeLessThan(256);
  }, 120_000);

  it('closes invalid UTF-8 text frames with 1007 and oversized ones with 1009, never a bare 1006', async () => {
    // Found by the fuzz run above (FUZZ_SEED=1250123875 showed it against the old hub every
    // time): the hub terminated such sockets at once, which could cut off the close frame ws had
    // just queued, so the client saw 1006 instead of the reason. This checks the outcome
    // directly; the race itself needs the fuzz run's load to show.
    const codes = new Map<number, number>();
    const frames = [
      ...Array.from({ length: 150 }, () => Buffer.from([0x7b, 0x22, 0xfe, 0xff, 0x22, 0x7d])),
      ...Array.from({ length: 50 }, () => Buffer.alloc(70_000, 0x61)),
    ];
    await runPool(frames, LIVE_IN_FLIGHT, async (bytes) => {
      const client = await connectLive(server.wsUrl, member.group.name);
      client.send({ type: 'auth', protocol: PROTOCOL_VERSION, key: member.key });
      await client.waitFor((m) => m.type === 'ready');
      client.socket.send(bytes, { binary: false });
      client.socket.send(JSON.stringify({ type: 'ping', t: -1 }));
      const { code } = await client.closed;
      codes.set(code, (codes.get(code) ?? 0) + 1);
    });
    expect(Object.fromEntries(codes)).toEqual({ 1007: 150, 1009: 50 });
  });

  it('leaves the server up and every stored row valid, sanitised and unpolluted', async () => {
    const health = await fetch(`${server.url}/api/health`);
    expect(health.status).toBe(200);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const { store } = server.app.tally;
    for (const group of [member, other]) {
      const state = await store.loadGroupState(group.group.id);
      if (!state) throw new Error('group vanished');
      GroupSchema.parse(state.group);
      expect(state.group.displayName).not.toBe('');
      expect(sanitizeText(state.group.displayName)).toBe(state.group.displayName);
      if (state.group.profileImageUrl !== null)
        expect(state.group.profileImageUrl).toMatch(/^https?:\/\//);
      expect(state.group.keyHash).toMatch(/^[0-9a-f]{64}$/);
      for (const counter of state.counters) checkStoredCounter(counter);
      // The API reads the same rows back.
      const listed = await group.counters();
      expect(listed.map((c) => c.id)).toEqual(state.counters.map((c) => c.id));
    }
    // Still fully usable.
    const fresh = await member.addCounter({ name: 'After the storm' });
    expect(fresh.name).toBe('After the storm');
    console.log(
      `fuzz read-back: ${(await member.counters()).length} counters in the fuzzed group, all valid`,
    );
  });
});
