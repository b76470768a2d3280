/**
 * A view-only link shows the counters and nothing that looks editable, and when a key asks to
 * count, it says on screen that this link cannot.
 */
import type { Page } from '@playwright/test';
import { seriousA11yFindings } from './support/a11y.js';
import {
  counterCard,
  createViewKey,
  expect,
  openGroup,
  SCREEN_SIZES,
  seedGroup,
  startInTheme,
  test,
} from './support/fixtures.js';
import { screenshotPath, screenshotsWanted } from './support/screenshots.js';

const COUNTERS = [
  { name: 'Laps', value: 12 },
  { name: 'Visitors', description: 'At the front door', value: 29, max: 30, incrementStep: 5 },
  { name: 'Push-ups', value: 40, goal: 100 },
];

async function openViewOnly(page: Page): Promise<void> {
  const { name, key } = await seedGroup(COUNTERS, 'view-look');
  await openGroup(page, name, await createViewKey(name, key));
  await expect(page.getByText('View only', { exact: true })).toBeVisible();
}

test.describe('view-only cards', () => {
  test('show no placeholder, no steps and nothing that looks editable', async ({ page }) => {
    await openViewOnly(page);
    const card = counterCard(page, 'Laps');
    await expect(card.getByText('12', { exact: true })).toBeVisible();
    await expect(page.getByText('Add a description...')).toHaveCount(0);
    await expect(page.getByText('Decrement Step')).toHaveCount(0);
    await expect(page.getByText('Increment Step')).toHaveCount(0);
    await expect(page.getByRole('button', { name: 'Counter actions' })).toHaveCount(0);
    await expect(page.getByRole('menuitem')).toHaveCount(0);
    await expect(page.getByText(/^Limit reached/)).toHaveCount(0);
    // Nothing on a card reacts like a field: no button, no text cursor, no hover background.
    for (const counter of COUNTERS) {
      await expect(counterCard(page, counter.name).getByRole('button')).toHaveCount(
        // The history chart's button is reading, not editing.
        await counterCard(page, counter.name).getByRole('button', { name: 'Show history' }).count(),
      );
    }
    const name = card.getByRole('heading', { name: 'Laps' });
    await name.hover();
    const look = await name.locator('[data-field]').evaluate((element) => {
      const style = getComputedStyle(element);
      return { cursor: style.cursor, background: style.backgroundColor };
    });
    expect(look.cursor).not.toBe('text');
    expect(look.background).toBe('rgba(0, 0, 0, 0)');
  });

  test('a number key then + says on screen that a view-only link cannot count', async ({
    page,
  }) => {
    await openViewOnly(page);
    const notice = page.getByText(/view-only link.*cannot count/);
    await expect(notice).toHaveCount(0);
    await page.keyboard.press('1');
    await page.keyboard.press('+');
    await expect(notice).toBeVisible();
    await expect(counterCard(page, 'Laps').getByText('12', { exact: true })).toBeVisible();
    await page.getByRole('button', { name: 'Close this notice' }).click();
    await expect(notice).toHaveCount(0);
    // With a counter chosen, the arrows ask to count too and get the same answer.
    await page.keyboard.press('ArrowDown');
    await expect(notice).toBeVisible();
  });

  for (const theme of ['light', 'dark'] as const) {
    test(`axe finds nothing serious in view-only mode, notice shown (${theme})`, async ({
      page,
    }) => {
      // A full axe run: up to about 13 s on a busy two-core machine.
      test.setTimeout(60_000);
      await startInTheme(page, theme);
      await openViewOnly(page);
      await page.keyboard.press('2');
      await page.keyboard.press('-');
      await expect(page.getByText(/view-only link.*cannot count/)).toBeVisible();
      expect(await seriousA11yFindings(page)).toEqual([]);
    });
  }
});

test.describe('view-only screenshots', () => {
  test.skip(!screenshotsWanted, 'only when TALLY_SCREENSHOTS=1');
  for (const [size, viewport] of Object.entries(SCREEN_SIZES)) {
    for (const theme of ['light', 'dark'] as const) {
      test(`${size}, ${theme}`, async ({ page }) => {
        await page.setViewportSize(viewport);
        await startInTheme(page, theme);
        await openViewOnly(page);
        await page.keyboard.press('1');
        await page.keyboard.press('+');
        await expect(page.getByText(/view-only link.*cannot count/)).toBeVisible();
        await page.screenshot({ path: screenshotPath(`view-only-${size}-${theme}.png`) });
      });
    }
  }
});
