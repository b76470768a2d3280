/**
 * Exports from the activity panel (docs/product.md#export): the key travels in the Authorization
 * header, so the page downloads through fetch → Blob → <a download>, under the server's file name.
 * The files are read back and compared with what the server holds.
 */
import fs from 'node:fs';
import type { Download } from '@playwright/test';
import type { GroupExport } from '../../src/shared/activity.js';
import { api, expect, openGroup, seedGroup, test } from './support/fixtures.js';
import { memberPage, openActivity } from './support/members.js';

/** RFC 4180: quoted fields may hold commas, doubled quotes and line breaks. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i += 1) {
    const char = text[i] ?? '';
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') {
        field += '"';
        i += 1;
      } else if (char === '"') quoted = false;
      else field += char;
    } else if (char === '"') quoted = true;
    else if (char === ',') {
      row.push(field);
      field = '';
    } else if (char === '\r' && text[i + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i += 1;
    } else field += char;
  }
  if (field !== '' || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}

async function readDownload(download: Download): Promise<string> {
  const file = await download.path();
  return fs.readFileSync(file, 'utf8').replace(/^\uFEFF/, '');
}

/** Rows as objects keyed by the header row. */
function records(text: string): Record<string, string>[] {
  const [header, ...rows] = parseCsv(text);
  if (!header) return [];
  return rows.map((row) => Object.fromEntries(header.map((column, i) => [column, row[i] ?? ''])));
}

const TRICKY = 'Tricky, "quoted"\nname';

test.describe('export', () => {
  test('Counters (CSV) downloads one row per counter, names with commas, quotes and newlines intact', async ({
    browser,
  }) => {
    const { name, key } = await seedGroup([
      { name: 'Coffees', value: 3, description: 'Team coffees' },
      { name: TRICKY, value: -2, incrementStep: 5 },
    ]);
    const page = await memberPage(browser, 'Ada');
    await openGroup(page, name, key);
    const panel = await openActivity(page);

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      panel.getByRole('button', { name: 'Counters (CSV)' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe(`${name}-counters.csv`);
    await expect(panel.getByText(`Downloaded ${name}-counters.csv`)).toBeVisible();
    const rows = records(await readDownload(download));
    const stored = await api.counters(name, key);
    expect(rows).toHaveLength(stored.length);
    for (const counter of stored) {
      const row = rows.find((candidate) => candidate.id === counter.id);
      expect(row).toMatchObject({
        name: counter.name,
        description: counter.description,
        value: String(counter.value),
        incrementStep: String(counter.incrementStep),
        decrementStep: String(counter.decrementStep),
      });
    }
    expect(rows.map((row) => row.name)).toEqual(['Coffees', TRICKY]);
    await page.context().close();
  });

  test('Activity log (CSV) holds every entry with who did it', async ({ browser }) => {
    const { name, key } = await seedGroup([{ name: TRICKY }]);
    const page = await memberPage(browser, 'Ada');
    await openGroup(page, name, key);
    const plus = page.getByRole('button', { name: 'Increment by 1' });
    await plus.click();
    await expect(page.getByRole('button', { name: 'Counter value: 1' })).toBeVisible();
    const panel = await openActivity(page);
    await expect(panel.getByRole('listitem').first()).toContainText('Ada +1');

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      panel.getByRole('button', { name: 'Activity log (CSV)' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe(`${name}-activity.csv`);
    const rows = records(await readDownload(download));
    expect(rows.map((row) => row.action)).toEqual(['counter.created', 'counter.adjusted']);
    expect(rows[1]).toMatchObject({ actor: 'Ada', counterName: TRICKY, delta: '1', value: '1' });
    await page.context().close();
  });

  test('Everything (JSON) parses and holds the group, its counters and its log', async ({
    browser,
  }) => {
    const { name, key } = await seedGroup([{ name: 'Coffees', value: 7 }, { name: TRICKY }]);
    const page = await memberPage(browser, 'Ada');
    await openGroup(page, name, key);
    const panel = await openActivity(page);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      panel.getByRole('button', { name: 'Everything (JSON)' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe(`${name}-export.json`);
    const data = JSON.parse(await readDownload(download)) as GroupExport;
    expect(data.group.name).toBe(name);
    expect(data.counters).toEqual(await api.counters(name, key));
    expect(data.activity.map((entry) => entry.kind)).toEqual([
      'counter.created',
      'counter.created',
    ]);
    expect(JSON.stringify(data)).not.toContain(key);
    await page.context().close();
  });
});
