/**
 * Notes and counts for an earlier time in the browser (docs/product.md#notes-and-earlier-times):
 * a long press on + at phone width counts with a note, shown in the activity panel and found by
 * its search; a count entered for yesterday corrects yesterday's total in the history dialog's
 * period list and its chart; the history dialog and a member's By member detail list the noted
 * changes; in focus mode a long press counts with a note and a tap still counts once. Yesterday's
 * period needs a counter that existed then: the test prepares its own server's database with the
 * store and a clock set a day back, then serves it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { hashKey } from '../../src/server/core/access.js';
import { SqliteStore } from '../../src/server/store/sqlite/store.js';
import type { ActivityPage, CounterPeriods } from '../../src/shared/activity.js';
import {
  cardAction,
  counterCard,
  counterValue,
  expect,
  newKey,
  test,
  uniqueName,
} from './support/fixtures.js';
import { seriousA11yFindings } from './support/a11y.js';
import { screenshotPath, screenshotsWanted } from './support/screenshots.js';
import { startServer, type RunningServer } from './support/server.js';

const HOUR = 3_600_000;
const SIZES = [
  { width: 360, height: 780 },
  { width: 1280, height: 800 },
  { width: 1920, height: 1080 },
] as const;

let server: RunningServer;
let dir: string;
const name = uniqueName('notes');
const key = newKey();
let counterId = '';
/** Yesterday's noon, UTC (the group's time zone): the time counted for. */
const yesterdayNoon = new Date();
yesterdayNoon.setUTCDate(yesterdayNoon.getUTCDate() - 1);
yesterdayNoon.setUTCHours(12, 0, 0, 0);

test.beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tally-notes-e2e-'));
  const databaseFile = path.join(dir, 'tally.sqlite');
  // Yesterday at 08:00 UTC the counter is made and tapped 4 times; now its day has ended.
  const clock = { now: yesterdayNoon.getTime() - 4 * HOUR };
  const store = new SqliteStore(databaseFile, { clock: () => clock.now });
  await store.migrate();
  const { group } = await store.createGroup(name, hashKey(key));
  const [created] = await store.commit([
    {
      groupId: group.id,
      mutation: { kind: 'createCounter', fields: { name: 'Visitors', reset: 'daily' } },
    },
  ]);
  if (!created?.ok || created.result.kind !== 'counter') throw new Error('no counter');
  counterId = created.result.counter.id;
  await store.commit([
    {
      groupId: group.id,
      actor: 'Ada',
      mutation: { kind: 'adjustCounter', counterId, direction: 'increment', times: 4 },
    },
  ]);
  clock.now = Date.now();
  await store.commit([
    { groupId: group.id, mutation: { kind: 'resetPeriods', counterIds: [counterId] } },
  ]);
  await store.close();
  server = await startServer({ port: 0, databaseFile });
});

