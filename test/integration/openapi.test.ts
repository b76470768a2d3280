/**
 * The OpenAPI document (GET /api/openapi.json) cannot drift from the server:
 * - every /api/ route the real server registers is documented, and every documented operation
 *   is a registered route;
 * - every documented operation is called on a real server (SQLite, and PostgreSQL when
 *   DATABASE_URL is set) with real requests, for its success answers and its key, body, query
 *   and domain errors; each answer's status must be documented for the operation and its body
 *   must validate (JSON Schema 2020-12) against the schema documented for that status and
 *   content type. The exact statuses are asserted too, so a changed answer fails here.
 */
import { createECDH, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OpenApiDocument } from '../../src/server/routes/openapi.js';
import type { ActivityPage } from '../../src/shared/activity.js';
import type { AlertCreated } from '../../src/shared/alerts.js';
import { MAX_TAP_LINKS_PER_GROUP, type TapLinkCreated } from '../../src/shared/links.js';
import type { Counter, GroupSnapshot, ViewKey } from '../../src/shared/api.js';
import { IMPORT_MAX_BYTES } from '../../src/shared/import.js';
import { MAX_VALUE } from '../../src/shared/limits.js';
import { newKey, uniqueGroupName } from '../helpers/client.js';
import { OpenApiChecker, registeredRoutes } from '../helpers/openapi.js';
import { storeBackends } from '../helpers/postgres.js';
import { startServer, type TestServer } from '../helpers/server.js';

const PACKAGE_VERSION = (
  JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  }
).version;

/**
 * Routes that are not API operations: the reference page's own files (Swagger UI's script and
 * stylesheet, its starter, the stylesheet's images; routes/docs.ts).
 */
const DOCS_PAGE_FILES = new Set(['GET /api/docs/:file']);

async function fetchDocument(url: string): Promise<{ text: string; contentType: string | null }> {
  const response = await fetch(`${url}/api/openapi.json`);
  return { text: await response.text(), contentType: response.headers.get('content-type') };
}

describe('the OpenAPI document', () => {
  let server: TestServer;
  let document: OpenApiDocument;
  beforeAll(async () => {
    server = await startServer({ logLevel: 'warn' });
    document = JSON.parse((await fetchDocument(server.url)).text) as OpenApiDocument;
  });
  afterAll(async () => {
    await server.close();
  });

  it('is OpenAPI 3.1 for Tally at its version, on relative servers, with the key as bearer', () => {
    expect(document.openapi).toMatch(/^3\.1\.\d+$/);
    expect(document.info).toMatchObject({ title: 'Tally', version: PACKAGE_VERSION });
    expect(document.servers).toEqual([{ url: '/' }]);
    expect(document.components.securitySchemes).toEqual({
      groupKey: expect.objectContaining({ type: 'http', scheme: 'bearer' }) as unknown,
    });
  });

  it('is served as one cached JSON text', async () => {
    const first = await fetchDocument(server.url);
    const second = await fetchDocument(server.url);
    expect(first.contentType).toBe('application/json; charset=utf-8');
    expect(second.text).toBe(first.text);
  });

  it('resolves every $ref, and every schema in it compiles', () => {
    const text = JSON.stringify(document);
    for (const [, name] of text.matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)) {
      expect(document.components.schemas, `$ref to ${name}`).toHaveProperty([name ?? '']);
    }
    const checker = new OpenApiChecker(document);
    for (const { template, method, operation } of checker.operations) {
      const at = ['paths', template, method.toLowerCase()];
      operation.parameters?.forEach((_parameter, index) =>
        checker.validatorAt(...at, 'parameters', String(index), 'schema'),
      );
      if (operation.requestBody) {
        checker.validatorAt(...at, 'requestBody', 'content', 'application/json', 'schema');
      }
      for (const [status, response] of Object.entries(operation.responses)) {
        for (const mediaType of Object.keys(response.content ?? {})) {
          checker.validatorAt(...at, 'responses', status, 'content', mediaType, 'schema');
        }
      }
    }
  });

  it('documents every /api/ route the server registers, and only those', () => {
    const registered = registeredRoutes(server.app)
      // Fastify answers HEAD for every GET route by itself (headers of the GET, no body).
      .filter((route) => !route.startsWith('HEAD '))
      .filter((route) => route.split(' ')[1]?.startsWith('/api/'))
      .filter((route) => !DOCS_PAGE_FILES.has(route));
    const documented = new OpenApiChecker(document).operations.map(
      ({ method, template }) => `${method} ${template.replace(/\{(\w+)\}/g, ':$1')}`,
    );
    expect(registered.length).toBeGreaterThan(10);
    expect([...registered].sort()).toEqual([...documented].sort());
    for (const route of documented) {
      const [method = '', url = ''] = route.split(' ');
      expect(server.app.hasRoute({ method, url }), route).toBe(true);
    }
  });
});

