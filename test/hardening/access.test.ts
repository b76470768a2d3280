/**
 * Only key holders see a group. The routes are listed by the server itself, so a route added
 * later is attacked here too: unless it is on the PUBLIC list below, it must refuse no key,
 * a malformed key, another group's key and another group's counter ids — with the exact error
 * code a key check gives — and nothing may be read or changed. The live channel gets the same.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiError, Counter } from '../../src/shared/api.js';
import { ApiErrorSchema } from '../../src/shared/api.js';
import { CLOSE_CODES, PROTOCOL_VERSION, type ServerMessage } from '../../src/shared/protocol.js';
import { call, createGroup, newKey } from '../helpers/client.js';
import { connectLive, joinLive } from '../helpers/live.js';
import { UNLIMITED, startHardenedServer, type HardenedServer } from './support/server.js';

/** Routes anyone may call, by design (docs/api.md). Everything else under /api needs the key. */
const PUBLIC = new Set([
  'GET /api/health',
  'HEAD /api/health',
  'GET /api/groups/:name', // the landing page's existence check: name and picture only
  'HEAD /api/groups/:name',
  'POST /api/groups/:name/join', // the key travels in the body and is checked there
  // The API's description and its reference page (routes/docs.ts): nothing of any group.
  'GET /api/openapi.json',
  'HEAD /api/openapi.json',
  'GET /api/docs',
  'HEAD /api/docs',
  'GET /api/docs/:file',
  'HEAD /api/docs/:file',
  // The server's Web Push public key, for browsers to subscribe with: nothing of any group.
  'GET /api/push/key',
  'HEAD /api/push/key',
]);

/** Bodies that would succeed with the right key, so a refusal is the key check's doing. */
const BODIES: Record<string, unknown> = {
  'PATCH /api/groups/:name': { displayName: 'Taken over' },
  'POST /api/groups/:name/counters': { name: 'Planted' },
  'PATCH /api/groups/:name/counters/:id': { name: 'Renamed', value: 999 },
  'POST /api/groups/:name/counters/:id/increment': { times: 7 },
  'POST /api/groups/:name/counters/:id/decrement': { times: 7 },
};

interface Route {
  method: string;
  url: string;
}

/** The server's own route table, from Fastify's printRoutes tree. */
function listRoutes(server: HardenedServer): Route[] {
  const tree = server.app.printRoutes({ commonPrefix: false });
  const routes: Route[] = [];
  const stack: { depth: number; path: string }[] = [];
  for (const line of tree.split('\n')) {
    const match = /^([\s│├└─]*)(\S.*?)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!match?.[2]) continue;
    const depth = (match[1] ?? '').length;
    while (stack.length > 0 && (stack.at(-1)?.depth ?? 0) >= depth) stack.pop();
    const path = (stack.at(-1)?.path ?? '') + match[2];
    stack.push({ depth, path });
    for (const method of match[3]?.split(', ') ?? []) routes.push({ method, url: path });
  }
  return routes;
}

let server: HardenedServer;
let routes: Route[];
beforeAll(async () => {
  server = await startHardenedServer({ security: UNLIMITED });
  routes = listRoutes(server);
});
afterAll(async () => {
  await server.close();
});

async function setUp() {
  const a = await createGroup(server.url);
  const b = await createGroup(server.url);
  const aCounter = await a.addCounter({ name: 'A secret', value: 5 });
  const bCounter = await b.addCounter({ name: 'B secret', value: 9 });
  const state = async () => {
    const { store } = server.app.tally;
    return [await store.loadGroupState(a.group.id), await store.loadGroupState(b.group.id)];
  };
  return { a, b, aCounter, bCounter, state };
}

const fill = (url: string, name: string, id: string) =>
  url.replace(':name', encodeURIComponent(name)).replace(':id', encodeURIComponent(id));

describe('the route table', () => {
  it('is read from the server and holds every API route', () => {
    const keys = routes.map((route) => `${route.method} ${route.url}`);
    for (const known of [...PUBLIC, ...Object.keys(BODIES), 'GET /api/groups/:name/counters'])
      expect(keys).toContain(known);
    expect(keys).toContain('DELETE /api/groups/:name/counters/:id');
  });

  it('has only /api routes (the web app adds none in this configuration)', () => {
    for (const route of routes) expect(route.url.startsWith('/api/')).toBe(true);
  });
});

