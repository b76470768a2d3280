/**
 * Display mode (docs/product.md#tv-display): /{group}/display?key=… shows every counter in large
 * type for a projector or TV, read only, live; the share dialog links there. Real server,
 * Chromium.
 * TALLY_SCREENSHOTS=1 also writes .tmp/screenshots/display-*.png.
 */
import type { Page } from '@playwright/test';
import { api, baseUrl, expect, openGroup, seedGroup, test } from './support/fixtures.js';
import { useTheme } from './support/members.js';
import { seriousA11yFindings } from './support/a11y.js';
import { screenshotPath, screenshotsWanted } from './support/screenshots.js';

async function openDisplay(page: Page, name: string, key: string): Promise<void> {
  await page.goto(`/${name}/display?key=${key}`);
  await expect(page.getByTestId('display-status')).toHaveText('Live', { timeout: 15_000 });
}

const twelve = Array.from({ length: 12 }, (_, i) => ({ name: `Gate ${i + 1}`, value: i * 7 }));

test.describe('display mode', () => {
  test('shows every counter, no controls to change them, and follows taps live', async ({
    page,
  }) => {
    const { name, key, counters } = await seedGroup([
      { name: 'Visitors', value: 184, max: 200, section: 'Hall' },
      { name: 'Staff', value: 12, section: 'Hall' },
      { name: 'Water', value: 6, goal: 8 },
    ]);
    await api.updateGroup(name, key, { displayName: 'Open day' });
    await openDisplay(page, name, key);

    const cells = page.getByTestId('display-counter');
    await expect(cells).toHaveCount(3);
    await expect(cells.nth(0)).toContainText('Visitors');
    await expect(cells.nth(0)).toContainText('184');
    await expect(cells.nth(0).getByTestId('display-capacity')).toHaveText(
      'Nearly full · 16 left · 184 / 200',
    );
    await expect(cells.nth(2).getByRole('progressbar', { name: 'Goal of Water' })).toHaveAttribute(
      'aria-valuenow',
      '75',
    );
    await expect(page.getByTestId('display-section')).toHaveText('Hall total 196');
    // Water comes after the section and is not in it: its own heading says so.
    await expect(page.getByTestId('display-run-heading')).toHaveText('Counters without a section');
    await expect(
      page
        .getByRole('region', { name: 'Counters without a section' })
        .getByTestId('display-counter'),
    ).toHaveText([/Water/]);
    await expect(page.getByRole('heading', { name: 'Open day' })).toBeVisible();

    // Read only: the one button on the page is the theme toggle.
    const buttons = page.getByRole('button');
    await expect(buttons).toHaveCount(1);
    await expect(buttons).toHaveAccessibleName(/Switch to (dark|light) mode/);
    await expect(page.getByRole('textbox')).toHaveCount(0);

    // Another member taps through the REST API: the display follows without a reload.
    const [visitors, staff] = counters;
    if (!visitors || !staff) throw new Error('seeded counter missing');
    const valueBox = () => cells.nth(0).getByTestId('display-value').boundingBox();
    const before = await valueBox();
    await api.increment(name, key, staff.id, 3);
    await expect(cells.nth(1).getByTestId('display-value')).toHaveText('15');
    await expect(page.getByTestId('display-section')).toHaveText('Hall total 199');

    // A pace shows once a counter moves, with a forecast toward its maximum, and nothing shifts.
    await expect(cells.nth(1).getByTestId('pace')).toHaveText(/\d\/min$/);
    await api.increment(name, key, visitors.id, 2);
    await expect(cells.nth(0).getByTestId('pace')).toContainText(
      /at this pace: reached in about \d+ min/,
    );
    expect(await valueBox()).toEqual(before);
    // Three counters fill a 1280×720 screen without scrolling.
    const [scrolled, screen] = await page.evaluate(() => [
      document.documentElement.scrollHeight,
      window.innerHeight,
    ]);
    expect(scrolled).toBeLessThanOrEqual(screen);
    await expect(cells.nth(2).getByTestId('pace')).toHaveCount(0);

    expect(await seriousA11yFindings(page)).toEqual([]);
  });

  test('is axe clean in the dark theme, with goals, capacities and a pace', async ({ page }) => {
    const { name, key, counters } = await seedGroup([
      { name: 'Visitors', value: 184, max: 200, section: 'Hall' },
      { name: 'Water', value: 6, goal: 8 },
      { name: 'Tickets left', value: 50, min: 0, max: 50 },
    ]);
    await useTheme(page, 'dark');
    await openDisplay(page, name, key);
    await expect(page.locator('html')).toHaveClass(/dark/);
    await api.increment(name, key, counters[0]?.id ?? '', 3);
    await expect(page.getByTestId('pace')).toContainText('at this pace');
    expect(await seriousA11yFindings(page)).toEqual([]);
  });

  test('is not listed under Here now on the group screen', async ({ browser }) => {
    const { name, key } = await seedGroup([{ name: 'Cups' }]);
    const display = await (await browser.newContext()).newPage();
    await openDisplay(display, name, key);
    const context = await browser.newContext();
    await context.addInitScript(() => {
      localStorage.setItem('tally:guestName', 'Alice');
    });
    const alice = await context.newPage();
    await openGroup(alice, name, key);
    // Only Alice is here: the display joined the live channel without a presence entry.
    await expect(alice.getByTestId('here-now')).toHaveAttribute('aria-label', 'Here now: Alice');
    await expect(alice.getByTestId('here-now').getByRole('listitem')).toHaveCount(1);
    await expect(display.getByTestId('display-status')).toHaveText('Live');
  });

  test('values are at least 48 px at 1280×720 with 12 counters', async ({ page }) => {
    await page.setViewportSize({ width: 1280, height: 720 });
    const { name, key } = await seedGroup(twelve);
    await openDisplay(page, name, key);
    const values = page.getByTestId('display-value');
    await expect(values).toHaveCount(12);
    const sizes = await values.evaluateAll((nodes) =>
      nodes.map((node) => parseFloat(getComputedStyle(node).fontSize)),
    );
    for (const size of sizes) expect(size).toBeGreaterThanOrEqual(48);
    const numeric = await values
      .first()
      .evaluate((node) => getComputedStyle(node).fontVariantNumeric);
    expect(numeric).toContain('tabular-nums');
  });

  test('with few counters on a TV, values take at least 10 % of the height', async ({ page }) => {
    await page.setViewportSize({ width: 1920, height: 1080 });
    const { name, key } = await seedGroup([{ name: 'In' }, { name: 'Out' }, { name: 'Total' }]);
    await openDisplay(page, name, key);
    const size = await page
      .getByTestId('display-value')
      .first()
      .evaluate((node) => parseFloat(getComputedStyle(node).fontSize));
    expect(size).toBeGreaterThanOrEqual(108);
  });

  test('a view-only key opens it, a wrong key does not', async ({ page }) => {
    const { name, key } = await seedGroup([{ name: 'Cups', value: 4 }]);
    await page.goto(`/${name}/display?key=${'0'.repeat(64)}`);
    await expect(page.getByTestId('display')).toHaveCount(0);
    await expect(page.getByRole('heading', { name: /Access Denied/i })).toBeVisible();
    const response = await fetch(`${baseUrl()}/api/groups/${name}/view-key`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
    });
    expect(response.ok).toBe(true);
    const { viewKey } = (await response.json()) as { viewKey: string };
    await openDisplay(page, name, viewKey);
    await expect(page.getByTestId('display-value')).toHaveText('4');
    await expect(page.getByRole('button')).toHaveCount(1);
    // The full key opens it too.
    await openDisplay(page, name, key);
    await expect(page.getByTestId('display-value')).toHaveText('4');
  });

  test("the share dialog's Display entry links to the display", async ({ page }) => {
    const { name, key } = await seedGroup([{ name: 'Cups', value: 2 }]);
    await openGroup(page, name, key);
    await page.getByRole('button', { name: 'Show QR code' }).click();
    const dialog = page.getByRole('dialog', { name: 'Share this group' });
    await dialog.getByRole('tab', { name: 'Display' }).click();
    const section = dialog.getByRole('region', { name: 'Display' });
    await expect(section.getByRole('img', { name: 'QR code of the display' })).toBeVisible();
    const link = section.getByRole('link', { name: 'Open display' });
    const href = await link.getAttribute('href');
    expect(href).toMatch(new RegExp(`/${name}/display\\?key=${key}$`));

    // Once the group has a view-only link, the display's link carries that key instead.
    await dialog.getByRole('tab', { name: 'View only' }).click();
    await dialog.getByRole('button', { name: 'Create view-only link' }).click();
    const viewLink = dialog.getByRole('region', { name: 'View-only link' });
    await expect(viewLink).toContainText('?key=');
    const viewUrl = await viewLink.locator('p', { hasText: '?key=' }).textContent();
    const viewKey = /key=([0-9a-fA-F]+)$/.exec(viewUrl ?? '')?.[1] ?? '';
    expect(viewKey).not.toBe(key);
    await dialog.getByRole('tab', { name: 'Display' }).click();
    await expect(link).toHaveAttribute('href', new RegExp(`/${name}/display\\?key=${viewKey}$`));
    await expect(section).toContainText('This link has the view-only key');
    await page.goto((await link.getAttribute('href')) ?? '');
    await expect(page.getByTestId('display-status')).toHaveText('Live', { timeout: 15_000 });
    await expect(page.getByTestId('display-value')).toHaveText('2');
  });
});

