/**
 * Import (POST /api/groups/{name}/import, ADR 37) on each store, with a real server: a group's
 * JSON export imported into a new group reproduces its counters, their settings and its log, and
 * the new group's log and export still verify; a preview changes nothing; the same file twice
 * adds nothing the second time; an import past a quota changes nothing and names the bound; a
 * malformed file is refused with the line and column of its first problem; BetterCounter and
 * Simple Counter files (samples in test/fixtures/import, see its README for where their formats
 * come from) import; view-only keys and tap links are refused.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActivityEntry, GroupExport } from '../../src/shared/activity.js';
import type { ApiError, Counter, Tally } from '../../src/shared/api.js';
import { COUNTER_FIELDS } from '../../src/shared/fields.js';
import { IMPORT_MAX_BYTES, type ImportSummary } from '../../src/shared/import.js';
import { randomUUID } from 'node:crypto';
import type { DatabaseConfig } from '../../src/server/config.js';
import type { StagedEntry } from '../../src/server/domain/import.js';
import { STAGE_ENTRIES, stagedJson } from '../../src/server/store/postgres/import-staging.js';
import { sqliteDatabase } from '../../src/server/store/sqlite/driver.js';
import { moveSlice, stageEntries } from '../../src/server/store/sqlite/import-staging.js';
import { call, createGroup } from '../helpers/client.js';
import { tallyExportWithTaps } from '../helpers/fixtures.js';
import {
  adminQuery,
  postgresUrl,
  storeBackends,
  twoInstancesOnPostgres,
} from '../helpers/postgres.js';
import { startServer, type TestServer } from '../helpers/server.js';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');
const FIXTURES = path.join(ROOT, 'test/fixtures/import');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tally-import-'));
afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

type Group = Awaited<ReturnType<typeof createGroup>>;

describe.each(storeBackends())('import on %s', (_name, database) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({
      database: database(),
      logLevel: 'warn',
      // A small log quota, so a test can pass it with a few entries.
      limits: { countersPerGroup: 6, activityEntriesPerGroup: 100 },
      // Every import and export here is a heavy read of one address; the budget is tested below.
      security: { heavyReads: { atOnce: 10, rate: { burst: 100_000, refillMs: 1 } } },
    });
  });
  afterAll(async () => {
    await server.close();
  });

  const importFile = (
    group: Group,
    file: string,
    { dryRun = false, type = 'application/json', format = '', key = group.key } = {},
  ) =>
    call<ImportSummary | ApiError>(
      server.url,
      'POST',
      `${group.base}/import?dryRun=${String(dryRun)}${format === '' ? '' : `&format=${format}`}`,
      { key, rawBody: file, headers: { 'content-type': type } },
    );

  const exportOf = async (group: Group): Promise<GroupExport> =>
    (await call<GroupExport>(server.url, 'GET', `${group.base}/export`, { key: group.key })).body;

  const countersOf = async (group: Group): Promise<Counter[]> =>
    (await call<Counter[]>(server.url, 'GET', `${group.base}/counters`, { key: group.key })).body;

  /** A group with settings, taps by two members, an edit, a reorder, an undo and a deletion. */
  async function busyGroup(): Promise<Group> {
    const group = await createGroup(server.url);
    const coffees = await group.addCounter({ name: 'Coffees', goal: 10, max: 50, section: 'Bar' });
    const laps = await group.addCounter({ name: 'Laps', incrementStep: 2, reset: 'daily' });
    const gone = await group.addCounter({ name: 'Gone' });
    const tap = (counter: Counter, member: string, times = 1) =>
      call(server.url, 'POST', `${group.base}/counters/${counter.id}/increment`, {
        key: group.key,
        body: { times },
        headers: { 'tally-member': member },
      });
    await tap(coffees, 'Ada', 3);
    await tap(laps, 'Grace', 2);
    await tap(coffees, 'Grace');
    await call(server.url, 'PATCH', `${group.base}/counters/${laps.id}`, {
      key: group.key,
      body: { description: 'Around the park' },
    });
    await call(server.url, 'PUT', `${group.base}/order`, {
      key: group.key,
      body: { counterIds: [laps.id, coffees.id, gone.id] },
    });
    const log = await call<{ entries: ActivityEntry[] }>(
      server.url,
      'GET',
      `${group.base}/activity?limit=1&counter=${coffees.id}`,
      { key: group.key },
    );
    await call(
      server.url,
      'POST',
      `${group.base}/activity/${String(log.body.entries[0]?.id)}/undo`,
      {
        key: group.key,
      },
    );
    await call(server.url, 'DELETE', `${group.base}/counters/${gone.id}`, { key: group.key });
    return group;
  }

  /** What an entry says about its counters, by their names: comparable between two groups. */
  function said(entry: ActivityEntry, names: ReadonlyMap<string, string>) {
    const {
      id: _id,
      seq: _seq,
      undoOf,
      undoneBy,
      imported: _imported,
      hash: _hash,
      ...rest
    } = entry as ActivityEntry & { hash?: string | null };
    const name = (id: string | null) => (id === null ? null : (names.get(id) ?? id));
    const detail =
      rest.kind === 'counters.reordered'
        ? { from: rest.from.map(name), to: rest.to.map(name) }
        : rest.kind === 'counter.created' || rest.kind === 'counter.deleted'
          ? { counter: { ...rest.counter, id: name(rest.counter.id) } }
          : {};
    return {
      ...rest,
      ...detail,
      counterId: name(rest.counterId),
      undoes: undoOf !== null,
      undone: undoneBy !== null,
    };
  }

  it('reproduces a group from its JSON export: counters, settings, order and the log, still verifiable', async () => {
    const source = await busyGroup();
    const file = JSON.stringify(await exportOf(source));
    const target = await createGroup(server.url);

    const preview = await importFile(target, file, { dryRun: true });
    expect(preview.status, JSON.stringify(preview.body)).toBe(200);
    const exported = JSON.parse(file) as GroupExport;
    expect(preview.body).toMatchObject({
      format: 'tally',
      dryRun: true,
      counters: { create: 2, update: 0 },
      entries: exported.activity.length,
    });
    expect(await countersOf(target)).toEqual([]);

    const done = await importFile(target, file);
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body).toEqual({ ...preview.body, dryRun: false });

    const before = await countersOf(source);
    const after = await countersOf(target);
    expect(after.map((counter) => counter.name)).toEqual(before.map((counter) => counter.name));
    after.forEach((counter, index) => {
      const original = before[index] as Counter;
      for (const field of COUNTER_FIELDS) expect(counter[field]).toEqual(original[field]);
      expect(counter.createdAt).toBe(original.createdAt);
      expect(counter.allTime).toBe(original.allTime);
    });

    const copy = await exportOf(target);
    const sourceNames = new Map<string, string>();
    const targetNames = new Map<string, string>();
    for (const entry of exported.activity) {
      if (entry.kind === 'counter.created') sourceNames.set(entry.counter.id, entry.counter.name);
    }
    for (const entry of copy.activity) {
      if (entry.kind === 'counter.created') targetNames.set(entry.counter.id, entry.counter.name);
    }
    expect(copy.activity.map((entry) => said(entry, targetNames))).toEqual(
      exported.activity.map((entry) => said(entry, sourceNames)),
    );
    // The source's hashes are kept beside the new group's own chain.
    expect(copy.activity.map((entry) => entry.imported?.hash)).toEqual(
      exported.activity.map((entry) => entry.hash),
    );

    const verdict = await call<{ ok: boolean }>(
      server.url,
      'GET',
      `${target.base}/activity/verify`,
      {
        key: target.key,
      },
    );
    expect(verdict.body.ok).toBe(true);
    const copyFile = path.join(dir, `${target.group.name}.json`);
    fs.writeFileSync(copyFile, JSON.stringify(copy));
    const checked = await run(process.execPath, [
      path.join(ROOT, 'scripts/verify-export.mjs'),
      copyFile,
    ]);
    expect(checked.stdout).toMatch(/holds/i);
  });

  it('imports the same file a second time without changing anything', async () => {
    const source = await busyGroup();
    const file = JSON.stringify(await exportOf(source));
    const target = await createGroup(server.url);
    expect((await importFile(target, file)).status).toBe(200);
    const counters = await countersOf(target);
    const log = (await exportOf(target)).activity;

    const again = await importFile(target, file);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ counters: { create: 0, update: 0 }, entries: 0 });
    expect(await countersOf(target)).toEqual(counters);
    expect((await exportOf(target)).activity).toEqual(log);
  });

  it('adds nothing when a group imports its own export back', async () => {
    const group = await busyGroup();
    const file = JSON.stringify(await exportOf(group));
    const counters = await countersOf(group);
    const log = (await exportOf(group)).activity;

    const again = await importFile(group, file);
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body).toMatchObject({ counters: { create: 0, update: 0 }, entries: 0 });
    expect(await countersOf(group)).toEqual(counters);
    expect((await exportOf(group)).activity).toEqual(log);
  });

  it('carries an entry’s note and the earlier time it was counted for into the new group, the chain still verifying', async () => {
    const source = await createGroup(server.url);
    const counter = await source.addCounter({ name: 'Coffees' });
    const countedAt = new Date(Date.parse(counter.createdAt) + 1).toISOString();
    const tapped = await call(
      server.url,
      'POST',
      `${source.base}/counters/${counter.id}/increment`,
      { key: source.key, body: { times: 2, note: 'table 4', at: countedAt } },
    );
    expect(tapped.status).toBe(200);
    const target = await createGroup(server.url);
    const done = await importFile(target, JSON.stringify(await exportOf(source)));
    expect(done.status, JSON.stringify(done.body)).toBe(200);

    const copy = await exportOf(target);
    const adjusted = copy.activity.filter((entry) => entry.kind === 'counter.adjusted');
    expect(adjusted).toHaveLength(1);
    expect(adjusted[0]).toMatchObject({ delta: 2, note: 'table 4', countedAt });
    const verdict = await call<{ ok: boolean }>(
      server.url,
      'GET',
      `${target.base}/activity/verify`,
      { key: target.key },
    );
    expect(verdict.body.ok).toBe(true);
    const copyFile = path.join(dir, `${target.group.name}-noted.json`);
    fs.writeFileSync(copyFile, JSON.stringify(copy));
    const checked = await run(process.execPath, [
      path.join(ROOT, 'scripts/verify-export.mjs'),
      copyFile,
    ]);
    expect(checked.stdout).toMatch(/holds/i);
  });

  it('updates the counters it made when the file changed, and adds only the new entries', async () => {
    const target = await createGroup(server.url);
    const first = 'Coffees,1700000000000,1700003600000\n';
    expect((await importFile(target, first, { type: 'text/csv' })).status).toBe(200);
    const longer = 'Coffees,1700000000000,1700003600000,1700007200000\n';
    const again = await importFile(target, longer, { type: 'text/csv' });
    expect(again.body).toMatchObject({ counters: { create: 0, update: 1 }, entries: 1 });
    const [coffees] = await countersOf(target);
    expect(coffees?.value).toBe(3);
  });

  it('refuses an import that would pass the counters quota, naming it, and changes nothing', async () => {
    const target = await createGroup(server.url);
    await target.addCounter({ name: 'Already here' });
    const file = Array.from(
      { length: 6 },
      (_, index) => `Counter ${String(index)},1700000000000`,
    ).join('\n');
    const refused = await importFile(target, file, { type: 'text/csv' });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ error: { code: 'too_many_counters' } });
    expect((refused.body as ApiError).error.message).toMatch(/7 counters.*at most 6/);
    expect((await countersOf(target)).map((counter) => counter.name)).toEqual(['Already here']);
  });

  it('refuses an import that would pass the activity log quota, naming it, and changes nothing', async () => {
    const target = await createGroup(server.url);
    const times = Array.from({ length: 101 }, (_, index) => String(1_700_000_000_000 + index));
    const refused = await importFile(target, `Steps,${times.join(',')}\n`, { type: 'text/csv' });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ error: { code: 'too_many_entries' } });
    expect((refused.body as ApiError).error.message).toMatch(/101 entries.*at most 100/);
    expect(await countersOf(target)).toEqual([]);
    expect((await exportOf(target)).activity).toEqual([]);
  });

  it('refuses a malformed file with the line and column of its first problem', async () => {
    const target = await createGroup(server.url);
    const json = await importFile(target, '{\n  "exportedAt": "x",\n  "group": {,\n}');
    expect(json.status).toBe(400);
    expect(json.body).toMatchObject({ error: { code: 'import_invalid' } });
    expect((json.body as ApiError).error.message).toMatch(/^line 3, column 13: /);

    const csv = await importFile(target, 'Coffees,1700000000000\nTeas,1700000000000,soon\n', {
      type: 'text/csv',
    });
    expect(csv.status).toBe(400);
    expect((csv.body as ApiError).error.message).toMatch(/^line 2, column 20: "soon"/);

    const exported = await exportOf(await busyGroup());
    const tap = exported.activity.findIndex((entry) => entry.kind === 'counter.adjusted');
    const broken = JSON.stringify(
      {
        ...exported,
        activity: exported.activity.map((entry, index) =>
          index === tap ? { ...entry, delta: 'many' } : entry,
        ),
      },
      null,
      2,
    );
    const entry = await importFile(target, broken);
    expect(entry.status).toBe(400);
    // Pretty-printed, each entry of the log starts on a line of its own: `    {`.
    const lines = broken.split('\n');
    const logStart = lines.indexOf('  "activity": [');
    const entryLines = lines
      .map((text, index) => (index > logStart && text === '    {' ? index + 1 : -1))
      .filter((line) => line !== -1);
    expect((entry.body as ApiError).error.message).toMatch(
      new RegExp(
        `^line ${String(entryLines[tap])}, column 5: activity\\[${String(tap)}\\]\\.delta`,
      ),
    );

    const unknown = await importFile(target, 'just some words\nand more\n', { type: 'text/csv' });
    expect(unknown.status).toBe(400);
    expect((unknown.body as ApiError).error.message).toMatch(/not one Tally can import/);
    expect(await countersOf(target)).toEqual([]);
  });

  it('imports a BetterCounter export: a counter per line, a tap per time', async () => {
    const target = await createGroup(server.url);
    const file = fs.readFileSync(path.join(FIXTURES, 'bettercounter.csv'), 'utf8');
    const done = await importFile(target, file, { type: 'text/csv' });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body).toMatchObject({
      format: 'bettercounter',
      counters: { create: 3, update: 0 },
      entries: 5,
    });
    const counters = await countersOf(target);
    expect(counters.map(({ name, value }) => [name, value])).toEqual([
      ['Coffees', 3],
      ['Push-ups, sets', 2],
      ['Water', 0],
    ]);
    const log = (await exportOf(target)).activity;
    expect(log.map((entry) => entry.at)).toEqual(
      [1700000000000, 1700001000000, 1700002000000, 1700003600000, 1700007200000].map((at) =>
        new Date(at).toISOString(),
      ),
    );
    expect(log.every((entry) => entry.kind === 'counter.adjusted' && entry.delta === 1)).toBe(true);
  });

  it('imports a Simple Counter backup: values, labels as sections, no minimum where negatives are allowed', async () => {
    const target = await createGroup(server.url);
    const file = fs.readFileSync(path.join(FIXTURES, 'simplecounter.json'), 'utf8');
    const done = await importFile(target, file);
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body).toMatchObject({
      format: 'simplecounter',
      counters: { create: 2 },
      entries: 0,
    });
    const counters = await countersOf(target);
    expect(
      counters.map(({ name, value, min, section }) => ({ name, value, min, section })),
    ).toEqual([
      { name: 'Laps', value: 12, min: 0, section: 'Sport' },
      { name: 'Score', value: -3, min: null, section: null },
    ]);
  });

  it('refuses view-only keys and tap links', async () => {
    const target = await createGroup(server.url);
    const counter = await target.addCounter({ name: 'Door' });
    const view = await call<{ viewKey: string }>(server.url, 'POST', `${target.base}/view-key`, {
      key: target.key,
    });
    const link = await call<{ key: string }>(server.url, 'POST', `${target.base}/links`, {
      key: target.key,
      body: { label: 'Gate', scope: { counterIds: [counter.id] } },
    });
    const file = 'Door,1700000000000\n';
    const byView = await importFile(target, file, { type: 'text/csv', key: view.body.viewKey });
    expect(byView.status).toBe(403);
    expect(byView.body).toMatchObject({ error: { code: 'read_only' } });
    const byLink = await importFile(target, file, { type: 'text/csv', key: link.body.key });
    expect(byLink.status).toBe(403);
    expect(byLink.body).toMatchObject({ error: { code: 'tap_only' } });
  });

  it('refuses a file over 5 MB and one over 100,000 rows with a sentence naming the bound', async () => {
    const target = await createGroup(server.url);
    const big = `Big,${'1700000000000,'.repeat(Math.ceil(IMPORT_MAX_BYTES / 14))}1700000000000\n`;
    const tooBig = await importFile(target, big, { type: 'text/csv' });
    expect(tooBig.status).toBe(413);
    expect((tooBig.body as ApiError).error.message).toMatch(/over 5 MB/);
    const many = `Many,${Array.from({ length: 100_001 }, () => '1700000000000').join(',')}\n`;
    const tooMany = await importFile(target, many, { type: 'text/csv' });
    expect(tooMany.status).toBe(413);
    expect((tooMany.body as ApiError).error.message).toMatch(/at most 100,000/);
  });
});