describe('every keyed API route', () => {
  it('refuses no key, a malformed key, another group’s key and another group’s counter ids; nothing is read or changed', async () => {
    const { a, b, aCounter, bCounter, state } = await setUp();
    const before = await state();
    const keyed = routes.filter((route) => !PUBLIC.has(`${route.method} ${route.url}`));
    expect(keyed.length).toBeGreaterThanOrEqual(8);

    const tried: string[] = [];
    for (const route of keyed) {
      const label = `${route.method} ${route.url}`;
      const body = BODIES[label];
      const attempt = async (
        name: string,
        id: string,
        key: string | undefined,
        expected: { status: number; code: ApiError['error']['code'] },
        why: string,
      ) => {
        const answer = await call<ApiError | undefined>(
          server.url,
          route.method,
          fill(route.url, name, id),
          { ...(key === undefined ? {} : { key }), ...(body === undefined ? {} : { body }) },
        );
        tried.push(`${label}: ${why}`);
        expect(answer.status, `${label}: ${why}`).toBe(expected.status);
        if (route.method === 'HEAD') return;
        // Nothing read: the answer is the error shape and nothing else.
        expect(ApiErrorSchema.strict().parse(answer.body).error.code, `${label}: ${why}`).toBe(
          expected.code,
        );
        expect(JSON.stringify(answer.body)).not.toMatch(/secret|[0-9a-f]{64}/);
      };
      const name = a.group.name;
      await attempt(name, aCounter.id, undefined, { status: 401, code: 'missing_key' }, 'no key');
      for (const malformed of ['zz', 'a'.repeat(15), 'a'.repeat(129), `${a.key}x`, 'g'.repeat(64)])
        await attempt(
          name,
          aCounter.id,
          malformed,
          { status: 400, code: 'invalid_key_format' },
          `malformed key ${JSON.stringify(malformed.slice(0, 8))}`,
        );
      await attempt(name, aCounter.id, b.key, { status: 403, code: 'wrong_key' }, 'B’s key on A');
      await attempt(name, aCounter.id, newKey(), { status: 403, code: 'wrong_key' }, 'a guess');
      await attempt(
        name.toUpperCase(),
        aCounter.id,
        b.key,
        { status: 403, code: 'wrong_key' },
        'B’s key on A spelled otherwise',
      );
      if (route.url.includes(':id')) {
        // An alert route's id names a rule, a link route's a tap link: another group's id is
        // none of this one's either.
        const missing = route.url.includes('/alerts/')
          ? ({ status: 404, code: 'alert_not_found' } as const)
          : route.url.includes('/links/')
            ? ({ status: 404, code: 'link_not_found' } as const)
            : ({ status: 404, code: 'counter_not_found' } as const);
        await attempt(b.group.name, aCounter.id, b.key, missing, 'B’s key on B with A’s id');
        await attempt(name, bCounter.id, a.key, missing, 'A’s key on A with B’s id');
      }
    }
    expect(tried.length).toBeGreaterThanOrEqual(8 * 9);
    // Nothing changed in either group: same rows, same change number.
    expect(await state()).toEqual(before);
  });

  it('would accept the same requests with the right key (the refusals above are the key check)', async () => {
    const { a, aCounter } = await setUp();
    for (const [label, body] of Object.entries(BODIES)) {
      const [method = '', url = ''] = label.split(' ');
      const answer = await call(server.url, method, fill(url, a.group.name, aCounter.id), {
        key: a.key,
        body,
      });
      expect(answer.status, label).toBeLessThan(300);
    }
  });
});

describe('a view-only key', () => {
  it('reads every keyed GET route and is refused 403 read_only by every other; nothing changes', async () => {
    const { a, aCounter, state } = await setUp();
    const turnedOn = await call<{ viewKey: string }>(
      server.url,
      'POST',
      `/api/groups/${a.group.name}/view-key`,
      { key: a.key },
    );
    expect(turnedOn.status).toBe(200);
    const viewKey = turnedOn.body.viewKey;
    const before = await state();
    const keyed = routes.filter((route) => !PUBLIC.has(`${route.method} ${route.url}`));
    // Only the access key may see or change the view-only link itself, or see the alerts and
    // the tap links.
    const fullOnly = new Set(
      [
        '/api/groups/:name/view-key',
        '/api/groups/:name/alerts',
        '/api/groups/:name/alerts/:id/deliveries',
        '/api/groups/:name/links',
      ].flatMap((url) => [`GET ${url}`, `HEAD ${url}`]),
    );
    for (const route of keyed) {
      const label = `${route.method} ${route.url}`;
      const body = BODIES[label];
      const answer = await call<ApiError | undefined>(
        server.url,
        route.method,
        fill(route.url, a.group.name, aCounter.id),
        { key: viewKey, ...(body === undefined ? {} : { body }) },
      );
      const reads = (route.method === 'GET' || route.method === 'HEAD') && !fullOnly.has(label);
      if (reads) {
        expect(answer.status, label).toBe(200);
        continue;
      }
      expect(answer.status, label).toBe(403);
      if (route.method !== 'HEAD') expect(answer.body?.error.code, label).toBe('read_only');
    }
    expect(await state()).toEqual(before);
  });
});

