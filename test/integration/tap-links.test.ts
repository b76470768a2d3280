/**
 * Tap links on each store, over REST and the live channel: a link's holder sees and taps only the
 * counters of its scope, in the directions it allows, and nothing else; its changes carry its
 * label in the log; revoking it stops its key at once (sockets closed, queued taps refused with a
 * sentence that says so); a rotation keeps links unless told otherwise. Every route is tried with
 * a tap key, a view key and the full key.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActivityPage, GroupHistory } from '../../src/shared/activity.js';
import type { Counter, GroupSnapshot, Tally } from '../../src/shared/api.js';
import {
  LINK_MESSAGES,
  MAX_TAP_LINKS_PER_GROUP,
  TAP_LINK_LABEL_MAX_LENGTH,
  TAP_LINK_SCOPE_MAX_COUNTERS,
  type TapLinkCreated,
  type TapLinkList,
} from '../../src/shared/links.js';
import { MESSAGES } from '../../src/shared/messages.js';
import { CLOSE_CODES, PROTOCOL_VERSION, type ServerMessage } from '../../src/shared/protocol.js';
import { call, createGroup, newKey } from '../helpers/client.js';
import { allChanges, isReady, joinLive } from '../helpers/live.js';
import { postgresUrl, storeBackends, twoInstancesOnPostgres } from '../helpers/postgres.js';
import { startServer, type TestServer } from '../helpers/server.js';

const member = (name: string) => ({ 'tally-member': encodeURIComponent(name) });
const run = promisify(execFile);

describe.each(storeBackends())('tap links on %s', (_name, database) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ database: database(), logLevel: 'warn' });
  });
  afterAll(async () => {
    await server.close();
  });

  /** A group with two counters in section Entrances, one outside it, and a link for the section. */
  async function gateGroup(can: string[] = ['increment', 'decrement']) {
    const group = await createGroup(server.url);
    const gateA = await group.addCounter({ name: 'Gate A', section: 'Entrances' });
    const gateB = await group.addCounter({ name: 'Gate B', section: 'Entrances' });
    const hall = await group.addCounter({ name: 'Main Hall' });
    const made = await call<TapLinkCreated>(server.url, 'POST', `${group.base}/links`, {
      key: group.key,
      body: { label: 'Gate volunteers', scope: { section: 'Entrances' }, can },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const tapKey = made.body.key ?? '';
    return { ...group, gateA, gateB, hall, link: made.body, tapKey };
  }

  const tap = (
    group: { base: string },
    key: string,
    counterId: string,
    options: { direction?: string; headers?: Record<string, string> } = {},
  ) =>
    call<Counter>(
      server.url,
      'POST',
      `${group.base}/counters/${counterId}/${options.direction ?? 'increment'}`,
      { key, headers: options.headers ?? member('Ada') },
    );

  it('makes a link with a key of the access keys’ format, shown once, listed without it', async () => {
    const group = await gateGroup(['increment']);
    expect(group.tapKey).toMatch(/^[0-9a-f]{64}$/);
    expect(group.link).toMatchObject({
      label: 'Gate volunteers',
      scope: { section: 'Entrances' },
      can: ['increment'],
    });
    const list = await call<TapLinkList>(server.url, 'GET', `${group.base}/links`, {
      key: group.key,
    });
    expect(list.status).toBe(200);
    expect(list.body.limits.links).toBe(MAX_TAP_LINKS_PER_GROUP);
    expect(list.body.links).toEqual([
      {
        id: group.link.id,
        label: 'Gate volunteers',
        scope: { section: 'Entrances' },
        can: ['increment'],
        createdAt: expect.any(String) as string,
        lastUsedAt: null,
        taps: 0,
      },
    ]);
    expect(JSON.stringify(list.body)).not.toContain(group.tapKey);
    // Its holder opens the group as a tap link, seeing only the section's counters.
    const joined = await call<GroupSnapshot>(server.url, 'POST', `${group.base}/join`, {
      body: { key: group.tapKey },
    });
    expect(joined.status).toBe(200);
    expect(joined.body.access).toBe('tap');
    expect(joined.body.link).toEqual({
      id: group.link.id,
      label: 'Gate volunteers',
      scope: { section: 'Entrances' },
      can: ['increment'],
    });
    expect(joined.body.counters.map((counter) => counter.name)).toEqual(['Gate A', 'Gate B']);
  });

  it('a retry with the same Idempotency-Key answers the same link, without a key', async () => {
    const group = await createGroup(server.url);
    const request = {
      key: group.key,
      headers: { 'idempotency-key': 'make-gate-link' },
      body: { label: 'Door', scope: { all: true } },
    };
    const first = await call<TapLinkCreated>(server.url, 'POST', `${group.base}/links`, request);
    const again = await call<TapLinkCreated>(server.url, 'POST', `${group.base}/links`, request);
    expect(first.status).toBe(201);
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(first.body.id);
    expect(again.body.key).toBeUndefined();
    const list = await call<TapLinkList>(server.url, 'GET', `${group.base}/links`, {
      key: group.key,
    });
    expect(list.body.links).toHaveLength(1);
  });

  it('refuses bodies it cannot take, with a sentence that says what to send', async () => {
    const group = await createGroup(server.url);
    const counter = await group.addCounter({ name: 'Door' });
    const refused = async (body: unknown) => {
      const answer = await call<{ error: { code: string; message: string } }>(
        server.url,
        'POST',
        `${group.base}/links`,
        { key: group.key, body },
      );
      expect(answer.status, JSON.stringify(body)).toBe(400);
      return answer.body.error;
    };
    expect((await refused({ label: ' ', scope: { all: true } })).message).toContain(
      LINK_MESSAGES.labelEmpty,
    );
    expect((await refused({ label: 'Door', scope: { everything: true } })).code).toBe(
      'validation_failed',
    );
    expect((await refused({ label: 'Door', scope: { all: true }, can: [] })).message).toContain(
      LINK_MESSAGES.canEmpty,
    );
    expect((await refused({ label: 'Door', scope: { counterIds: ['nope'] } })).message).toBe(
      LINK_MESSAGES.unknownCounter('nope'),
    );
    const tooMany = Array.from({ length: TAP_LINK_SCOPE_MAX_COUNTERS + 1 }, (_v, i) => `c${i}`);
    expect((await refused({ label: 'Door', scope: { counterIds: tooMany } })).code).toBe(
      'validation_failed',
    );
    // A long label is cut to its length, as every text is.
    const fine = await call<TapLinkCreated>(server.url, 'POST', `${group.base}/links`, {
      key: group.key,
      body: { label: 'D'.repeat(200), scope: { counterIds: [counter.id] } },
    });
    expect(fine.status).toBe(201);
    expect(fine.body.label).toBe('D'.repeat(TAP_LINK_LABEL_MAX_LENGTH));
  });

  it(`holds a group to ${String(MAX_TAP_LINKS_PER_GROUP)} live links (409 too_many_links); a revoked one frees its place`, async () => {
    const group = await createGroup(server.url);
    const ids: string[] = [];
    for (let i = 0; i < MAX_TAP_LINKS_PER_GROUP; i += 1) {
      const made = await call<TapLinkCreated>(server.url, 'POST', `${group.base}/links`, {
        key: group.key,
        body: { label: `Door ${String(i)}`, scope: { all: true } },
      });
      expect(made.status).toBe(201);
      ids.push(made.body.id);
    }
    const over = await call<{ error: { code: string; message: string } }>(
      server.url,
      'POST',
      `${group.base}/links`,
      { key: group.key, body: { label: 'One more', scope: { all: true } } },
    );
    expect(over.status).toBe(409);
    expect(over.body.error).toEqual({
      code: 'too_many_links',
      message: LINK_MESSAGES.tooManyLinks,
    });
    const revoked = await call(server.url, 'DELETE', `${group.base}/links/${ids[0] ?? ''}`, {
      key: group.key,
    });
    expect(revoked.status).toBe(204);
    const again = await call(server.url, 'POST', `${group.base}/links`, {
      key: group.key,
      body: { label: 'One more', scope: { all: true } },
    });
    expect(again.status).toBe(201);
    const gone = await call<{ error: { code: string } }>(
      server.url,
      'DELETE',
      `${group.base}/links/${ids[0] ?? ''}`,
      { key: group.key },
    );
    expect(gone.status).toBe(404);
    expect(gone.body.error.code).toBe('link_not_found');
  });

  it('answers every route as its key allows: tap key, view key and full key', async () => {
    const group = await gateGroup(['increment']);
    const viewKey = (
      await call<{ viewKey: string }>(server.url, 'POST', `${group.base}/view-key`, {
        key: group.key,
      })
    ).body.viewKey;
    const b = group.base;
    const { gateA, hall } = group;
    /** Each route with what the tap key, the view key and the full key get (status or code). */
    const routes: [string, string, unknown, [number, number, number]][] = [
      ['PATCH', b, { displayName: 'X' }, [403, 403, 200]],
      ['POST', `${b}/counters`, { name: 'New' }, [403, 403, 201]],
      ['PATCH', `${b}/counters/${gateA.id}`, { name: 'Renamed' }, [403, 403, 200]],
      ['PUT', `${b}/sections/Entrances`, { max: 100 }, [403, 403, 200]],
      ['GET', `${b}/view-key`, undefined, [403, 403, 200]],
      ['GET', `${b}/alerts`, undefined, [403, 403, 200]],
      ['GET', `${b}/links`, undefined, [403, 403, 200]],
      ['POST', `${b}/links`, { label: 'L', scope: { all: true } }, [403, 403, 201]],
      ['GET', `${b}/export?format=json`, undefined, [403, 200, 200]],
      ['GET', `${b}/activity/verify`, undefined, [403, 200, 200]],
      ['GET', `${b}/counters`, undefined, [200, 200, 200]],
      ['GET', `${b}/activity`, undefined, [200, 200, 200]],
      ['GET', `${b}/history`, undefined, [200, 200, 200]],
      ['GET', `${b}/tallies`, undefined, [200, 200, 200]],
      ['GET', `${b}/counters/${gateA.id}/history?points=10`, undefined, [200, 200, 200]],
      ['GET', `${b}/counters/${hall.id}/history?points=10`, undefined, [404, 200, 200]],
      ['GET', `${b}/counters/${hall.id}/periods`, undefined, [404, 200, 200]],
      ['POST', `${b}/counters/${gateA.id}/increment`, undefined, [200, 403, 200]],
      ['POST', `${b}/counters/${gateA.id}/decrement`, undefined, [403, 403, 200]],
      ['POST', `${b}/counters/${hall.id}/increment`, undefined, [404, 403, 200]],
      ['DELETE', `${b}/counters/${hall.id}`, undefined, [403, 403, 204]],
    ];
    const keys = [group.tapKey, viewKey, group.key];
    for (const [method, path, body, expected] of routes) {
      for (const [index, key] of keys.entries()) {
        const answer = await call<{ error?: { code: string } }>(server.url, method, path, {
          key,
          body,
        });
        const who = ['tap', 'view', 'full'][index] ?? '';
        expect(answer.status, `${method} ${path} with the ${who} key`).toBe(expected[index]);
        if (index === 0 && answer.status === 403) expect(answer.body.error?.code).toBe('tap_only');
        if (index === 1 && answer.status === 403) expect(answer.body.error?.code).toBe('read_only');
        if (index === 0 && answer.status === 404)
          expect(answer.body.error?.code).toBe('counter_not_found');
      }
    }
    // Rotating the key and the view-only link are the access key's alone.
    for (const [method, path] of [
      ['POST', `${b}/key`],
      ['DELETE', `${b}/view-key`],
    ] as const) {
      const answer = await call<{ error: { code: string } }>(server.url, method, path, {
        key: group.tapKey,
        body: method === 'POST' ? { key: newKey() } : undefined,
      });
      expect(answer.status).toBe(403);
      expect(answer.body.error.code).toBe('tap_only');
    }
  });

  it('shows a tap link nothing outside its scope: counters, log, charts and tallies', async () => {
    const group = await gateGroup();
    await tap(group, group.key, group.hall.id, { headers: member('Owner') });
    await tap(group, group.tapKey, group.gateA.id, { headers: member('Ada') });
    await tap(group, group.tapKey, group.gateA.id, { headers: member('Ada') });
    const read = async <T>(path: string) =>
      (await call<T>(server.url, 'GET', `${group.base}${path}`, { key: group.tapKey })).body;
    const counters = await read<Counter[]>('/counters');
    expect(counters.map((counter) => counter.name)).toEqual(['Gate A', 'Gate B']);
    const activity = await read<ActivityPage>('/activity');
    expect(activity.entries.length).toBeGreaterThan(0);
    for (const entry of activity.entries) expect(entry.counterId).not.toBe(group.hall.id);
    expect(activity.entries.some((entry) => entry.counterId === null)).toBe(false);
    const history = await read<GroupHistory>('/history');
    expect(Object.keys(history.series).sort()).toEqual([group.gateA.id, group.gateB.id].sort());
    const tallies = await read<Tally[]>('/tallies');
    expect(tallies).toEqual([
      {
        member: 'Ada',
        link: 'Gate volunteers',
        counterId: group.gateA.id,
        increments: 2,
        decrements: 0,
        net: 2,
      },
    ]);
  });

  it('records the link beside the member ("Ada · Gate B"), adds up its use, and tallies by link', async () => {
    const group = await gateGroup();
    await tap(group, group.tapKey, group.gateA.id, { headers: member('Ada') });
    await tap(group, group.tapKey, group.gateB.id, { headers: member('Bo') });
    await tap(group, group.key, group.gateA.id, { headers: member('Ada') });
    const page = await call<ActivityPage>(server.url, 'GET', `${group.base}/activity`, {
      key: group.key,
    });
    const taps = page.body.entries.filter((entry) => entry.kind === 'counter.adjusted');
    expect(taps.map((entry) => [entry.actor, entry.link?.label ?? null])).toEqual([
      ['Ada', null],
      ['Bo', 'Gate volunteers'],
      ['Ada', 'Gate volunteers'],
    ]);
    const byMember = await call<Tally[]>(server.url, 'GET', `${group.base}/tallies`, {
      key: group.key,
    });
    expect(
      byMember.body.map((row) => [row.member, row.link, row.counterId === group.gateA.id]),
    ).toEqual(
      expect.arrayContaining([
        ['Ada', null, true],
        ['Ada', 'Gate volunteers', true],
        ['Bo', 'Gate volunteers', false],
      ]),
    );
    const byLink = await call<Tally[]>(server.url, 'GET', `${group.base}/tallies?by=link`, {
      key: group.key,
    });
    expect(byLink.body.filter((row) => row.link === 'Gate volunteers')).toHaveLength(2);
    expect(byLink.body.filter((row) => row.link === null)).toHaveLength(1);
    const list = await call<TapLinkList>(server.url, 'GET', `${group.base}/links`, {
      key: group.key,
    });
    expect(list.body.links[0]?.taps).toBe(2);
    expect(list.body.links[0]?.lastUsedAt).not.toBeNull();
  });

  it('chains its entries with their link: the log verifies, online and in an exported file, and a changed label is found', async () => {
    const group = await gateGroup();
    await tap(group, group.tapKey, group.gateA.id, { headers: member('Ada') });
    await tap(group, group.key, group.gateB.id, { headers: member('Owner') });
    const verdict = await call(server.url, 'GET', `${group.base}/activity/verify`, {
      key: group.key,
    });
    expect(verdict.body).toMatchObject({ ok: true });
    const exported = await fetch(`${server.url}${group.base}/export?format=json`, {
      headers: { authorization: `Bearer ${group.key}` },
    });
    const text = await exported.text();
    expect(text).toContain('"label":"Gate volunteers"');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tally-tap-chain-'));
    const file = path.join(dir, 'export.json');
    const script = path.join(import.meta.dirname, '../../scripts/verify-export.mjs');
    fs.writeFileSync(file, text);
    const good = await run(process.execPath, [script, file]);
    expect(good.stdout).toContain('OK: the activity log of');
    fs.writeFileSync(file, text.replace('"label":"Gate volunteers"', '"label":"Gate volunteerz"'));
    const bad = await run(process.execPath, [script, file]).catch((error: unknown) => error);
    expect(bad).toMatchObject({ code: 1 });
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('undoes its own taps only', async () => {
    const group = await gateGroup();
    await tap(group, group.key, group.gateA.id, { headers: member('Owner') });
    await tap(group, group.tapKey, group.gateA.id, {
      headers: { ...member('Ada'), 'idempotency-key': 'ada-tap-1' },
    });
    const own = await call<{ counter: Counter }>(server.url, 'POST', `${group.base}/undo`, {
      key: group.tapKey,
      body: { opId: 'ada-tap-1' },
    });
    expect(own.status).toBe(200);
    expect(own.body.counter.value).toBe(1);
    const page = await call<ActivityPage>(server.url, 'GET', `${group.base}/activity`, {
      key: group.key,
    });
    const owners = page.body.entries.find(
      (entry) => entry.kind === 'counter.adjusted' && entry.link === undefined,
    );
    const other = await call<{ error: { code: string } }>(
      server.url,
      'POST',
      `${group.base}/activity/${String(owners?.id)}/undo`,
      { key: group.tapKey },
    );
    expect(other.status).toBe(403);
    expect(other.body.error.code).toBe('tap_only');
  });

  it('on the live channel: a scoped snapshot, only its changes, and nothing but taps', async () => {
    const group = await gateGroup(['increment']);
    const live = await joinLive(server.wsUrl, group.group.name, group.tapKey);
    const ready = live.messages.find(isReady);
    expect(ready?.access).toBe('tap');
    expect(ready?.link?.label).toBe('Gate volunteers');
    expect(ready?.counters.map((counter) => counter.name)).toEqual(['Gate A', 'Gate B']);
    // A change outside the scope never reaches it; one inside does.
    await tap(group, group.key, group.hall.id);
    await tap(group, group.key, group.gateB.id);
    await live.waitUntil(() => live.counters.get(group.gateB.id)?.value === 1);
    // The hall moved into the section appears; Gate B moved out disappears.
    await call(server.url, 'PATCH', `${group.base}/counters/${group.hall.id}`, {
      key: group.key,
      body: { section: 'Entrances' },
    });
    await call(server.url, 'PATCH', `${group.base}/counters/${group.gateB.id}`, {
      key: group.key,
      body: { section: 'Other' },
    });
    await live.waitUntil(
      () => live.counters.has(group.hall.id) && !live.counters.has(group.gateB.id),
    );
    const seen = allChanges(live).flatMap((change) =>
      'counter' in change ? [change.counter.id] : [],
    );
    expect(seen.filter((id) => id === group.gateB.id && !live.counters.has(id))).toHaveLength(1);
    // Taps in its scope are answered; anything else is refused.
    const errors = (opId: string) =>
      live.waitFor(
        (m: ServerMessage): m is Extract<ServerMessage, { type: 'error' | 'ack' }> =>
          (m.type === 'error' || m.type === 'ack') && m.opId === opId,
      );
    live.send({
      type: 'mutate',
      opId: 'live-tap-1',
      mutation: { kind: 'adjustCounter', counterId: group.gateA.id, direction: 'increment' },
    });
    expect((await errors('live-tap-1')).type).toBe('ack');
    live.send({
      type: 'mutate',
      opId: 'live-down-1',
      mutation: { kind: 'adjustCounter', counterId: group.gateA.id, direction: 'decrement' },
    });
    expect(await errors('live-down-1')).toMatchObject({ error: { code: 'tap_only' } });
    live.send({
      type: 'mutate',
      opId: 'live-out-1',
      mutation: { kind: 'adjustCounter', counterId: group.gateB.id, direction: 'increment' },
    });
    expect(await errors('live-out-1')).toMatchObject({ error: { code: 'counter_not_found' } });
    live.send({
      type: 'mutate',
      opId: 'live-edit-1',
      mutation: { kind: 'updateCounter', counterId: group.gateA.id, patch: { name: 'Mine' } },
    });
    expect(await errors('live-edit-1')).toMatchObject({ error: { code: 'tap_only' } });
    live.close();
  });

  it('revoking a link closes its sockets, and its queued taps are refused with a sentence that says so', async () => {
    const group = await gateGroup();
    const live = await joinLive(server.wsUrl, group.group.name, group.tapKey);
    const revoked = await call(server.url, 'DELETE', `${group.base}/links/${group.link.id}`, {
      key: group.key,
    });
    expect(revoked.status).toBe(204);
    expect(await live.closed).toEqual({
      code: CLOSE_CODES.keyChanged,
      reason: LINK_MESSAGES.revoked,
    });
    const queued = await tap(group, group.tapKey, group.gateA.id, {
      headers: { ...member('Ada'), 'idempotency-key': 'made-offline-1' },
    });
    expect(queued.status).toBe(403);
    expect(queued.body).toEqual({ error: { code: 'wrong_key', message: LINK_MESSAGES.revoked } });
    expect((await group.counters()).find((c) => c.id === group.gateA.id)?.value).toBe(0);
    // A socket opened with the revoked key is refused the same way.
    const again = await import('../helpers/live.js').then(({ connectLive }) =>
      connectLive(server.wsUrl, group.group.name),
    );
    again.send({ type: 'auth', protocol: PROTOCOL_VERSION, key: group.tapKey });
    expect((await again.closed).reason).toBe(LINK_MESSAGES.revoked);
  });

  it('a key rotation keeps tap links working unless the owner revokes them all with it', async () => {
    const group = await gateGroup();
    const kept = await call(server.url, 'POST', `${group.base}/key`, {
      key: group.key,
      body: { key: newKey() },
    });
    expect(kept.status).toBe(200);
    expect((await tap(group, group.tapKey, group.gateA.id)).status).toBe(200);
    const owner = (await call<{ name: string }>(server.url, 'GET', group.base)).status;
    expect(owner).toBe(200);
    const newest = newKey();
    const other = await gateGroup();
    const rotated = await call(server.url, 'POST', `${other.base}/key`, {
      key: other.key,
      body: { key: newest, revokeTapLinks: true },
    });
    expect(rotated.status).toBe(200);
    const refused = await tap(other, other.tapKey, other.gateA.id);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ error: { code: 'wrong_key', message: LINK_MESSAGES.revoked } });
    const list = await call<TapLinkList>(server.url, 'GET', `${other.base}/links`, {
      key: newest,
    });
    expect(list.body.links).toEqual([]);
  });

  it('a wrong key is still only a wrong key', async () => {
    const group = await gateGroup();
    const answer = await tap(group, newKey(), group.gateA.id);
    expect(answer.status).toBe(403);
    expect(answer.body).toEqual({ error: { code: 'wrong_key', message: MESSAGES.wrongKey } });
  });
});