/** Times of `count` taps a second apart, as a BetterCounter line holds them (epoch ms). */
const tapTimes = (count: number) =>
  Array.from({ length: count }, (_, index) => String(1_700_000_000_000 + index * 1_000)).join(',');

/** How many entries imports have staged and not yet published or removed, in the server's database. */
async function stagedRows(database: DatabaseConfig) {
  if (database.kind === 'postgres') {
    const schema = new URL(database.url).searchParams.get('schema') ?? 'public';
    const { rows } = await adminQuery(`SELECT count(*)::int AS n FROM ${schema}.import_staged`);
    return (rows[0] as { n: number }).n;
  }
  const Database = sqliteDatabase();
  const db = new Database(database.file, { readonly: true });
  try {
    return (db.prepare('SELECT count(*) AS n FROM import_staged').get() as { n: number }).n;
  } finally {
    db.close();
  }
}

/**
 * Writes entries as an import does before its commit (Store.stageImport), into the database of a
 * running server: what an import interrupted midway leaves.
 */
async function stageAsAnImport(
  database: DatabaseConfig,
  entries: StagedEntry[],
  { moved = false }: { moved?: boolean } = {},
) {
  const importId = randomUUID();
  if (database.kind === 'postgres') {
    const schema = new URL(database.url).searchParams.get('schema') ?? 'public';
    // Staged two hours ago: the import's instance stopped then.
    const text = STAGE_ENTRIES.replace('INTO import_staged', `INTO ${schema}.import_staged`);
    await adminQuery(text, [importId, JSON.stringify(entries.map(stagedJson))]);
    await adminQuery(
      `UPDATE ${schema}.import_staged SET staged_at = now() - interval '2 hours' WHERE import_id = $1`,
      [importId],
    );
    return;
  }
  const Database = sqliteDatabase();
  const db = new Database(database.file);
  try {
    db.pragma('busy_timeout = 5000');
    stageEntries(db, { importId, entries, now: Date.now() });
    // Moved into the log as well, not yet published: a crash during the move (SQLite only).
    const groupId = entries[0]?.draft.groupId ?? '';
    if (moved) moveSlice(db, { importId, groupId, from: 0, limit: entries.length });
  } finally {
    db.close();
  }
}

