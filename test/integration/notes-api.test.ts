/**
 * Notes on a change and counts for an earlier time over the real server (ADR 36), on SQLite and
 * PostgreSQL: REST and the live channel carry them, the activity log and both exports show them,
 * a member changes the note of their own entry, view-only links change nothing, and every bound
 * is refused with its message.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActivityEntry, ActivityPage, GroupExport } from '../../src/shared/activity.js';
import type { ApiError, Counter, ViewKey } from '../../src/shared/api.js';
import { call, createGroup } from '../helpers/client.js';
import { isChanges, joinLive } from '../helpers/live.js';
import { storeBackends } from '../helpers/postgres.js';
import { startServer, type TestServer } from '../helpers/server.js';

const run = promisify(execFile);
const VERIFY = path.resolve(import.meta.dirname, '../../scripts/verify-export.mjs');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tally-notes-'));

afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

describe.each(storeBackends())('notes and counts for an earlier time on %s', (_label, database) => {
  let server: TestServer;
  beforeAll(async () => {
    const config = database();
    server = await startServer(config ? { database: config } : {});
  });
  afterAll(async () => {
    await server.close();
  });

  async function groupWithCounter() {
    const group = await createGroup(server.url);
    const counter = await group.addCounter({ name: 'Coffees' });
    const tap = (body: Record<string, unknown>, options: { key?: string; member?: string } = {}) =>
      call<Counter | ApiError>(
        server.url,
        'POST',
        `${group.base}/counters/${counter.id}/increment`,
        {
          key: options.key ?? group.key,
          body,
          headers: { 'tally-member': encodeURIComponent(options.member ?? 'Ada') },
        },
      );
    const entries = async () =>
      (await call<ActivityPage>(server.url, 'GET', `${group.base}/activity`, { key: group.key }))
        .body.entries;
    const editNote = (entryId: number, note: string, member = 'Ada', key = group.key) =>
      call<ActivityEntry | ApiError>(server.url, 'PATCH', `${group.base}/activity/${entryId}`, {
        key,
        body: { note },
        headers: { 'tally-member': encodeURIComponent(member) },
      });
    // A moment after the counter was made (a count may not be for a time before it).
    const justAfterCreation = new Date(Date.parse(counter.createdAt) + 1).toISOString();
    return { group, counter, tap, entries, editNote, justAfterCreation };
  }

  it('takes a note and an earlier time with a REST tap, shows them in the log, and a plain tap has neither', async () => {
    const { tap, entries, justAfterCreation: countedAt } = await groupWithCounter();
    expect((await tap({})).status).toBe(200);
    const answer = await tap({ times: 3, note: '  table 4 <script>x</script> ', at: countedAt });
    expect(answer.status).toBe(200);
    expect((answer.body as Counter).value).toBe(4);
    const [noted, plain] = await entries();
    expect(noted).toMatchObject({ actor: 'Ada', delta: 3, note: 'table 4', countedAt });
    expect(plain).not.toHaveProperty('note');
    expect(plain).not.toHaveProperty('countedAt');
  });

  it('refuses a note over 280 characters, a time that is not ISO 8601, and a time later than now, changing nothing', async () => {
    const { tap, counter, group } = await groupWithCounter();
    expect((await tap({ note: 'é'.repeat(280) })).status).toBe(200);
    const long = await tap({ note: 'é'.repeat(281) });
    expect(long).toMatchObject({
      status: 400,
      body: {
        error: { code: 'validation_failed', message: 'note: A note is at most 280 characters.' },
      },
    });
    const malformed = await tap({ at: 'yesterday' });
    expect(malformed.status).toBe(400);
    expect((malformed.body as ApiError).error.message).toContain('ISO 8601');
    const future = await tap({ at: new Date(Date.now() + 3_600_000).toISOString() });
    expect(future).toMatchObject({
      status: 400,
      body: {
        error: {
          code: 'validation_failed',
          message: 'A count cannot be for a time later than now.',
        },
      },
    });
    const [now] = await group.counters();
    expect(now).toMatchObject({ id: counter.id, value: 1 });
  });

  it('lets a member change the note of their own entry, not another member’s, and a view-only link neither tap nor note', async () => {
    const { tap, entries, editNote, group } = await groupWithCounter();
    await tap({ note: 'table 4' });
    const [entry] = await entries();
    if (!entry) throw new Error('no entry');
    const edited = await editNote(entry.id, 'table 5');
    expect(edited).toMatchObject({ status: 200, body: { id: entry.id, note: 'table 5' } });
    expect(await editNote(entry.id, 'mine', 'Bob')).toMatchObject({
      status: 403,
      body: { error: { code: 'not_your_entry' } },
    });
    expect((await editNote(entry.id, '')).body).not.toHaveProperty('note');
    expect((await editNote(999_999_999, 'x')).status).toBe(404);

    const view = await call<ViewKey>(server.url, 'POST', `${group.base}/view-key`, {
      key: group.key,
    });
    const viewKey = view.body.viewKey ?? '';
    expect((await tap({ note: 'sneaky' }, { key: viewKey })).body).toMatchObject({
      error: { code: 'read_only' },
    });
    expect((await editNote(entry.id, 'sneaky', 'Ada', viewKey)).body).toMatchObject({
      error: { code: 'read_only' },
    });
    // Nothing was tapped, and the note stays removed.
    const taps = (await entries()).filter((item) => item.kind === 'counter.adjusted');
    expect(taps.map((item) => item.note)).toEqual([undefined]);
  });

  it('carries a note and an earlier time on the live channel, while a plain tap’s change is as it was', async () => {
    const { group, counter, entries, justAfterCreation: countedAt } = await groupWithCounter();
    const live = await joinLive(server.wsUrl, group.group.name, group.key);
    try {
      live.send({
        type: 'mutate',
        opId: 'plain-1',
        actor: 'Ada',
        mutation: { kind: 'adjustCounter', counterId: counter.id, direction: 'increment' },
      });
      live.send({
        type: 'mutate',
        opId: 'noted-1',
        actor: 'Ada',
        mutation: {
          kind: 'adjustCounter',
          counterId: counter.id,
          direction: 'decrement',
          note: 'refund',
          at: countedAt,
        },
      });
      await live.waitUntil(() => live.messages.filter((m) => m.type === 'ack').length === 2);
      const frame = await live.waitFor(isChanges);
      // The plain tap's change names the counter, its number and its operation, nothing more.
      expect(Object.keys(frame.changes[0] ?? {}).sort()).toEqual([
        'counter',
        'opIds',
        'seq',
        'type',
      ]);
      const [noted] = await entries();
      expect(noted).toMatchObject({ delta: -1, note: 'refund', countedAt });
    } finally {
      live.close();
    }
  });

  it('exports notes and times counted for in JSON and CSV, and the JSON file still verifies offline after a note was changed', async () => {
    const {
      group,
      tap,
      entries,
      editNote,
      justAfterCreation: countedAt,
    } = await groupWithCounter();
    await tap({ times: 2, note: 'first, "quoted"', at: countedAt });
    await tap({});
    const [, first] = await entries();
    await editNote(first?.id ?? 0, '=SUM(A1)');
    const json = await fetch(`${server.url}${group.base}/export?format=json`, {
      headers: { authorization: `Bearer ${group.key}` },
    });
    const text = await json.text();
    const exported = JSON.parse(text) as GroupExport;
    expect(exported.activity.find((entry) => entry.id === first?.id)).toMatchObject({
      note: '=SUM(A1)',
      countedAt,
    });
    const file = path.join(dir, `${group.group.name}.json`);
    fs.writeFileSync(file, text);
    expect((await run(process.execPath, [VERIFY, file])).stdout).toContain('OK: the activity log');

    const csv = await fetch(`${server.url}${group.base}/export?format=csv&data=activity`, {
      headers: { authorization: `Bearer ${group.key}` },
    });
    const rows = parse<Record<string, string>>((await csv.text()).replace(/^\uFEFF/, ''), {
      columns: true,
    });
    const row = rows.find((item) => item.id === String(first?.id));
    // A note a spreadsheet would run as a formula is written as text.
    expect(row).toMatchObject({ countedAt, note: "'=SUM(A1)" });
  });
});