test.afterAll(async () => {
  await server.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function open(page: Page, theme: 'light' | 'dark', size: { width: number; height: number }) {
  await page.addInitScript((value) => {
    localStorage.setItem('tally:theme', value);
    localStorage.setItem('tally:guestName', 'Ada');
  }, theme);
  await page.setViewportSize(size);
  await page.goto(`${server.url}/${name}?key=${key}`);
  await expect(page.getByRole('status').filter({ hasText: 'Live' })).toBeVisible({
    timeout: 15_000,
  });
}

async function get<T>(route: string): Promise<T> {
  const answer = await fetch(`${server.url}/api/groups/${name}${route}`, {
    headers: { authorization: `Bearer ${key}` },
  });
  return (await answer.json()) as T;
}

test('a long press on + at phone width counts with a note, shown and found in the activity panel', async ({
  page,
}) => {
  await open(page, 'light', { width: 360, height: 780 });
  const card = counterCard(page, 'Visitors');
  const before = Number(await counterValue(card).textContent());
  const plus = card.getByRole('button', { name: 'Increment by 1' });
  await plus.hover();
  await page.mouse.down();
  const dialog = page.getByRole('dialog', { name: 'Count with a note' });
  await expect(dialog).toBeVisible();
  await page.mouse.up();
  // The press that opened the dialog was not a tap.
  await expect(counterValue(card)).toHaveText(String(before));
  await dialog.getByLabel('Note').fill('table 4');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(counterValue(card)).toHaveText(String(before + 1));
  await expect
    .poll(async () => (await get<ActivityPage>('/activity')).entries[0]?.note)
    .toBe('table 4');

  await page.getByRole('button', { name: 'Activity', exact: true }).click();
  const panel = page.getByRole('dialog', { name: 'Activity' });
  await expect(panel.getByText('table 4')).toBeVisible();
  await panel.getByRole('searchbox', { name: 'Search the log' }).fill('TABLE');
  await expect(panel.getByRole('listitem')).toHaveCount(1);
  expect(await seriousA11yFindings(page)).toEqual([]);
});

for (const theme of ['light', 'dark'] as const) {
  for (const size of SIZES) {
    test(`a count for yesterday corrects yesterday's total in the period list and the chart (${theme}, ${size.width} px)`, async ({
      page,
    }) => {
      test.skip(
        theme === 'dark' || size.width !== 360 ? !screenshotsWanted : false,
        'one size and theme counts; the others only look (TALLY_SCREENSHOTS=1)',
      );
      await open(page, theme, size);
      const card = counterCard(page, 'Visitors');
      const yesterday = (await get<CounterPeriods>(`/counters/${counterId}/periods`)).periods[0];
      const total = yesterday?.value ?? 0;
      await card.getByRole('button', { name: 'Counter actions' }).click();
      await page.getByRole('menuitem', { name: 'Count with a note…' }).click();
      const dialog = page.getByRole('dialog', { name: 'Count with a note' });
      await dialog.getByLabel('Taps (each 1)').fill('3');
      await dialog.getByLabel('Note').fill('late list');
      await dialog.getByLabel('Count for an earlier time').check();
      const local = new Date(yesterdayNoon);
      const pad = (n: number) => String(n).padStart(2, '0');
      await dialog
        .getByLabel('Counted at')
        .fill(
          `${local.getFullYear()}-${pad(local.getMonth() + 1)}-${pad(local.getDate())}T${pad(local.getHours())}:${pad(local.getMinutes())}`,
        );
      if (screenshotsWanted) {
        await page.screenshot({
          path: screenshotPath(`notes-dialog-${theme}-${size.width}.png`),
        });
      }
      await dialog.getByRole('button', { name: 'Save' }).click();
      await expect
        .poll(
          async () =>
            (await get<CounterPeriods>(`/counters/${counterId}/periods`)).periods[0]?.value,
        )
        .toBe(total + 3);

      await card.getByRole('button', { name: 'Show history' }).click();
      const history = page.getByRole('dialog', { name: 'History of Visitors' });
      await expect(history.getByRole('img')).toBeVisible();
      const rows = history
        .getByRole('list', { name: 'Totals per day, newest first' })
        .getByRole('listitem');
      await expect(rows.nth(1)).toContainText(String(total + 3));
      // The chart's points come from the history, which places the count at yesterday noon.
      const points = await get<{ points: { t: number; v: number }[] }>(
        `/counters/${counterId}/history?points=1000`,
      );
      expect(points.points.some((point) => point.t === yesterdayNoon.getTime())).toBe(true);
      expect(await seriousA11yFindings(page)).toEqual([]);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
        size.width,
      );
      if (screenshotsWanted) {
        await page.screenshot({
          path: screenshotPath(`notes-history-${theme}-${size.width}.png`),
        });
      }
    });
  }
}

/** A change by `member` through the API, with a note and maybe a time it was counted for. */
async function countWithNote(member: string, body: { times: number; note: string; at?: string }) {
  const answer = await fetch(`${server.url}/api/groups/${name}/counters/${counterId}/increment`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      'tally-member': encodeURIComponent(member),
    },
    body: JSON.stringify(body),
  });
  expect(answer.status).toBe(200);
}

/** Nothing of the page reaches past its width (a screen that scrolls sideways). */
async function expectNoSidewaysScroll(page: Page, width: number) {
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
    width,
  );
}