test.describe('display screenshots', () => {
  test.skip(!screenshotsWanted, 'set TALLY_SCREENSHOTS=1 to write .tmp/screenshots/display-*.png');
  const VIEWPORTS = {
    tv: { width: 1920, height: 1080 },
    desktop: { width: 1280, height: 720 },
    phone: { width: 390, height: 844 },
  };
  for (const theme of ['light', 'dark'] as const) {
    for (const [size, viewport] of Object.entries(VIEWPORTS)) {
      test(`display (${theme}, ${size})`, async ({ page }) => {
        const { name, key, counters } = await seedGroup([
          { name: 'Visitors', value: 184, max: 200, section: 'Hall' },
          { name: 'Staff', value: 12, section: 'Hall' },
          { name: 'Water', value: 6, goal: 8 },
          { name: 'Tickets left', value: 0, min: 0, max: 50 },
          { name: 'Push-ups', value: 100, goal: 100 },
          { name: 'Coffee', value: 37 },
        ]);
        await api.updateGroup(name, key, { displayName: 'Open day' });
        await useTheme(page, theme);
        await page.setViewportSize(viewport);
        await openDisplay(page, name, key);
        // A few arrivals at the door: its pace and forecast show.
        for (let i = 0; i < 4; i += 1) await api.increment(name, key, counters[0]?.id ?? '', 2);
        await expect(page.getByTestId('display-value').first()).toHaveText('192');
        await expect(page.getByTestId('pace')).toContainText('at this pace');
        if (size !== 'phone') {
          const overflow = await page.evaluate(
            () => document.documentElement.scrollHeight - window.innerHeight,
          );
          expect(overflow).toBeLessThanOrEqual(0);
        }
        await page.screenshot({
          path: screenshotPath(`display-${size}-${theme}.png`),
          fullPage: true,
        });
      });
    }
  }
});
