/**
 * Periods in history, in the browser (docs/product.md#periods): the history dialog of a counter
 * that resets lists its totals per period (GET …/counters/{id}/periods), the running one first and
 * marked current, live. Periods cannot be ended from here (the server's clock is its own), so the
 * ended-period rows are covered by test/unit/web-periods.test.ts with fixture periods; this checks
 * the state before the first midnight and the exports.
 */
import fs from 'node:fs';
import type { Page } from '@playwright/test';
import {
  api,
  counterCard,
  counterValue,
  expect,
  openGroup,
  seedGroup,
  test,
} from './support/fixtures.js';
import { seriousA11yFindings } from './support/a11y.js';
import { screenshotPath, screenshotsWanted } from './support/screenshots.js';
import { openActivity } from './support/members.js';

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 800 };

async function openHistory(page: Page, counter: string) {
  await counterCard(page, counter).getByRole('button', { name: 'Show history' }).click();
  const dialog = page.getByRole('dialog', { name: `History of ${counter}` });
  await expect(dialog.getByRole('img')).toBeVisible();
  return dialog;
}

test.describe('periods in history', () => {
  test('a daily counter lists today as its current period, live, and no ended periods yet', async ({
    page,
  }) => {
    const { name, key, counters } = await seedGroup([
      { name: 'Coffees', reset: 'daily', startValue: 0 },
    ]);
    const id = counters[0]?.id ?? '';
    await openGroup(page, name, key);
    const card = counterCard(page, 'Coffees');
    for (let i = 0; i < 3; i += 1) {
      await card.getByRole('button', { name: 'Increment by 1' }).click();
    }
    await expect(counterValue(card)).toHaveText('3');
    await expect.poll(async () => (await api.counters(name, key))[0]?.value).toBe(3);

    const dialog = await openHistory(page, 'Coffees');
    await expect(dialog.getByRole('heading', { name: 'Per day' })).toBeVisible();
    await expect(dialog).toContainText('Resets every day at midnight (UTC). It starts again at 0.');
    await expect(dialog).toContainText('The current period began at 00:00.');
    const list = dialog.getByRole('list', { name: 'Totals per day, newest first' });
    const rows = list.getByRole('listitem');
    await expect(rows).toHaveCount(1);
    await expect(rows.first()).toHaveAttribute('aria-current', 'true');
    await expect(rows.first()).toHaveText(/^Today\s*current\s*:?\s*3$/);
    await expect(dialog).toContainText('No ended periods yet: the first one ends at midnight.');
    // All time is the value itself before any reset.
    await expect(dialog.getByText('All time')).toBeVisible();

    // Another member's tap reaches the open dialog.
    await api.increment(name, key, id, 2);
    await expect(rows.first()).toHaveText(/^Today\s*current\s*:?\s*5$/);
    await dialog.getByRole('button', { name: 'Close' }).click();
    await expect(dialog).toBeHidden();
  });

  test('a weekly counter follows the group’s time zone and first day of the week', async ({
    page,
  }) => {
    const { name, key } = await seedGroup([]);
    await api.updateGroup(name, key, { timeZone: 'Europe/Berlin', weekStart: 7 });
    await api.createCounter(name, key, { name: 'Laps', reset: 'weekly', startValue: 10 });
    await openGroup(page, name, key);
    const dialog = await openHistory(page, 'Laps');
    await expect(dialog.getByRole('heading', { name: 'Per week' })).toBeVisible();
    await expect(dialog).toContainText(
      'Resets every Sunday at midnight (Europe/Berlin). It starts again at 10.',
    );
    await expect(dialog).toContainText(/The current period began on Sun \d+ \w{3}, 00:00\./);
    await expect(
      dialog.getByRole('list', { name: 'Totals per week, newest first' }).getByRole('listitem'),
      // A new counter starts at 0; its start value is what each new week starts at.
    ).toHaveText([/^This week\s*current\s*:?\s*0$/]);
  });

  test('a counter that never resets shows no periods', async ({ page }) => {
    const { name, key } = await seedGroup([{ name: 'Coffees' }]);
    await openGroup(page, name, key);
    const dialog = await openHistory(page, 'Coffees');
    await expect(dialog.getByText('Highest')).toBeVisible();
    await expect(dialog.getByRole('heading', { name: /^Per / })).toHaveCount(0);
    await expect(dialog.getByText('All time')).toHaveCount(0);
  });

  test('Periods (CSV) downloads the ended periods of every counter that resets', async ({
    page,
  }) => {
    const { name, key } = await seedGroup([{ name: 'Coffees', reset: 'daily' }]);
    await openGroup(page, name, key);
    const panel = await openActivity(page);
    const download = page.waitForEvent('download');
    await panel.getByRole('button', { name: 'Periods (CSV)' }).click();
    const file = await download;
    expect(file.suggestedFilename()).toMatch(/\.csv$/);
    const text = fs.readFileSync(await file.path(), 'utf8');
    // No period has ended yet: the header line only.
    expect(text.trim().split(/\r?\n/)).toHaveLength(1);
    await expect(panel.getByRole('status')).toContainText('Downloaded');
  });

  for (const { theme, viewport, label } of [
    { theme: 'light', viewport: PHONE, label: 'phone-light' },
    { theme: 'dark', viewport: PHONE, label: 'phone-dark' },
    { theme: 'light', viewport: DESKTOP, label: 'desktop-light' },
    { theme: 'dark', viewport: DESKTOP, label: 'desktop-dark' },
  ] as const) {
    test(`the period list is axe-clean and fits the screen (${label})`, async ({ page }) => {
      const { name, key, counters } = await seedGroup([
        { name: 'Visitors', reset: 'daily', goal: 50 },
      ]);
      await api.increment(name, key, counters[0]?.id ?? '', 37);
      await page.addInitScript((value) => {
        localStorage.setItem('tally:theme', value);
      }, theme);
      await page.setViewportSize(viewport);
      await openGroup(page, name, key);
      const dialog = await openHistory(page, 'Visitors');
      await expect(dialog.getByRole('heading', { name: 'Per day' })).toBeVisible();
      await expect(dialog).toContainText('No ended periods yet');
      expect(await seriousA11yFindings(page)).toEqual([]);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
        viewport.width,
      );
      if (screenshotsWanted) {
        await page.screenshot({ path: screenshotPath(`periods-${label}.png`) });
      }
    });
  }
});