for (const theme of ['light', 'dark'] as const) {
  for (const size of SIZES) {
    test(`the history dialog and Bob's By member detail list his noted changes, with the time counted for (${theme}, ${size.width} px)`, async ({
      page,
    }) => {
      test.skip(
        theme === 'dark' || size.width !== 360 ? !screenshotsWanted : false,
        'one size and theme counts; the others only look (TALLY_SCREENSHOTS=1)',
      );
      const note = `from the side door, ${theme} ${String(size.width)}`;
      const earlier = `counted on paper, ${theme} ${String(size.width)}`;
      await countWithNote('Bob', { times: 2, note });
      await countWithNote('Bob', {
        times: 1,
        note: earlier,
        at: new Date(Date.now() - 20 * 60_000).toISOString(),
      });
      await open(page, theme, size);

      await counterCard(page, 'Visitors').getByRole('button', { name: 'Show history' }).click();
      const history = page.getByRole('dialog', { name: 'History of Visitors' });
      const notes = history.getByRole('list', { name: 'Notes on Visitors, newest first' });
      await expect(notes.getByText(note)).toBeVisible();
      const backDated = notes.getByRole('listitem').filter({ hasText: earlier });
      await expect(backDated).toContainText('Bob');
      await expect(backDated).toContainText('Counted for');
      await expect(history.getByTestId('note-mark').first()).toBeAttached();
      expect(await seriousA11yFindings(page)).toEqual([]);
      await expectNoSidewaysScroll(page, size.width);
      if (screenshotsWanted) {
        await backDated.scrollIntoViewIfNeeded();
        await page.screenshot({
          path: screenshotPath(`notes-history-list-${theme}-${size.width}.png`),
        });
      }
      await history.getByRole('button', { name: 'Close' }).click();

      await page.getByRole('button', { name: 'Activity', exact: true }).click();
      const panel = page.getByRole('dialog', { name: 'Activity' });
      await panel.getByRole('tab', { name: 'By member' }).click();
      const bob = panel.getByRole('button', { name: 'Bob', exact: true });
      await expect(bob).toHaveAttribute('aria-expanded', 'false');
      await bob.click();
      await expect(bob).toHaveAttribute('aria-expanded', 'true');
      const detail = panel.getByRole('list', { name: 'Notes by Bob, newest first' });
      await expect(detail.getByText(note)).toBeVisible();
      await expect(detail.getByRole('listitem').filter({ hasText: earlier })).toContainText(
        'Counted for',
      );
      // Ada's note is hers: not in Bob's detail.
      await expect(detail.getByText('table 4')).toHaveCount(0);
      expect(await seriousA11yFindings(page)).toEqual([]);
      await expectNoSidewaysScroll(page, size.width);
      if (screenshotsWanted) {
        await page.screenshot({
          path: screenshotPath(`notes-by-member-${theme}-${size.width}.png`),
        });
      }
    });

    test(`in focus mode a long press or the note button counts with a note and a tap counts once (${theme}, ${size.width} px)`, async ({
      page,
    }) => {
      test.skip(
        theme === 'dark' || size.width !== 360 ? !screenshotsWanted : false,
        'one size and theme counts; the others only look (TALLY_SCREENSHOTS=1)',
      );
      await open(page, theme, size);
      await cardAction(counterCard(page, 'Visitors'), 'Focus mode');
      const focus = page.getByRole('dialog', { name: 'Focus mode: Visitors' });
      const value = focus.getByTestId('focus-value');
      const before = Number(await value.textContent());
      const plus = focus.getByRole('button', { name: /^Increment Visitors by 1$/ });

      await plus.click();
      await expect(value).toHaveText(String(before + 1));

      await plus.hover();
      await page.mouse.down();
      const dialog = page.getByRole('dialog', { name: 'Count with a note' });
      await expect(dialog).toBeVisible();
      await page.mouse.up();
      // The press that opened the dialog was not a tap.
      await expect(value).toHaveText(String(before + 1));
      const note = `focus ${theme} ${String(size.width)}`;
      await dialog.getByLabel('Note').fill(note);
      expect(await seriousA11yFindings(page)).toEqual([]);
      if (screenshotsWanted) {
        await page.screenshot({
          path: screenshotPath(`notes-focus-dialog-${theme}-${size.width}.png`),
        });
      }
      await dialog.getByRole('button', { name: 'Save' }).click();
      await expect(dialog).toHaveCount(0);
      await expect(focus).toBeVisible();
      await expect(value).toHaveText(String(before + 2));
      await expect
        .poll(async () => (await get<ActivityPage>('/activity?noted=true')).entries[0]?.note)
        .toBe(note);

      // The next tap is a tap again: one more, at once.
      await plus.click();
      await expect(value).toHaveText(String(before + 3));

      // The header's note button opens the same dialog, on "add"; cancelling keeps focus mode.
      await focus.getByRole('button', { name: 'Count with a note' }).click();
      await expect(dialog.getByRole('radio', { name: 'Add 1' })).toBeChecked();
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await expect(dialog).toHaveCount(0);
      await expect(focus).toBeVisible();
      await plus.click();
      await expect(value).toHaveText(String(before + 4));
      await expectNoSidewaysScroll(page, size.width);
      if (screenshotsWanted) {
        await page.screenshot({
          path: screenshotPath(`notes-focus-${theme}-${size.width}.png`),
        });
      }
    });
  }
}