describe.each(storeBackends())('a large import on %s', (_name, database) => {
  let server: TestServer;
  // A SQLite file of the test's own, kept across the restart.
  let config: DatabaseConfig = {
    kind: 'sqlite',
    file: path.join(fs.mkdtempSync(path.join(dir, 'large-')), 'tally.sqlite'),
  };
  const start = () =>
    startServer({
      database: config,
      logLevel: 'warn',
      limits: { countersPerGroup: 6, activityEntriesPerGroup: 50_000 },
      // The test checks the importing group's log over and over while it imports.
      security: { heavyReads: { atOnce: 10, rate: { burst: 100_000, refillMs: 1 } } },
    });
  beforeAll(async () => {
    config = database() ?? config;
    server = await start();
  });
  afterAll(async () => {
    await server.close();
  });

  const importCsv = (group: Group, file: string) =>
    call<ImportSummary | ApiError>(server.url, 'POST', `${group.base}/import`, {
      key: group.key,
      rawBody: file,
      headers: { 'content-type': 'text/csv' },
    });
  const tap = (group: Group, counter: Counter) =>
    call<Counter | ApiError>(server.url, 'POST', `${group.base}/counters/${counter.id}/increment`, {
      key: group.key,
      body: {},
    });
  const countersOf = async (group: Group) =>
    (await call<Counter[]>(server.url, 'GET', `${group.base}/counters`, { key: group.key })).body;
  const logOf = async (group: Group) =>
    (await call<GroupExport>(server.url, 'GET', `${group.base}/export`, { key: group.key })).body
      .activity;
  const verified = async (group: Group) =>
    (
      await call<{ ok: boolean }>(server.url, 'GET', `${group.base}/activity/verify`, {
        key: group.key,
      })
    ).body.ok;

  it('answers another group’s taps, one after another, while it imports 20,000 entries; its own group’s changes wait and follow, and its log verifies throughout', async () => {
    const target = await createGroup(server.url);
    const door = await target.addCounter({ name: 'Door' });
    const other = await createGroup(server.url);
    const gate = await other.addCounter({ name: 'Gate' });

    const progress = { imported: false };
    const importing = importCsv(target, `Steps,${tapTimes(20_000)}\n`).then((answer) => {
      progress.imported = true;
      return answer;
    });
    const ownTap = tap(target, door);
    let answeredWhileImporting = 0;
    // The importing group's log never shows part of the import: none of its taps or all of
    // them, and its chain holds throughout (read over and over, beside the other group's taps).
    const checksWhileImporting: boolean[] = [];
    const checking = (async () => {
      while (!progress.imported) {
        const tallies = await call<Tally[]>(server.url, 'GET', `${target.base}/tallies`, {
          key: target.key,
        });
        const imported = tallies.body.find((row) => row.member === 'BetterCounter');
        checksWhileImporting.push(
          (imported === undefined || imported.increments === 20_000) && (await verified(target)),
        );
      }
    })();
    for (;;) {
      const answer = await tap(other, gate);
      expect(answer.status).toBe(200);
      if (progress.imported) break;
      answeredWhileImporting += 1;
    }
    await checking;
    expect(checksWhileImporting.every(Boolean)).toBe(true);
    const done = await importing;
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body).toMatchObject({ counters: { create: 1 }, entries: 20_000 });
    expect(answeredWhileImporting).toBeGreaterThan(1);
    expect((await ownTap).status).toBe(200);

    const log = await logOf(target);
    expect(log.filter((entry) => entry.imported !== undefined)).toHaveLength(20_000);
    expect(log.filter((entry) => entry.counterName === 'Door')).toHaveLength(2);
    expect(await verified(target)).toBe(true);
    expect(await verified(other)).toBe(true);
    expect(await stagedRows(config)).toBe(0);
  });

  it('changes nothing, and leaves no staged entry, when its commit is refused after its 10,000 entries were staged', async () => {
    const target = await createGroup(server.url);
    await target.addCounter({ name: 'Door', section: 'Bar' });
    const limited = await call(server.url, 'PUT', `${target.base}/sections/Bar`, {
      key: target.key,
      body: { max: 5 },
    });
    expect(limited.status).toBe(200);
    const counters = await countersOf(target);
    const log = await logOf(target);
    // A counter of 10,000 in a section of at most 5: only the commit decides that, after the
    // entries were staged.
    const refused = await call<ApiError>(server.url, 'POST', `${target.base}/import`, {
      key: target.key,
      rawBody: tallyExportWithTaps(10_000, { section: 'Bar' }),
      headers: { 'content-type': 'application/json' },
    });
    expect(refused.status, JSON.stringify(refused.body)).toBe(409);
    expect(refused.body.error.message).toMatch(/^Counter "Coffees": /);
    expect(await countersOf(target)).toEqual(counters);
    expect(await logOf(target)).toEqual(log);
    expect(await verified(target)).toBe(true);
    expect(await stagedRows(config)).toBe(0);
  });

  it('keeps staged entries out of the log, its export and its check, and removes them, and any an interrupted move left in the log, at the next start', async () => {
    const group = await createGroup(server.url);
    const counter = await group.addCounter({ name: 'Door' });
    expect((await tap(group, counter)).status).toBe(200);
    const before = await logOf(group);
    const ghost = (position: number): StagedEntry => ({
      position,
      hash: 'f'.repeat(64),
      undoOf: null,
      undoneBy: null,
      draft: {
        groupId: group.group.id,
        seq: 99,
        actor: 'Ghost',
        link: null,
        kind: 'counter.adjusted',
        counterId: counter.id,
        counterName: 'Door',
        value: 100,
        delta: 1,
        increments: 1,
        decrements: 0,
        detail: null,
        opIds: [],
        at: Date.now(),
        imported: { fingerprint: `ghost-${String(position)}`, hash: null },
      },
    });
    await stageAsAnImport(config, [ghost(0), ghost(1), ghost(2)]);
    expect(await stagedRows(config)).toBe(3);

    const page = await call<{ entries: ActivityEntry[] }>(
      server.url,
      'GET',
      `${group.base}/activity`,
      { key: group.key },
    );
    expect(page.body.entries.map((entry) => entry.actor)).not.toContain('Ghost');
    expect(await logOf(group)).toEqual(before);
    expect(await verified(group)).toBe(true);
    if (config.kind === 'sqlite') {
      // SQLite moves an import's entries into the log before its commit: a crash during the
      // move leaves some there, unpublished.
      await stageAsAnImport(config, [ghost(0), ghost(1)], { moved: true });
    }

    await server.close({ keepDatabase: true });
    server = await start();
    expect(await stagedRows(config)).toBe(0);
    expect(await logOf(group)).toEqual(before);
    expect(await verified(group)).toBe(true);
  });
});