describe('the live channel', () => {
  const closeOf = async (name: string, first: object) => {
    const client = await connectLive(server.wsUrl, name);
    client.socket.send(JSON.stringify(first));
    const closed = await client.closed;
    const leaked = client.messages.filter((m) => m.type === 'ready' || m.type === 'changes');
    return { code: closed.code, leaked };
  };

  it('refuses no auth, a malformed key and another group’s key, and sends nothing', async () => {
    const { a, b, state } = await setUp();
    const before = await state();
    const name = a.group.name;
    const auth = (key: unknown) => ({ type: 'auth', protocol: PROTOCOL_VERSION, key });
    const cases: [string, object, number][] = [
      ['ping before auth', { type: 'ping' }, CLOSE_CODES.unauthorized],
      [
        'mutate before auth',
        {
          type: 'mutate',
          opId: 'x1',
          mutation: { kind: 'updateGroup', patch: { displayName: 'Taken over' } },
        },
        CLOSE_CODES.unauthorized,
      ],
      ['empty key', auth(''), CLOSE_CODES.forbidden],
      ['malformed key', auth('zz'), CLOSE_CODES.forbidden],
      ['key of the wrong type', auth(123), CLOSE_CODES.badMessage],
      ['B’s key', auth(b.key), CLOSE_CODES.forbidden],
      ['a guess', auth(newKey()), CLOSE_CODES.forbidden],
    ];
    for (const [why, first, code] of cases) {
      const outcome = await closeOf(name, first);
      expect(outcome.code, why).toBe(code);
      expect(outcome.leaked, why).toEqual([]);
    }
    expect(await state()).toEqual(before);
  });

  it('refuses another group’s counter ids to a member, and never shows it another group’s changes', async () => {
    const { a, b, aCounter, state } = await setUp();
    const before = await state();
    const member = await joinLive(server.wsUrl, b.group.name, b.key);
    const ready = member.messages.find((m) => m.type === 'ready');
    expect(JSON.stringify(ready)).not.toContain('A secret');
    const mutations = [
      { kind: 'adjustCounter', counterId: aCounter.id, direction: 'increment', times: 5 },
      { kind: 'updateCounter', counterId: aCounter.id, patch: { name: 'Mine now' } },
      { kind: 'deleteCounter', counterId: aCounter.id },
    ] as const;
    for (const [index, mutation] of mutations.entries()) {
      member.send({ type: 'mutate', opId: `cross-${index}`, mutation });
      const answer = await member.waitFor(
        (m: ServerMessage): m is Extract<ServerMessage, { type: 'error' }> =>
          m.type === 'error' && m.opId === `cross-${index}`,
      );
      expect(answer.error.code).toBe('counter_not_found');
    }
    expect(await state()).toEqual(before);
    // A change in A reaches A's members only.
    const aMember = await joinLive(server.wsUrl, a.group.name, a.key);
    await call<Counter>(server.url, 'POST', `${a.base}/counters/${aCounter.id}/increment`, {
      key: a.key,
    });
    await aMember.waitUntil(() => aMember.counters.get(aCounter.id)?.value === 6);
    member.send({ type: 'ping', t: 1 });
    await member.waitFor((m) => m.type === 'pong');
    expect(JSON.stringify(member.messages)).not.toContain(aCounter.id);
    member.close();
    aMember.close();
  });

  it('answers an unknown group with 4404 and sends nothing', async () => {
    const outcome = await closeOf(`nobody-${newKey(4)}`, {
      type: 'auth',
      protocol: PROTOCOL_VERSION,
      key: newKey(),
    });
    expect(outcome).toEqual({ code: CLOSE_CODES.groupNotFound, leaked: [] });
  });
});
