/**
 * The activity log as a hash chain (ADR 30), on each store, with a real server: the log as
 * written verifies; an amount edited, an entry deleted or two entries swapped directly in the
 * database make `GET …/activity/verify` name the first entry that does not hold; a pruned log
 * still verifies from its anchor; the JSON export verifies offline with
 * scripts/verify-export.mjs, and no longer after a one-character edit; a log of many pages is
 * checked and exported whole.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseConfig } from '../../src/server/config.js';
import { sqliteDatabase } from '../../src/server/store/sqlite/driver.js';
import { call, createGroup } from '../helpers/client.js';
import { adminQuery, storeBackends } from '../helpers/postgres.js';
import { startServer, type TestServer } from '../helpers/server.js';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tally-chain-'));
afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

type Verdict = { ok: boolean; checked: number; firstBrokenId?: number };

describe.each(storeBackends())('the activity hash chain on %s', (_name, database) => {
  let server: TestServer;
  let config: DatabaseConfig | undefined;
  beforeAll(async () => {
    config = database();
    server = await startServer({ database: config, logLevel: 'warn' });
  });
  afterAll(async () => {
    await server.close();
  });

  /** Runs SQL on the server's database behind its back, as someone with the file would. */
  async function tamper(sql: string): Promise<void> {
    if (config?.kind === 'postgres') {
      const schema = new URL(config.url).searchParams.get('schema') ?? 'public';
      await adminQuery(`SET search_path TO ${schema}; ${sql}`);
      return;
    }
    const Sqlite = sqliteDatabase();
    const db = new Sqlite(server.databaseFile);
    try {
      db.exec(sql);
    } finally {
      db.close();
    }
  }

  /** A group with `taps` taps by two members and an edit; its entries' ids, oldest first. */
  /**
   * A group whose log holds a counter's creation, `taps` taps and a rename. One at a time, the
   * taps alternate between Ada and Bo; `together` at a time (a long log written in seconds even on
   * a busy machine), each tap of a batch is by a member of its own, since a member's taps that
   * share a commit share one entry.
   */
  async function groupWithLog(taps: number, { together = 1 } = {}) {
    const group = await createGroup(server.url);
    const counter = await group.addCounter({ name: 'Votes' });
    const member = (tap: number, slot: number) =>
      together === 1 ? (tap % 2 === 0 ? 'Ada' : 'Bo') : `Member ${String(slot)}`;
    for (let first = 0; first < taps; first += together) {
      const batch = Array.from({ length: Math.min(together, taps - first) }, (_, slot) =>
        call(server.url, 'POST', `${group.base}/counters/${counter.id}/increment`, {
          key: group.key,
          headers: { 'tally-member': member(first + slot, slot) },
        }),
      );
      await Promise.all(batch);
    }
    await call(server.url, 'PATCH', `${group.base}/counters/${counter.id}`, {
      key: group.key,
      body: { name: 'Votes for Ada' },
    });
    const page = await call<{ entries: { id: number }[] }>(
      server.url,
      'GET',
      `${group.base}/activity?limit=100`,
      { key: group.key },
    );
    const ids = page.body.entries.map((entry) => entry.id).reverse();
    const verify = async () =>
      (await call<Verdict>(server.url, 'GET', `${group.base}/activity/verify`, { key: group.key }))
        .body;
    return { group, ids, verify };
  }

  it('holds for the log as written, and breaks where an amount was edited', async () => {
    const { group, ids, verify } = await groupWithLog(5);
    // The counter's creation, five taps, the rename.
    expect(ids).toHaveLength(7);
    expect(await verify()).toEqual({ ok: true, checked: 7 });
    const third = ids[2] ?? 0;
    await tamper(`UPDATE activity SET delta = 5, value_after = 6 WHERE id = ${String(third)}`);
    expect(await verify()).toEqual({ ok: false, checked: 2, firstBrokenId: third });
    expect(group.group.id).toBeTruthy();
  });

  it('breaks after an entry deleted, and at the first of two entries swapped', async () => {
    const deleted = await groupWithLog(4);
    const [, second, third] = deleted.ids;
    await tamper(`DELETE FROM activity WHERE id = ${String(second)}`);
    expect(await deleted.verify()).toMatchObject({ ok: false, firstBrokenId: third });

    const swapped = await groupWithLog(4);
    const [, a = 0, b = 0] = swapped.ids;
    // Ada's and Bo's taps trade places (each entry now says the other's member).
    await tamper(
      `UPDATE activity SET actor = CASE id WHEN ${String(a)} THEN 'Bo' ELSE 'Ada' END
       WHERE id IN (${String(a)}, ${String(b)})`,
    );
    expect(await swapped.verify()).toMatchObject({ ok: false, firstBrokenId: a });
  });

  it('still holds once its oldest entries were pruned, from the anchor they left', async () => {
    const first = await groupWithLog(3);
    await new Promise((resolve) => setTimeout(resolve, 30));
    const mark = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 30));
    const counter = (
      await call<{ id: string }[]>(server.url, 'GET', `${first.group.base}/counters`, {
        key: first.group.key,
      })
    ).body[0];
    for (let tap = 0; tap < 3; tap += 1) {
      await call(
        server.url,
        'POST',
        `${first.group.base}/counters/${counter?.id ?? ''}/increment`,
        {
          key: first.group.key,
        },
      );
    }
    const pruned = await server.app.tally.store.pruneActivity(Date.now() - mark);
    expect(pruned).toBeGreaterThanOrEqual(5);
    expect(await first.verify()).toEqual({ ok: true, checked: 3 });
  });

  it('exports a file that verifies offline, and not after a one-character edit', async () => {
    const { group } = await groupWithLog(4);
    const exported = await fetch(`${server.url}${group.base}/export?format=json`, {
      headers: { authorization: `Bearer ${group.key}` },
    });
    const text = await exported.text();
    const file = path.join(dir, `${group.group.name}.json`);
    fs.writeFileSync(file, text);
    const script = path.join(ROOT, 'scripts/verify-export.mjs');
    const good = await run(process.execPath, [script, file]);
    expect(good.stdout).toContain('OK: the activity log of');
    expect(good.stdout).toContain('(6 entries checked)');

    // One member's name, one letter changed.
    fs.writeFileSync(file, text.replace('"actor":"Bo"', '"actor":"Bp"'));
    const bad = await run(process.execPath, [script, file]).catch((error: unknown) => error);
    expect(bad).toMatchObject({ code: 1 });
    expect((bad as { stderr: string }).stderr).toMatch(/^Broken: entry \d+/);
  });

  it('checks and exports a log of several reading pages whole: every entry once, in order', async () => {
    // More entries than one page of the export's reads (250), which take turns with other work.
    const { group, verify } = await groupWithLog(560, { together: 20 });
    expect(await verify()).toEqual({ ok: true, checked: 562 });
    const exported = await fetch(`${server.url}${group.base}/export?format=json`, {
      headers: { authorization: `Bearer ${group.key}` },
    });
    const { activity } = (await exported.json()) as { activity: { id: number }[] };
    const ids = activity.map((entry) => entry.id);
    expect(ids).toHaveLength(562);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(562);
    const csv = await fetch(`${server.url}${group.base}/export?format=csv&data=activity`, {
      headers: { authorization: `Bearer ${group.key}` },
    });
    // A header line, then one line per entry.
    expect((await csv.text()).trim().split('\n')).toHaveLength(563);
  });
});