describe('the import budget', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({
      logLevel: 'warn',
      security: { heavyReads: { atOnce: 3, rate: { burst: 2, refillMs: 60_000 } } },
    });
  });
  afterAll(async () => {
    await server.close();
  });

  it('counts imports as heavy work of the address: past its budget, 429 too_many_reads', async () => {
    const group = await createGroup(server.url);
    const send = () =>
      call(server.url, 'POST', `${group.base}/import?dryRun=true`, {
        key: group.key,
        rawBody: 'Coffees,1700000000000\n',
        headers: { 'content-type': 'text/csv' },
      });
    expect((await send()).status).toBe(200);
    expect((await send()).status).toBe(200);
    const third = await send();
    expect(third.status).toBe(429);
    expect(third.body).toMatchObject({ error: { code: 'too_many_reads' } });
  });
});

/**
 * A client that sends its import again to another instance (its first answer timed out, or a
 * load balancer moved it): the import is all or nothing and the same file twice changes
 * nothing, whichever instance each copy reaches and whether or not the first is still under way.
 */
describe.skipIf(postgresUrl === undefined)('an import sent again to another instance', () => {
  const { a, b } = twoInstancesOnPostgres({
    logLevel: 'warn',
    // Every import, export and check here is a heavy read of one address.
    security: { heavyReads: { atOnce: 10, rate: { burst: 100_000, refillMs: 1 } } },
  });

  const send = (server: TestServer, group: Group, file: string, { dryRun = false } = {}) =>
    call<ImportSummary | ApiError>(
      server.url,
      'POST',
      `${group.base}/import?dryRun=${String(dryRun)}`,
      {
        key: group.key,
        rawBody: file,
        headers: { 'content-type': file.startsWith('{') ? 'application/json' : 'text/csv' },
      },
    );
  const exportOn = async (server: TestServer, group: Group) =>
    (await call<GroupExport>(server.url, 'GET', `${group.base}/export`, { key: group.key })).body;
  const countersOn = async (server: TestServer, group: Group) =>
    (await call<Counter[]>(server.url, 'GET', `${group.base}/counters`, { key: group.key })).body;
  const verifiedOn = async (server: TestServer, group: Group) =>
    (
      await call<{ ok: boolean }>(server.url, 'GET', `${group.base}/activity/verify`, {
        key: group.key,
      })
    ).body.ok;
  const nothing = { counters: { create: 0, update: 0 }, entries: 0 };

  it('previews and imports on instance A, then the same preview and import on instance B say and add nothing', async () => {
    const source = await createGroup(a().url);
    const coffees = await source.addCounter({ name: 'Coffees', goal: 10 });
    await source.addCounter({ name: 'Teas' });
    for (const times of [1, 2, 3]) {
      await call(a().url, 'POST', `${source.base}/counters/${coffees.id}/increment`, {
        key: source.key,
        body: { times, note: `round ${String(times)}` },
      });
    }
    const file = JSON.stringify(await exportOn(a(), source));
    const logLength = (JSON.parse(file) as GroupExport).activity.length;
    const target = await createGroup(a().url);

    // As the web app does: the preview, then the import.
    const preview = await send(a(), target, file, { dryRun: true });
    expect(preview.body).toMatchObject({ dryRun: true, counters: { create: 2, update: 0 } });
    const first = await send(a(), target, file);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body).toMatchObject({ counters: { create: 2, update: 0 }, entries: logLength });
    const counters = await countersOn(a(), target);
    const log = (await exportOn(a(), target)).activity;

    const previewAgain = await send(b(), target, file, { dryRun: true });
    expect(previewAgain.status).toBe(200);
    expect(previewAgain.body).toMatchObject({ ...nothing, dryRun: true });
    const again = await send(b(), target, file);
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body).toMatchObject({ ...nothing, dryRun: false });

    for (const server of [a(), b()]) {
      expect(await countersOn(server, target)).toEqual(counters);
      expect((await exportOn(server, target)).activity).toEqual(log);
      expect(await verifiedOn(server, target)).toBe(true);
    }
  });

  it('imports a file once when it reaches both instances at once: one answer adds it, the other says it added nothing', async () => {
    const target = await createGroup(a().url);
    // Enough entries that both imports are under way together (each stages several slices).
    const file = `Steps,${tapTimes(3_000)}\nLaps,${tapTimes(500)}\n`;

    const answers = await Promise.all([send(a(), target, file), send(b(), target, file)]);
    for (const answer of answers) expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const summaries = answers.map((answer) => answer.body as ImportSummary);
    // One of them added the file; the other found it all there (in either order).
    expect(
      summaries
        .map(({ counters, entries }) => ({ counters, entries }))
        .sort((x, y) => x.entries - y.entries),
    ).toEqual([nothing, { counters: { create: 2, update: 0 }, entries: 3_500 }]);

    const counters = await countersOn(b(), target);
    expect(counters.map(({ name, value }) => [name, value])).toEqual([
      ['Steps', 3_000],
      ['Laps', 500],
    ]);
    const log = (await exportOn(a(), target)).activity;
    expect(log).toHaveLength(3_500);
    expect(new Set(log.map((entry) => entry.imported?.fingerprint)).size).toBe(3_500);
    expect(await verifiedOn(a(), target)).toBe(true);
    expect(await verifiedOn(b(), target)).toBe(true);
  });

  it('creates a file’s counters once when a file without entries reaches both instances at once', async () => {
    const target = await createGroup(a().url);
    const file = fs.readFileSync(path.join(FIXTURES, 'simplecounter.json'), 'utf8');

    const answers = await Promise.all([send(a(), target, file), send(b(), target, file)]);
    for (const answer of answers) expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const created = answers.map((answer) => (answer.body as ImportSummary).counters.create);
    expect(created.sort()).toEqual([0, 2]);
    const counters = await countersOn(a(), target);
    expect(counters.map(({ name, value }) => [name, value])).toEqual([
      ['Laps', 12],
      ['Score', -3],
    ]);
    expect(await countersOn(b(), target)).toEqual(counters);
  });
});