const backends = storeBackends();

interface Call {
  params?: Record<string, string>;
  /** Query string without `?`. */
  query?: string;
  key?: string;
  /** Sent as JSON. */
  body?: unknown;
  /** Sent as it is, with `contentType`. */
  rawBody?: string;
  contentType?: string;
  headers?: Record<string, string>;
}

interface Answer {
  status: number;
  headers: Headers;
  json: unknown;
}

/** Bounds for the failed-key limits high enough that the many deliberate 403s never turn 429. */
const LOOSE_KEY_LIMITS = {
  keyFailures: {
    perClient: { burst: 100_000, refillMs: 1 },
    perGroup: { burst: 100_000, refillMs: 1 },
  },
};

/** One of everything counted: a second group, counter or wrong key is refused. */
const TIGHT = {
  limits: { countersPerGroup: 1, groupsPerAddressPerHour: 1 },
  security: {
    keyFailures: {
      perClient: { burst: 1, refillMs: 3_600_000 },
      perGroup: { burst: 100, refillMs: 1 },
    },
  },
};

describe.each(backends)('real answers match the document on %s', (_label, database) => {
  let server: TestServer;
  let tight: TestServer;
  let checker: OpenApiChecker;
  /** `operationId status` of every answer checked. */
  const exercised = new Set<string>();

  beforeAll(async () => {
    const config = database();
    [server, tight] = await Promise.all([
      startServer({
        logLevel: 'warn',
        security: LOOSE_KEY_LIMITS,
        ...(config && { database: config }),
      }),
      startServer({ logLevel: 'warn', ...TIGHT, ...(config && { database: database() }) }),
    ]);
    checker = new OpenApiChecker(
      JSON.parse((await fetchDocument(server.url)).text) as OpenApiDocument,
    );
  });
  afterAll(async () => {
    await Promise.all([server.close(), tight.close()]);
  });

  /**
   * Calls a documented operation, expects `status` (and the error `code`, if given), checks the
   * answer against the document, and returns its JSON body.
   */
  async function call(
    operationId: string,
    request: Call,
    status: number,
    code?: string,
    on: TestServer = server,
  ): Promise<Answer> {
    const located = checker.byId(operationId);
    const path = located.template.replace(/\{(\w+)\}/g, (_whole, name: string) => {
      const value = request.params?.[name];
      if (value === undefined) throw new Error(`${operationId}: no value for {${name}}`);
      return encodeURIComponent(value);
    });
    const headers: Record<string, string> = { ...request.headers };
    if (request.key !== undefined) headers.authorization = `Bearer ${request.key}`;
    let body: string | undefined;
    if (request.rawBody !== undefined) {
      body = request.rawBody;
      headers['content-type'] = request.contentType ?? 'application/json';
    } else if (request.body !== undefined) {
      body = JSON.stringify(request.body);
      headers['content-type'] = 'application/json';
    }
    const url = `${on.url}${path}${request.query === undefined ? '' : `?${request.query}`}`;
    const response = await fetch(url, { method: located.method, headers, body });
    const text = await response.text();
    const where = `${located.method} ${path}${request.query ? `?${request.query}` : ''}`;
    expect(response.status, `${where}: ${text.slice(0, 300)}`).toBe(status);
    expect(
      checker.problemsOf(located, {
        status: response.status,
        contentType: response.headers.get('content-type'),
        text,
      }),
    ).toEqual([]);
    if (request.body !== undefined && status < 300) {
      expect(checker.requestProblemsOf(located, request.body)).toEqual([]);
    }
    const json: unknown = response.headers.get('content-type')?.startsWith('application/json')
      ? JSON.parse(text)
      : text;
    if (code !== undefined) {
      expect((json as { error?: { code?: string } }).error?.code, where).toBe(code);
    }
    exercised.add(`${operationId} ${status}`);
    return { status: response.status, headers: response.headers, json };
  }

  /** A new group with one counter and some activity, its view-only link on. */
  async function groupWithEverything() {
    const name = uniqueGroupName('openapi');
    const key = newKey();
    const joined = (await call('joinGroup', { params: { name }, body: { key } }, 201))
      .json as GroupSnapshot;
    const counter = (
      await call('createCounter', { params: { name }, key, body: { name: 'Coffees' } }, 201)
    ).json as Counter;
    await call('incrementCounter', { params: { name, id: counter.id }, key }, 200);
    const page = (await call('listActivity', { params: { name }, key }, 200)).json as ActivityPage;
    expect((await call('verifyActivity', { params: { name }, key }, 200)).json).toMatchObject({
      ok: true,
    });
    const viewKey = ((await call('enableViewKey', { params: { name }, key }, 200)).json as ViewKey)
      .viewKey;
    if (viewKey === null || page.entries[0] === undefined) throw new Error('fixture incomplete');
    return {
      name: joined.group.name,
      key,
      viewKey,
      counterId: counter.id,
      entryId: String(page.entries[0].id),
    };
  }

  it('every operation’s success answers', async () => {
    await call('health', {}, 200);
    await call('openApiDocument', {}, 200);
    await call('apiReference', {}, 200);

    const name = uniqueGroupName('openapi');
    const key = newKey();
    await call('joinGroup', { params: { name }, body: { key } }, 201);
    await call('joinGroup', { params: { name }, body: { key } }, 200);
    await call('previewGroup', { params: { name } }, 200);
    const change = (opId: string) => ({
      'idempotency-key': opId,
      'tally-member': encodeURIComponent('Ada Lovelace'),
    });
    await call(
      'updateGroup',
      {
        params: { name },
        key,
        body: { displayName: 'Game Night', profileImageUrl: 'img.example/p.png' },
        headers: change('group-1'),
      },
      200,
    );

    const coffees = (
      await call(
        'createCounter',
        { params: { name }, key, body: { name: 'Coffees', incrementStep: 2, opId: 'create-1' } },
        201,
      )
    ).json as Counter;
    const defaults = (await call('createCounter', { params: { name }, key }, 201)).json as Counter;
    const counter = { name, id: coffees.id };
    await call('listCounters', { params: { name }, key }, 200);
    await call(
      'updateCounter',
      { params: counter, key, body: { description: 'Per day', value: 5, thumbnailUrl: null } },
      200,
    );
    await call('incrementCounter', { params: counter, key, body: { times: 3 } }, 200);
    await call('incrementCounter', { params: counter, key, headers: change('tap-1') }, 200);
    await call('decrementCounter', { params: counter, key, body: { opId: 'tap-2' } }, 200);
    await call('counterHistory', { params: counter, key, query: 'points=5' }, 200);
    await call('groupHistory', { params: { name }, key }, 200);
    // Counters with a purpose (ADR 19): order, sections, limits, tallies and periods.
    await call(
      'reorderCounters',
      { params: { name }, key, body: { counterIds: [defaults.id, coffees.id] } },
      200,
    );
    await call(
      'updateCounter',
      { params: counter, key, body: { section: 'Entrances', goal: 50, max: 100, reset: 'daily' } },
      200,
    );
    await call(
      'updateSection',
      { params: { name, section: 'Entrances' }, key, body: { max: 500 } },
      200,
    );
    await call('tallies', { params: { name }, key }, 200);
    await call('tallies', { params: { name }, key, query: `counterId=${coffees.id}&since=0` }, 200);
    await call('counterPeriods', { params: counter, key, query: 'limit=5' }, 200);
    await call('exportGroup', { params: { name }, key, query: 'format=csv&data=periods' }, 200);

    // A tap with a note, counted for a moment ago: its entry has every optional field of a tap.
    await call(
      'incrementCounter',
      { params: counter, key, body: { note: 'table 4', at: new Date().toISOString() } },
      200,
    );
    const page = (await call('listActivity', { params: { name }, key }, 200)).json as ActivityPage;
    const tap = page.entries.find((entry) => entry.kind === 'counter.adjusted');
    if (!tap) throw new Error('no tap in the log');
    await call(
      'editEntryNote',
      { params: { name, entryId: String(tap.id) }, key, body: { note: 'table 5' } },
      200,
    );
    await call(
      'editEntryNote',
      {
        params: { name, entryId: String(tap.id) },
        key,
        headers: { 'tally-member': 'Bob' },
        body: { note: 'mine now' },
      },
      403,
      'not_your_entry',
    );
    await call('undoEntry', { params: { name, entryId: String(tap.id) }, key }, 200);
    await call('undoOperation', { params: { name }, key, body: { opId: 'group-1' } }, 200);
    await call('undoOperation', { params: { name }, key, body: { opId: 'create-1' } }, 200);
    await call('deleteCounter', { params: { name, id: defaults.id }, key }, 204);
    // By now the log holds an entry of every kind: each must match the document.
    const all = (await call('listActivity', { params: { name }, key, query: 'limit=200' }, 200))
      .json as ActivityPage;
    expect(new Set(all.entries.map((entry) => entry.kind))).toEqual(
      new Set([
        'counter.adjusted',
        'counter.updated',
        'counter.created',
        'counter.deleted',
        'group.updated',
        'counters.reordered',
      ]),
    );
    await call('listActivity', { params: { name }, key, query: `before=${tap.id}&limit=1` }, 200);
    await call('listActivity', { params: { name }, key, query: `after=${tap.id}` }, 200);

    await call('exportGroup', { params: { name }, key }, 200);
    await call('exportGroup', { params: { name }, key, query: 'format=csv' }, 200);
    await call('exportGroup', { params: { name }, key, query: 'format=csv&data=activity' }, 200);
    await call(
      'importGroup',
      {
        params: { name },
        key,
        query: 'dryRun=true',
        rawBody: 'Coffees,1700000000000\n',
        contentType: 'text/csv',
      },
      200,
    );
    await call(
      'importGroup',
      { params: { name }, key, rawBody: 'not,a,file\n', contentType: 'text/csv' },
      400,
      'import_invalid',
    );

    await call('getViewKey', { params: { name }, key }, 200);
    const { viewKey } = (await call('enableViewKey', { params: { name }, key }, 200))
      .json as ViewKey;
    await call('getViewKey', { params: { name }, key }, 200);
    await call('listCounters', { params: { name }, key: viewKey ?? '' }, 200);
    await call('joinGroup', { params: { name }, body: { key: viewKey } }, 200);
    await call('disableViewKey', { params: { name }, key }, 204);
    await call('rotateKey', { params: { name }, key, body: { key: newKey() } }, 200);
  });

  it('every operation’s key, body and query errors', async () => {
    const group = await groupWithEverything();
    const params = {
      name: group.name,
      id: group.counterId,
      entryId: group.entryId,
      section: 'Entrances',
    };
    for (const located of checker.operations) {
      const { operationId } = located.operation;
      const keyed = (located.operation.security ?? []).length > 0;
      if (located.template.includes('{name}')) {
        const badName = { ...params, name: '!!!' };
        const body = located.operation.requestBody ? { key: group.key } : undefined;
        const request = operationId === 'joinGroup' ? { body } : { key: group.key };
        await call(operationId, { params: badName, ...request }, 400, 'invalid_group_name');
      }
      if (keyed) {
        await call(operationId, { params }, 401, 'missing_key');
        await call(operationId, { params, key: 'not-hex' }, 400, 'invalid_key_format');
        await call(operationId, { params, key: newKey() }, 403, 'wrong_key');
        const unknown = { ...params, name: uniqueGroupName('missing') };
        await call(operationId, { params: unknown, key: newKey() }, 404, 'group_not_found');
        const refused = located.operation.responses['403']?.description.includes('read_only');
        if (refused) {
          await call(operationId, { params, key: group.viewKey }, 403, 'read_only');
        }
      }
      if (located.operation.requestBody) {
        const key = keyed ? group.key : undefined;
        const request = { params, ...(key && { key }) };
        await call(operationId, { ...request, body: { unknownField: 1 } }, 400);
        await call(
          operationId,
          { ...request, rawBody: 'hello', contentType: 'text/plain' },
          415,
          'validation_failed',
        );
        // An import's body is a file, of up to 5 MB; every other body, JSON of up to 16 KB.
        const bodyLimit = operationId === 'importGroup' ? IMPORT_MAX_BYTES : 16 * 1024;
        await call(
          operationId,
          { ...request, rawBody: JSON.stringify({ name: 'x'.repeat(bodyLimit + 1024) }) },
          413,
          'payload_too_large',
        );
      }
      if (located.operation.parameters?.some((parameter) => parameter.in === 'query')) {
        await call(operationId, { params, key: group.key, query: 'bogus=1' }, 400);
      }
    }
  });

  it('domain errors: unknown things, values out of range, reused ids, undo twice', async () => {
    const group = await groupWithEverything();
    const { name, key } = group;
    const counter = { name, id: group.counterId };
    await call('previewGroup', { params: { name: uniqueGroupName('none') } }, 404);
    await call('joinGroup', { params: { name }, body: { key: newKey() } }, 403, 'wrong_key');
    await call('joinGroup', { params: { name }, body: { key: 'xyz' } }, 400, 'validation_failed');
    await call(
      'updateCounter',
      { params: { name, id: 'no-such-counter' }, key, body: { name: 'x' } },
      404,
      'counter_not_found',
    );
    await call(
      'counterHistory',
      { params: { name, id: 'no-such-counter' }, key },
      404,
      'counter_not_found',
    );
    await call('updateCounter', { params: counter, key, body: {} }, 400, 'validation_failed');
    await call('updateCounter', { params: counter, key, body: { value: MAX_VALUE } }, 200);
    await call('incrementCounter', { params: counter, key }, 422, 'value_out_of_range');
    const reused = { 'idempotency-key': 'once-only' };
    await call('decrementCounter', { params: counter, key, headers: reused }, 200);
    await call(
      'updateCounter',
      { params: counter, key, body: { name: 'Other' }, headers: reused },
      422,
      'operation_id_reused',
    );
    await call(
      'incrementCounter',
      { params: counter, key, headers: { 'idempotency-key': 'not valid!' } },
      400,
      'validation_failed',
    );
    await call(
      'incrementCounter',
      { params: counter, key, headers: { 'tally-member': '%E0%A4%A' } },
      400,
      'validation_failed',
    );
    const entry = { name, entryId: group.entryId };
    await call('undoEntry', { params: entry, key }, 200);
    await call('undoEntry', { params: entry, key }, 409, 'already_undone');
    await call('undoEntry', { params: { name, entryId: '999999999' }, key }, 404);
    await call('undoOperation', { params: { name }, key, body: { opId: 'never-used' } }, 404);
    await call('rotateKey', { params: { name }, key, body: { key } }, 400, 'validation_failed');
    await call('listActivity', { params: { name }, key, query: 'limit=0' }, 400);
    await call('listActivity', { params: { name }, key, query: 'before=1&after=1' }, 400);
    await call('exportGroup', { params: { name }, key, query: 'format=xml' }, 400);
    await call('groupHistory', { params: { name }, key, query: 'points=1' }, 400);
    await call('deleteCounter', { params: counter, key }, 204);
    await call('deleteCounter', { params: counter, key }, 404, 'counter_not_found');
  });

  it('quotas and rate limits: 409 too_many_counters, 429 too_many_groups and rate_limited', async () => {
    const name = uniqueGroupName('openapi');
    const key = newKey();
    await call('joinGroup', { params: { name }, body: { key } }, 201, undefined, tight);
    const another = { name: uniqueGroupName('openapi') };
    const refused = await call(
      'joinGroup',
      { params: another, body: { key } },
      429,
      'too_many_groups',
      tight,
    );
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    await call('createCounter', { params: { name }, key }, 201, undefined, tight);
    await call('createCounter', { params: { name }, key }, 409, 'too_many_counters', tight);
    await call('listCounters', { params: { name }, key: newKey() }, 403, 'wrong_key', tight);
    const limited = await call(
      'listCounters',
      { params: { name }, key: newKey() },
      429,
      'rate_limited',
      tight,
    );
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('alerts: every operation’s answers, and their refusals', async () => {
    const { name, key, counterId } = await groupWithEverything();
    await call('pushKey', {}, 200);
    const push = { kind: 'push' };
    const created = (
      await call(
        'createAlert',
        {
          params: { name },
          key,
          body: { counterId, when: { kind: 'reaches', value: 200 }, to: push },
          headers: { 'idempotency-key': 'alert-1', 'tally-member': 'Ada' },
        },
        201,
      )
    ).json as AlertCreated;
    expect(created.secret).toBeUndefined();
    // A new standard destination comes with its secret. A public address that is never
    // contacted: only a fired alert or a test would be sent to it.
    const standard = { kind: 'webhook', url: 'https://1.1.1.1/tally', format: 'standard' };
    const signed = (
      await call(
        'createAlert',
        { params: { name }, key, body: { when: { kind: 'goal' }, to: standard } },
        201,
      )
    ).json as AlertCreated;
    expect(signed.secret).toMatch(/^whsec_/);

    const rule = { name, id: created.rule.id };
    await call('listAlerts', { params: { name }, key }, 200);
    await call('alertDeliveries', { params: rule, key }, 200);
    await call('testAlert', { params: rule, key }, 200);
    await call('alertDeliveries', { params: rule, key }, 200);
    const browser = createECDH('prime256v1');
    // A public address (a host name would need a resolver this machine may not reach); nothing
    // is pushed to it: no alert fires while it is subscribed.
    const subscription = {
      endpoint: 'https://1.1.1.1/send/3f9a1c2e',
      expirationTime: null,
      keys: {
        p256dh: browser.generateKeys().toString('base64url'),
        auth: randomBytes(16).toString('base64url'),
      },
    };
    await call('subscribePush', { params: { name }, key, body: subscription }, 201);
    const endpoint = { endpoint: subscription.endpoint };
    await call('unsubscribePush', { params: { name }, key, body: endpoint }, 204);
    await call('deleteAlert', { params: rule, key }, 204);

    await call('deleteAlert', { params: rule, key }, 404, 'alert_not_found');
    await call('alertDeliveries', { params: rule, key }, 404, 'alert_not_found');
    await call('testAlert', { params: rule, key }, 404, 'alert_not_found');
    const refused = async (body: unknown, status: number, code: string) =>
      call('createAlert', { params: { name }, key, body }, status, code);
    const goal = { kind: 'goal' };
    await refused({ counterId: 'no-such-counter', when: goal, to: push }, 404, 'counter_not_found');
    await refused(
      { counterId, section: 'Entrances', when: goal, to: push },
      400,
      'validation_failed',
    );
    const loopback = { kind: 'webhook', url: 'http://127.0.0.1:9/', format: 'standard' };
    await refused({ when: goal, to: loopback }, 422, 'destination_refused');
    // One rule is left (the standard one): 19 more reach the bound, the next is refused.
    for (let count = 1; count < 20; count += 1) {
      await call(
        'createAlert',
        { params: { name }, key, body: { when: { kind: 'every', value: count }, to: push } },
        201,
      );
    }
    await refused({ when: goal, to: push }, 409, 'too_many_alerts');
  });

  it('tap links: every operation’s answers, what a tap key is refused, and the bound', async () => {
    const { name, key, counterId } = await groupWithEverything();
    const body = { label: 'Gate B', scope: { counterIds: [counterId] }, can: ['increment'] };
    const headers = { 'idempotency-key': 'tap-link-1' };
    const created = (await call('createTapLink', { params: { name }, key, body, headers }, 201))
      .json as TapLinkCreated;
    await call('createTapLink', { params: { name }, key, body, headers }, 200);
    await call('listTapLinks', { params: { name }, key }, 200);
    const tapKey = created.key ?? '';
    await call('incrementCounter', { params: { name, id: counterId }, key: tapKey }, 200);
    await call('listTapLinks', { params: { name }, key: tapKey }, 403, 'tap_only');
    await call('exportGroup', { params: { name }, key: tapKey }, 403, 'tap_only');
    await call('revokeTapLink', { params: { name, id: created.id }, key }, 204);
    await call('revokeTapLink', { params: { name, id: created.id }, key }, 404, 'link_not_found');
    for (let count = 1; count <= MAX_TAP_LINKS_PER_GROUP; count += 1) {
      await call(
        'createTapLink',
        { params: { name }, key, body: { label: `Door ${String(count)}`, scope: { all: true } } },
        201,
      );
    }
    await call('createTapLink', { params: { name }, key, body }, 409, 'too_many_links');
  });

  it('exercised every documented success answer, and each kind of error', () => {
    for (const { operation } of checker.operations) {
      for (const status of Object.keys(operation.responses).filter((s) => s.startsWith('2'))) {
        expect(exercised, `${operation.operationId} ${status}`).toContain(
          `${operation.operationId} ${status}`,
        );
      }
    }
    const statuses = new Set([...exercised].map((entry) => Number(entry.split(' ')[1])));
    for (const status of [400, 401, 403, 404, 409, 413, 415, 422, 429]) {
      expect(statuses, String(status)).toContain(status);
    }
  });
});

describe('the reference page’s files', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ logLevel: 'warn' });
  });
  afterAll(async () => {
    await server.close();
  });

  it('serves Swagger UI with its stylesheet’s images as files of this origin', async () => {
    const page = await fetch(`${server.url}/api/docs`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    const html = await page.text();
    const files = [...html.matchAll(/(?:src|href)="\/api\/docs\/([^"]+)"/g)].map((m) => m[1]);
    expect(files).toEqual([
      'swagger-ui.css',
      'favicon-32x32.png',
      'swagger-ui-bundle.js',
      'start.js',
    ]);
    expect(html).not.toMatch(/<script>|<script [^>]*>[^<]/);

    const css = await (await fetch(`${server.url}/api/docs/swagger-ui.css`)).text();
    expect(css).not.toContain('data:');
    const images = [...css.matchAll(/url\((image-[^)]+)\)/g)].map((match) => match[1]);
    expect(images.length).toBeGreaterThan(10);
    for (const file of [...files, ...new Set(images)]) {
      const response = await fetch(`${server.url}/api/docs/${file ?? ''}`);
      expect(response.status, file).toBe(200);
      expect(response.headers.get('cache-control'), file).toBe('public, max-age=3600');
      if (file?.startsWith('image-') || file?.endsWith('.png'))
        expect(response.headers.get('content-type'), file).toMatch(/^image\//);
    }
    const missing = await fetch(`${server.url}/api/docs/image-0.svg`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: { code: 'not_found', message: 'Not found' } });
  });

  it('sends Swagger UI’s text files gzipped to a browser that accepts it, plain otherwise', async () => {
    const bundle = `${server.url}/api/docs/swagger-ui-bundle.js`;
    const gzipped = await fetch(bundle, { headers: { 'accept-encoding': 'gzip' } });
    expect(gzipped.headers.get('content-encoding')).toBe('gzip');
    expect(gzipped.headers.get('vary')).toBe('accept-encoding');
    const plain = await fetch(bundle, { headers: { 'accept-encoding': 'identity' } });
    expect(plain.headers.get('content-encoding')).toBeNull();
    // fetch undoes the gzip: both bodies are the same script.
    expect(await gzipped.text()).toBe(await plain.text());
  });
});
