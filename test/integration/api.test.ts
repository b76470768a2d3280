/** The public HTTP API through a real server on a random port. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  ApiError,
  Counter,
  Group,
  GroupPreview,
  GroupSnapshot,
} from '../../src/shared/api.js';
import { MESSAGES } from '../../src/shared/messages.js';
import { call, createGroup, newKey, uniqueGroupName } from '../helpers/client.js';
import { startServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server.close();
});

const api = <T = unknown>(
  ...args: Parameters<typeof call> extends [string, ...infer R] ? R : never
) => call<T>(server.url, ...args);

describe('GET /api/health', () => {
  it('answers 200 when the database answers', async () => {
    const answer = await api<{ status: string }>('GET', '/api/health');
    expect(answer.status).toBe(200);
    expect(answer.body.status).toBe('ok');
  });
});

describe('joining and creating groups', () => {
  it('creates a missing group (201) with name and display name equal to the slug', async () => {
    const key = newKey();
    const answer = await api<GroupSnapshot>('POST', '/api/groups/Friday%20Club!!/join', {
      body: { key },
    });
    expect(answer.status).toBe(201);
    expect(answer.body.group).toMatchObject({
      name: 'friday-club-',
      displayName: 'friday-club-',
      profileImageUrl: null,
    });
    expect(answer.body.counters).toEqual([]);
    expect(JSON.stringify(answer.body)).not.toMatch(/hash/i);
  });

  it('joins an existing group with the right key (200) and returns its counters', async () => {
    const member = await createGroup(server.url);
    await member.addCounter({ name: 'Coffee' });
    const answer = await api<GroupSnapshot>('POST', `${member.base}/join`, {
      body: { key: member.key },
    });
    expect(answer.status).toBe(200);
    expect(answer.body.group.id).toBe(member.group.id);
    expect(answer.body.counters.map((c) => c.name)).toEqual(['Coffee']);
  });

  it('refuses the wrong key for an existing group with 403 and the shared message', async () => {
    const member = await createGroup(server.url);
    const answer = await api<ApiError>('POST', `${member.base}/join`, { body: { key: newKey() } });
    expect(answer.status).toBe(403);
    expect(answer.body).toEqual({ error: { code: 'wrong_key', message: MESSAGES.wrongKey } });
  });

  it('refuses a malformed key and a bad name with 400 and the shared messages', async () => {
    const badKey = await api<ApiError>('POST', `/api/groups/${uniqueGroupName()}/join`, {
      body: { key: 'xyz' },
    });
    expect(badKey.status).toBe(400);
    expect(badKey.body.error.message).toBe(MESSAGES.invalidKeyFormat);
    const noKey = await api<ApiError>('POST', `/api/groups/${uniqueGroupName()}/join`, {
      body: {},
    });
    expect(noKey.status).toBe(400);
    const badName = await api<ApiError>('POST', '/api/groups/%21%21%21/join', {
      body: { key: newKey() },
    });
    expect(badName.status).toBe(400);
    expect(badName.body.error).toEqual({
      code: 'invalid_group_name',
      message: MESSAGES.groupNameNeedsAlnum,
    });
  });

  it('creates a group only once when two people create it at the same moment', async () => {
    const name = uniqueGroupName();
    const [a, b] = await Promise.all([
      api('POST', `/api/groups/${name}/join`, { body: { key: newKey() } }),
      api('POST', `/api/groups/${name}/join`, { body: { key: newKey() } }),
    ]);
    expect([a.status, b.status].sort()).toEqual([201, 403]);
  });

  it('shows anyone a group preview (name and picture) and 404 for an unknown group', async () => {
    const member = await createGroup(server.url);
    const preview = await api<GroupPreview>(
      'GET',
      `/api/groups/${member.group.name.toUpperCase()}`,
    );
    expect(preview.status).toBe(200);
    expect(preview.body).toEqual({ name: member.group.name, profileImageUrl: null });
    const missing = await api<ApiError>('GET', `/api/groups/${uniqueGroupName()}`);
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('group_not_found');
  });
});

describe('key checks on every member call', () => {
  it('answers 401 without a key, 400 for a malformed key, 403 for a wrong key, 404 for an unknown group', async () => {
    const member = await createGroup(server.url);
    const path = `${member.base}/counters`;
    const none = await api<ApiError>('GET', path);
    expect(none.status).toBe(401);
    expect(none.body.error).toEqual({ code: 'missing_key', message: MESSAGES.missingNameOrKey });
    const otherScheme = await api<ApiError>('GET', path, {
      headers: { authorization: `Basic ${member.key}` },
    });
    expect(otherScheme.status).toBe(401);
    const malformed = await api<ApiError>('GET', path, { key: 'not-hex!' });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error).toEqual({
      code: 'invalid_key_format',
      message: MESSAGES.invalidKeyFormat,
    });
    const wrong = await api<ApiError>('GET', path, { key: newKey() });
    expect(wrong.status).toBe(403);
    expect(wrong.body.error).toEqual({ code: 'wrong_key', message: MESSAGES.wrongKey });
    const unknown = await api<ApiError>('GET', `/api/groups/${uniqueGroupName()}/counters`, {
      key: member.key,
    });
    expect(unknown.status).toBe(404);
  });

  it("treats another group's counter id as not found, whatever key is given", async () => {
    const mine = await createGroup(server.url);
    const theirs = await createGroup(server.url);
    const counter = await theirs.addCounter({ name: 'Theirs' });
    const attempts = [
      api('PATCH', `${mine.base}/counters/${counter.id}`, { key: mine.key, body: { value: 99 } }),
      api('POST', `${mine.base}/counters/${counter.id}/increment`, { key: mine.key }),
      api('POST', `${mine.base}/counters/${counter.id}/decrement`, { key: mine.key }),
      api('DELETE', `${mine.base}/counters/${counter.id}`, { key: mine.key }),
    ];
    for (const answer of await Promise.all(attempts)) {
      expect(answer.status).toBe(404);
      expect((answer.body as ApiError).error.code).toBe('counter_not_found');
    }
    const wrongKeyOnTheirs = await api('PATCH', `${theirs.base}/counters/${counter.id}`, {
      key: mine.key,
      body: { value: 99 },
    });
    expect(wrongKeyOnTheirs.status).toBe(403);
    expect(await theirs.counters()).toEqual([counter]);
  });
});

describe('counters', () => {
  it('creates a counter with the defaults of a new counter (201) and lists counters by creation time', async () => {
    const member = await createGroup(server.url);
    const first = await api<Counter>('POST', `${member.base}/counters`, { key: member.key });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({
      name: 'New Counter',
      description: '',
      value: 0,
      incrementStep: 1,
      decrementStep: 1,
      thumbnailUrl: null,
    });
    const second = await member.addCounter({ name: 'Second' });
    const list = await api<Counter[]>('GET', `${member.base}/counters`, { key: member.key });
    expect(list.body.map((c) => c.id)).toEqual([first.body.id, second.id]);
  });

  it('edits name, description, value, steps and thumbnail, applying the shared rules', async () => {
    const member = await createGroup(server.url);
    const counter = await member.addCounter();
    const answer = await api<Counter>('PATCH', `${member.base}/counters/${counter.id}`, {
      key: member.key,
      body: {
        name: '  Push-ups<script>alert(1)</script> ',
        description: '<b onclick="x()">daily</b>',
        value: -12,
        incrementStep: 5,
        decrementStep: 2,
        thumbnailUrl: 'example.com/p.png',
      },
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      name: 'Push-ups',
      description: '<b >daily</b>',
      value: -12,
      incrementStep: 5,
      decrementStep: 2,
      thumbnailUrl: 'https://example.com/p.png',
    });
    const cleared = await api<Counter>('PATCH', `${member.base}/counters/${counter.id}`, {
      key: member.key,
      body: { thumbnailUrl: '' },
    });
    expect(cleared.body.thumbnailUrl).toBeNull();
  });

  it('refuses invalid edits with 400 and stores nothing', async () => {
    const member = await createGroup(server.url);
    const counter = await member.addCounter();
    const bad: unknown[] = [
      { value: 1.5 },
      { value: '7' },
      { value: Number.MAX_SAFE_INTEGER + 2 },
      { incrementStep: 0 },
      { decrementStep: -1 },
      { thumbnailUrl: 'javascript:alert(1)' },
      { thumbnailUrl: 'data:image/png;base64,AAAA' },
      { name: 42 },
      { unknownField: 'x' },
      {},
    ];
    const rawBodies = [
      ...bad.map((body) => JSON.stringify(body)),
      '{"__proto__":{"polluted":true},"value":3}',
      '[1,2]',
      '"text"',
      'null',
    ];
    for (const rawBody of rawBodies) {
      const answer = await api<ApiError>('PATCH', `${member.base}/counters/${counter.id}`, {
        key: member.key,
        rawBody,
      });
      expect(answer.status, rawBody).toBe(400);
      expect(answer.body.error.code).toBe('validation_failed');
    }
    const url = await api<ApiError>('PATCH', `${member.base}/counters/${counter.id}`, {
      key: member.key,
      body: { thumbnailUrl: 'javascript:alert(1)' },
    });
    expect(url.body.error.message).toContain(MESSAGES.invalidUrl);
    expect(await member.counters()).toEqual([counter]);
  });

  it('increments by the increment step and decrements by the decrement step, with times', async () => {
    const member = await createGroup(server.url);
    const counter = await member.addCounter({ incrementStep: 5, decrementStep: 2 });
    const up = await api<Counter>('POST', `${member.base}/counters/${counter.id}/increment`, {
      key: member.key,
    });
    expect(up.status).toBe(200);
    expect(up.body.value).toBe(5);
    const upMore = await api<Counter>('POST', `${member.base}/counters/${counter.id}/increment`, {
      key: member.key,
      body: { times: 3 },
    });
    expect(upMore.body.value).toBe(20);
    const down = await api<Counter>('POST', `${member.base}/counters/${counter.id}/decrement`, {
      key: member.key,
      body: { times: 11 },
    });
    expect(down.body.value).toBe(-2);
    const badTimes = await api('POST', `${member.base}/counters/${counter.id}/increment`, {
      key: member.key,
      body: { times: 0 },
    });
    expect(badTimes.status).toBe(400);
  });

  it('leaves a counter at exactly 100 after 100 increments fired at once', async () => {
    const member = await createGroup(server.url);
    const counter = await member.addCounter();
    const answers = await Promise.all(
      Array.from({ length: 100 }, () =>
        api<Counter>('POST', `${member.base}/counters/${counter.id}/increment`, {
          key: member.key,
        }),
      ),
    );
    expect(answers.every((a) => a.status === 200)).toBe(true);
    // Taps committed together answer with the row after their batch: each answer includes its
    // own tap, and the last batch shows all of them.
    const values = answers.map((a) => a.body.value);
    expect(values.every((value) => value >= 1 && value <= 100)).toBe(true);
    expect(Math.max(...values)).toBe(100);
    expect((await member.counters())[0]?.value).toBe(100);
  });

  it('refuses an increment past the exact integer range with 422', async () => {
    const member = await createGroup(server.url);
    const counter = await member.addCounter({ value: Number.MAX_SAFE_INTEGER });
    const answer = await api<ApiError>('POST', `${member.base}/counters/${counter.id}/increment`, {
      key: member.key,
    });
    expect(answer.status).toBe(422);
    expect(answer.body.error.code).toBe('value_out_of_range');
  });

  it('deletes a counter with 204, then it is gone', async () => {
    const member = await createGroup(server.url);
    const counter = await member.addCounter();
    const answer = await api('DELETE', `${member.base}/counters/${counter.id}`, {
      key: member.key,
    });
    expect(answer.status).toBe(204);
    expect(await member.counters()).toEqual([]);
    expect(
      (await api('DELETE', `${member.base}/counters/${counter.id}`, { key: member.key })).status,
    ).toBe(404);
  });
});

describe('retries with an operation id', () => {
  it('applies an increment retried with the same Idempotency-Key once', async () => {
    const member = await createGroup(server.url);
    const counter = await member.addCounter();
    const headers = { 'idempotency-key': 'tap-0001' };
    const first = await api<Counter>('POST', `${member.base}/counters/${counter.id}/increment`, {
      key: member.key,
      headers,
    });
    const retry = await api<Counter>('POST', `${member.base}/counters/${counter.id}/increment`, {
      key: member.key,
      headers,
    });
    expect(retry.status).toBe(200);
    expect(retry.body).toEqual(first.body);
    expect((await member.counters())[0]?.value).toBe(1);
  });

  it('applies a create retried with the same opId field once', async () => {
    const member = await createGroup(server.url);
    const first = await api<Counter>('POST', `${member.base}/counters`, {
      key: member.key,
      body: { opId: 'create-1' },
    });
    const retry = await api<Counter>('POST', `${member.base}/counters`, {
      key: member.key,
      body: { opId: 'create-1' },
    });
    expect(retry.body.id).toBe(first.body.id);
    expect(await member.counters()).toHaveLength(1);
  });

  it('refuses a malformed operation id', async () => {
    const member = await createGroup(server.url);
    const counter = await member.addCounter();
    const answer = await api<ApiError>('POST', `${member.base}/counters/${counter.id}/increment`, {
      key: member.key,
      headers: { 'idempotency-key': 'has spaces and !' },
    });
    expect(answer.status).toBe(400);
    expect(answer.body.error.message).toBe(MESSAGES.invalidOperationId);
  });
});

describe('the group itself', () => {
  it('changes display name and profile picture; the preview shows the new picture', async () => {
    const member = await createGroup(server.url);
    const answer = await api<Group>('PATCH', member.base, {
      key: member.key,
      body: { displayName: 'Night Owls', profileImageUrl: 'http://127.0.0.1:1/owl.png' },
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      id: member.group.id,
      name: member.group.name,
      displayName: 'Night Owls',
      profileImageUrl: 'http://127.0.0.1:1/owl.png',
      timeZone: 'UTC',
      weekStart: 1,
      sectionLimits: {},
    });
    const preview = await api<GroupPreview>('GET', member.base);
    expect(preview.body.profileImageUrl).toBe('http://127.0.0.1:1/owl.png');
  });

  it('refuses an empty display name and a non-http picture', async () => {
    const member = await createGroup(server.url);
    expect(
      (await api('PATCH', member.base, { key: member.key, body: { displayName: '   ' } })).status,
    ).toBe(400);
    expect(
      (
        await api('PATCH', member.base, {
          key: member.key,
          body: { profileImageUrl: 'javascript:x' },
        })
      ).status,
    ).toBe(400);
  });
});

describe('bad requests', () => {
  it('answers 413 for a body over the limit', async () => {
    const member = await createGroup(server.url);
    const counter = await member.addCounter();
    const answer = await api<ApiError>('PATCH', `${member.base}/counters/${counter.id}`, {
      key: member.key,
      body: { name: 'x'.repeat(20_000) },
    });
    expect(answer.status).toBe(413);
    expect(answer.body.error.code).toBe('payload_too_large');
  });

  it('answers 400 for invalid JSON and 415 for a body that is not JSON, without echoing it', async () => {
    const member = await createGroup(server.url);
    const invalid = await api<ApiError>('POST', `${member.base}/counters`, {
      key: member.key,
      rawBody: '{"name": secret-value',
    });
    expect(invalid.status).toBe(400);
    expect(JSON.stringify(invalid.body)).not.toContain('secret-value');
    const text = await api<ApiError>('POST', `${member.base}/counters`, {
      key: member.key,
      rawBody: 'name=x',
      headers: { 'content-type': 'text/plain' },
    });
    expect(text.status).toBe(415);
    expect(text.body.error.code).toBe('validation_failed');
  });

  it('answers unknown API paths with a JSON 404', async () => {
    const answer = await api<ApiError>('GET', '/api/nope');
    expect(answer.status).toBe(404);
    expect(answer.body.error.code).toBe('not_found');
  });

  it('sends security headers: CSP, no referrer, nosniff, no framing', async () => {
    const answer = await api('GET', '/api/health');
    const csp = answer.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(answer.headers.get('referrer-policy')).toBe('no-referrer');
    expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
  });
});
