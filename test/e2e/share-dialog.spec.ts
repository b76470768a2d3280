/**
 * The share dialog shows one link and one QR code at a time, chosen with tabs, each laid out the
 * same way: the code, the address, then the buttons in one row with Copy first.
 * TALLY_SCREENSHOTS=1 also writes .tmp/screenshots/share-*.png.
 */
import type { Locator, Page } from '@playwright/test';
import { seriousA11yFindings } from './support/a11y.js';
import { baseUrl, expect, openGroup, seedGroup, test } from './support/fixtures.js';
import { memberPage, type Theme } from './support/members.js';
import { SCREENSHOT_SIZES, screenshotPath, screenshotsWanted } from './support/screenshots.js';

async function openShare(page: Page): Promise<Locator> {
  await page.getByRole('button', { name: 'Show QR code' }).click();
  const dialog = page.getByRole('dialog', { name: 'Share this group' });
  await expect(dialog.getByRole('img', { name: /^QR code of/ })).toBeVisible();
  return dialog;
}

/**
 * Where the tab's parts are, relative to its panel (the dialog is centred, so it moves as a whole
 * when a tab's text is longer): the code's box, and the first button of the link's button row.
 */
async function layoutOf(dialog: Locator) {
  const panel = dialog.getByRole('tabpanel');
  const code = panel.locator('[data-testid="share-qr"], .share-qr-placeholder').first();
  const row = panel.locator('.share-actions').first();
  const first = row.locator('a, button').first();
  const origin = await panel.boundingBox();
  const box = await code.boundingBox();
  const at = (value: number | undefined, from: number | undefined) =>
    Math.round((value ?? 0) - (from ?? 0));
  return {
    code: {
      x: at(box?.x, origin?.x),
      y: at(box?.y, origin?.y),
      width: Math.round(box?.width ?? 0),
      height: Math.round(box?.height ?? 0),
    },
    firstButton: (await first.textContent())?.trim() ?? '',
    rowX: at((await row.boundingBox())?.x, origin?.x),
  };
}

test.describe('share dialog', () => {
  test('shows one QR code at a time, with the same layout on every tab', async ({ browser }) => {
    const { name, key } = await seedGroup([{ name: 'Cups' }]);
    const page = await memberPage(browser, 'Ada', {
      theme: 'dark',
      viewport: { width: 390, height: 844 },
    });
    await openGroup(page, name, key);
    const dialog = await openShare(page);
    const tabs = dialog.getByRole('tab');
    await expect(tabs).toHaveText(['Full access', 'View only', 'Display', 'Tap links']);
    await expect(dialog.getByRole('tab', { name: 'Full access' })).toHaveAttribute(
      'aria-selected',
      'true',
    );

    const layouts = [];
    for (const tab of ['Full access', 'View only', 'Display'] as const) {
      await dialog.getByRole('tab', { name: tab }).click();
      await expect(dialog.getByRole('tab', { name: tab })).toHaveAttribute('aria-selected', 'true');
      // Never more than one code on screen.
      expect(await dialog.getByRole('img', { name: /^QR code of/ }).count()).toBeLessThanOrEqual(1);
      layouts.push({ tab, ...(await layoutOf(dialog)) });
    }
    // The view-only link does not exist yet: its place shows why, its button creates it.
    await dialog.getByRole('tab', { name: 'View only' }).click();
    await expect(dialog.getByText('No view-only link yet.')).toBeVisible();
    await dialog.getByRole('button', { name: 'Create view-only link' }).click();
    await expect(dialog.getByRole('img', { name: 'QR code of the view-only link' })).toBeVisible();
    await expect(dialog.getByRole('img', { name: /^QR code of/ })).toHaveCount(1);
    layouts.push({ tab: 'View only, created', ...(await layoutOf(dialog)) });

    // The code in one place on every tab, the buttons in one row that starts with Copy.
    const [first] = layouts;
    for (const layout of layouts) {
      expect(layout.code, layout.tab).toEqual(first?.code);
      expect(layout.rowX, layout.tab).toBe(first?.rowX);
    }
    expect(layouts.map((layout) => layout.firstButton)).toEqual([
      'Copy link',
      'Create view-only link',
      'Copy display link',
      'Copy link',
    ]);

    // The arrow keys move between the tabs.
    await dialog.getByRole('tab', { name: 'View only' }).focus();
    await page.keyboard.press('ArrowRight');
    await expect(dialog.getByRole('tab', { name: 'Display' })).toBeFocused();
    await expect(dialog.getByRole('region', { name: 'Display' })).toBeVisible();
    await page.keyboard.press('ArrowRight');
    await expect(dialog.getByRole('tab', { name: 'Tap links' })).toBeFocused();
    await page.keyboard.press('ArrowRight');
    await expect(dialog.getByRole('tab', { name: 'Full access' })).toBeFocused();

    // On a phone: nothing wider than the screen, no tab's label wraps, the dialog fits its height.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
      390,
    );
    const box = await dialog.boundingBox();
    expect((box?.x ?? -1) >= 0 && (box?.x ?? 0) + (box?.width ?? 0) <= 390).toBe(true);
    expect((box?.y ?? -1) >= 0 && (box?.y ?? 0) + (box?.height ?? 0) <= 844).toBe(true);
    for (const height of await tabs.evaluateAll((nodes) =>
      nodes.map((node) => node.getBoundingClientRect().height),
    )) {
      expect(height).toBeLessThanOrEqual(40);
    }
    expect(await seriousA11yFindings(page)).toEqual([]);
    await page.context().close();
  });

  test('a view-only page offers its own link and the display, one at a time', async ({
    browser,
  }) => {
    const { name, key } = await seedGroup([{ name: 'Cups' }]);
    const response = await fetch(`${baseUrl()}/api/groups/${name}/view-key`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
    });
    const { viewKey } = (await response.json()) as { viewKey: string };
    const page = await memberPage(browser, 'Viewer', { theme: 'light' });
    await openGroup(page, name, viewKey);
    const dialog = await openShare(page);
    await expect(dialog.getByRole('tab')).toHaveText(['View only', 'Display']);
    await expect(dialog.getByRole('img', { name: 'QR code of the view-only link' })).toBeVisible();
    await expect(dialog.getByRole('button', { name: 'Change access key' })).toHaveCount(0);
    await dialog.getByRole('tab', { name: 'Display' }).click();
    await expect(dialog.getByRole('img', { name: 'QR code of the display' })).toBeVisible();
    await expect(dialog.getByRole('img', { name: /^QR code of/ })).toHaveCount(1);
    expect(await seriousA11yFindings(page)).toEqual([]);
    await page.context().close();
  });
});

test.describe('share dialog screenshots', () => {
  test.skip(!screenshotsWanted, 'set TALLY_SCREENSHOTS=1 to write .tmp/screenshots/share-*.png');
  for (const theme of ['light', 'dark'] as Theme[]) {
    for (const [size, viewport] of Object.entries(SCREENSHOT_SIZES)) {
      test(`share dialog (${theme}, ${size})`, async ({ browser }) => {
        const { name, key } = await seedGroup([{ name: 'Cups' }, { name: 'Laps' }]);
        const page = await memberPage(browser, 'Ada', { theme, viewport });
        await openGroup(page, name, key);
        await openShare(page);
        await page.screenshot({ path: screenshotPath(`share-${size}-${theme}.png`) });
        await page.context().close();
      });
    }
  }
});
