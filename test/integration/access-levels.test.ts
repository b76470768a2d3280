/**
 * View-only links and key rotation (ADR 9), over the API and the live channel: a view-only key
 * sees everything live and changes nothing; a replaced key stops working at once, everywhere,
 * and its open sockets are closed with a clear reason — across instances on PostgreSQL too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiError, GroupSnapshot, ViewKey } from '../../src/shared/api.js';
import { MESSAGES } from '../../src/shared/messages.js';
import { CLOSE_CODES, type ServerMessage } from '../../src/shared/protocol.js';
import { call, createGroup, newKey } from '../helpers/client.js';
import { allChanges, isReady, joinLive } from '../helpers/live.js';
import { postgresUrl, twoInstancesOnPostgres } from '../helpers/postgres.js';
import { startServer, type TestServer } from '../helpers/server.js';

const isError = (m: ServerMessage): m is Extract<ServerMessage, { type: 'error' }> =>
  m.type === 'error';

describe('view-only links and key rotation', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(async () => {
    await server.close();
  });

  async function viewLinkOf(group: Awaited<ReturnType<typeof createGroup>>): Promise<string> {
    const answer = await call<ViewKey>(server.url, 'POST', `${group.base}/view-key`, {
      key: group.key,
    });
    expect(answer.status).toBe(200);
    if (answer.body.viewKey === null) throw new Error('no view key');
    return answer.body.viewKey;
  }

  it('gives a view-only key that joins as view, sees changes live and may change nothing', async () => {
    const group = await createGroup(server.url);
    const counter = await group.addCounter({ name: 'Laps' });
    const viewKey = await viewLinkOf(group);
    expect(viewKey).toMatch(/^[0-9a-f]{64}$/);
    expect(viewKey).not.toBe(group.key);
    // The same link every time it is asked for: members can show it again.
    expect(await viewLinkOf(group)).toBe(viewKey);
    const shown = await call<ViewKey>(server.url, 'GET', `${group.base}/view-key`, {
      key: group.key,
    });
    expect(shown.body).toEqual({ viewKey });

    const joined = await call<GroupSnapshot>(server.url, 'POST', `${group.base}/join`, {
      body: { key: viewKey },
    });
    expect(joined.status).toBe(200);
    expect(joined.body.access).toBe('view');
    const asMember = await call<GroupSnapshot>(server.url, 'POST', `${group.base}/join`, {
      body: { key: group.key },
    });
    expect(asMember.body.access).toBe('full');

    const viewer = await joinLive(server.wsUrl, group.group.name, viewKey);
    expect((await viewer.waitFor(isReady)).access).toBe('view');
    viewer.send({
      type: 'mutate',
      opId: 'viewer-tap',
      mutation: { kind: 'adjustCounter', counterId: counter.id, direction: 'increment', times: 1 },
    });
    const refused = await viewer.waitFor(isError);
    expect(refused).toMatchObject({
      opId: 'viewer-tap',
      error: { code: 'read_only', message: MESSAGES.readOnly },
    });
    await call(server.url, 'POST', `${group.base}/counters/${counter.id}/increment`, {
      key: group.key,
      body: { times: 3 },
    });
    await viewer.waitUntil(() => viewer.counters.get(counter.id)?.value === 3);
    viewer.close();
    expect((await group.counters())[0]?.value).toBe(3);
  });

  it('turning the view-only link off closes its sockets and refuses its key; members stay', async () => {
    const group = await createGroup(server.url);
    const viewKey = await viewLinkOf(group);
    const viewer = await joinLive(server.wsUrl, group.group.name, viewKey);
    const member = await joinLive(server.wsUrl, group.group.name, group.key);
    const off = await call(server.url, 'DELETE', `${group.base}/view-key`, { key: group.key });
    expect(off.status).toBe(204);
    expect(await viewer.closed).toEqual({
      code: CLOSE_CODES.keyChanged,
      reason: MESSAGES.viewLinkChanged,
    });
    const refused = await call<ApiError>(server.url, 'POST', `${group.base}/join`, {
      body: { key: viewKey },
    });
    expect(refused.status).toBe(403);
    // The member's socket is still open and still fed.
    await group.addCounter();
    await member.waitUntil(() => member.counters.size === 1);
    member.close();
    const shown = await call<ViewKey>(server.url, 'GET', `${group.base}/view-key`, {
      key: group.key,
    });
    expect(shown.body).toEqual({ viewKey: null });
  });

  it('replaces the access key: the old key fails everywhere at once and its sockets close with the reason', async () => {
    const group = await createGroup(server.url);
    const counter = await group.addCounter();
    const oldView = await viewLinkOf(group);
    const member = await joinLive(server.wsUrl, group.group.name, group.key);
    const viewer = await joinLive(server.wsUrl, group.group.name, oldView);
    const next = newKey();
    const rotated = await call(server.url, 'POST', `${group.base}/key`, {
      key: group.key,
      body: { key: next },
    });
    expect(rotated.status).toBe(200);
    expect(await member.closed).toEqual({
      code: CLOSE_CODES.keyChanged,
      reason: MESSAGES.keyChanged,
    });
    expect(await viewer.closed).toEqual({
      code: CLOSE_CODES.keyChanged,
      reason: MESSAGES.viewLinkChanged,
    });
    for (const key of [group.key, oldView]) {
      const answer = await call<ApiError>(server.url, 'GET', `${group.base}/counters`, { key });
      expect(answer.status).toBe(403);
      expect(answer.body.error.code).toBe('wrong_key');
    }
    const counters = await call(server.url, 'GET', `${group.base}/counters`, { key: next });
    expect(counters.status).toBe(200);
    // The view-only link moved with the key: still on, with a new key of its own.
    const newView = await call<ViewKey>(server.url, 'GET', `${group.base}/view-key`, {
      key: next,
    });
    expect(newView.body.viewKey).toMatch(/^[0-9a-f]{64}$/);
    expect(newView.body.viewKey).not.toBe(oldView);
    const again = await joinLive(server.wsUrl, group.group.name, next);
    expect(again.counters.get(counter.id)).toBeDefined();
    again.close();
  });

  it('refuses a rotation without the access key, from a view-only key, or to the same key', async () => {
    const group = await createGroup(server.url);
    const viewKey = await viewLinkOf(group);
    const path = `${group.base}/key`;
    expect((await call(server.url, 'POST', path, { body: { key: newKey() } })).status).toBe(401);
    const fromViewer = await call<ApiError>(server.url, 'POST', path, {
      key: viewKey,
      body: { key: newKey() },
    });
    expect(fromViewer.status).toBe(403);
    expect(fromViewer.body.error.code).toBe('read_only');
    const same = await call<ApiError>(server.url, 'POST', path, {
      key: group.key,
      body: { key: group.key },
    });
    expect(same.status).toBe(400);
    expect(same.body.error.message).toBe(MESSAGES.sameKey);
    const malformed = await call<ApiError>(server.url, 'POST', path, {
      key: group.key,
      body: { key: 'not-hex' },
    });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.message).toBe(MESSAGES.invalidKeyFormat);
    expect(
      (await call(server.url, 'GET', `${group.base}/counters`, { key: group.key })).status,
    ).toBe(200);
  });

  it('announces the change to members as group.accessChanged before closing them', async () => {
    const group = await createGroup(server.url);
    const member = await joinLive(server.wsUrl, group.group.name, group.key);
    await call(server.url, 'POST', `${group.base}/key`, {
      key: group.key,
      body: { key: newKey() },
    });
    await member.closed;
    expect(allChanges(member).map((change) => change.type)).toEqual(['group.accessChanged']);
  });
});

describe.skipIf(postgresUrl === undefined)(
  'key rotation across two instances on PostgreSQL',
  () => {
    const instances = twoInstancesOnPostgres();

    it('closes sockets on the other instance that still use the old key', async () => {
      const [a, b] = [instances.a(), instances.b()];
      const group = await createGroup(a.url);
      const onB = await joinLive(b.wsUrl, group.group.name, group.key);
      const next = newKey();
      expect(
        (await call(a.url, 'POST', `${group.base}/key`, { key: group.key, body: { key: next } }))
          .status,
      ).toBe(200);
      expect((await onB.closed).code).toBe(CLOSE_CODES.keyChanged);
      const stillOnB = await joinLive(b.wsUrl, group.group.name, next);
      await call(a.url, 'POST', `${group.base}/counters`, { key: next, body: {} });
      await stillOnB.waitUntil(() => stillOnB.counters.size === 1);
      stillOnB.close();
    });

    it('refuses the old key over REST on the other instance, which had it cached', async () => {
      const [a, b] = [instances.a(), instances.b()];
      const group = await createGroup(a.url);
      // B checks the key once, keeping the group's access in memory (core/access-cache.ts).
      expect((await call(b.url, 'GET', `${group.base}/counters`, { key: group.key })).status).toBe(
        200,
      );
      const watcher = await joinLive(b.wsUrl, group.group.name, group.key);
      const next = newKey();
      await call(a.url, 'POST', `${group.base}/key`, { key: group.key, body: { key: next } });
      // The socket's close says the announcement has reached B.
      await watcher.closed;
      const old = await call(b.url, 'GET', `${group.base}/counters`, { key: group.key });
      expect(old.status).toBe(403);
      expect((await call(b.url, 'GET', `${group.base}/counters`, { key: next })).status).toBe(200);
    });

    it('refuses a view-only key on the other instance once the link is turned off', async () => {
      const [a, b] = [instances.a(), instances.b()];
      const group = await createGroup(a.url);
      const link = await call(a.url, 'POST', `${group.base}/view-key`, { key: group.key });
      const { viewKey } = link.body as { viewKey: string };
      expect((await call(b.url, 'GET', `${group.base}/counters`, { key: viewKey })).status).toBe(
        200,
      );
      const viewer = await joinLive(b.wsUrl, group.group.name, viewKey);
      await call(a.url, 'DELETE', `${group.base}/view-key`, { key: group.key });
      await viewer.closed;
      expect((await call(b.url, 'GET', `${group.base}/counters`, { key: viewKey })).status).toBe(
        403,
      );
    });
  },
);