describe.skipIf(postgresUrl === undefined)('tap links across two instances on PostgreSQL', () => {
  const instances = twoInstancesOnPostgres();

  it('revoking a link on one instance closes its socket and refuses its key on the other', async () => {
    const [a, b] = [instances.a(), instances.b()];
    const group = await createGroup(a.url);
    const counter = await group.addCounter({ name: 'Gate B' });
    const made = await call<TapLinkCreated>(a.url, 'POST', `${group.base}/links`, {
      key: group.key,
      body: { label: 'Gate B', scope: { counterIds: [counter.id] }, can: ['increment'] },
    });
    const tapKey = made.body.key ?? '';
    // B checks the key once, keeping the group's access in memory (core/access-cache.ts).
    const before = await call(b.url, 'POST', `${group.base}/counters/${counter.id}/increment`, {
      key: tapKey,
    });
    expect(before.status).toBe(200);
    const onB = await joinLive(b.wsUrl, group.group.name, tapKey);
    const started = performance.now();
    const revoked = await call(a.url, 'DELETE', `${group.base}/links/${made.body.id}`, {
      key: group.key,
    });
    expect(revoked.status).toBe(204);
    expect(await onB.closed).toEqual({
      code: CLOSE_CODES.keyChanged,
      reason: LINK_MESSAGES.revoked,
    });
    console.info(
      `tap link socket on the other instance closed ${(performance.now() - started).toFixed(0)} ms after the revocation was answered`,
    );
    const after = await call(b.url, 'POST', `${group.base}/counters/${counter.id}/increment`, {
      key: tapKey,
    });
    expect(after.status).toBe(403);
    expect((await group.counters())[0]?.value).toBe(1);
  });
});
