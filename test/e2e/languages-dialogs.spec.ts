/**
 * Every dialog and panel of the group screen in Arabic (right to left), Japanese and German, on a
 * phone, a desktop and a TV, light and dark (docs/product.md#languages): nothing wider than the
 * screen, no text cut off, axe clean on the phone and the desktop. Controls are found by their
 * structure or by the catalog's words, as a member of that language reads them.
 * TALLY_SCREENSHOTS=1 also writes .tmp/screenshots/lang-<what>-<locale>-<size>-<theme>.png.
 */
import type { Locator, Page } from '@playwright/test';
import {
  api,
  counterCard,
  expect,
  seedGroup,
  seedTapLinkAndAlert,
  test,
} from './support/fixtures.js';
import { seriousA11yFindings } from './support/a11y.js';
import { clippedIn, sideways, translated, wrappedLabels } from './support/layout.js';
import { useTheme } from './support/members.js';
import { screenshotPath, screenshotsWanted } from './support/screenshots.js';

const SIZES = {
  phone: { width: 360, height: 780 },
  desktop: { width: 1280, height: 800 },
  tv: { width: 1920, height: 1080 },
} as const;

const LOCALES = ['ar', 'ja', 'de'] as const;
const THEMES = ['light', 'dark'] as const;

/** A group with something in every panel: a log, a member's taps, a tap link and an alert rule. */
async function seedFullGroup(): Promise<{ name: string; key: string }> {
  const { name, key, counters } = await seedGroup([
    { name: 'Visitors', value: 1840, max: 2000, section: 'Hall' },
    { name: 'Water', value: 6, goal: 8 },
  ]);
  for (const counter of counters) await api.increment(name, key, counter.id, 2);
  await seedTapLinkAndAlert(name, key);
  return { name, key };
}

/**
 * Holds what is on screen under `root` at each width: no sideways scroll, no text cut off, axe
 * clean on the phone and the desktop (the TV's layout is the desktop's, wider); with
 * TALLY_SCREENSHOTS=1, one screenshot per width.
 */
async function holdsUp(
  page: Page,
  what: string,
  root: string,
  shot: { locale: string; theme: string },
): Promise<void> {
  for (const [size, viewport] of Object.entries(SIZES)) {
    await page.setViewportSize(viewport);
    await expect(page.locator(root).first()).toBeVisible();
    const where = `${what} at ${size}`;
    expect(await sideways(page), where).toBeLessThanOrEqual(0);
    expect(await clippedIn(page, root), where).toEqual([]);
    if (size !== 'tv') expect(await seriousA11yFindings(page), where).toEqual([]);
    if (screenshotsWanted) {
      await page.screenshot({
        path: screenshotPath(`lang-${what}-${shot.locale}-${size}-${shot.theme}.png`),
      });
    }
  }
  await page.setViewportSize(SIZES.phone);
}

/** Closes the topmost dialog with Escape and waits until `count` dialogs are still open. */
async function closeTop(page: Page, count = 0): Promise<void> {
  await page.keyboard.press('Escape');
  await expect(page.locator('dialog[open]')).toHaveCount(count);
}

/** Chooses the `index`th item of a card's menu (its order: goal and limits, a note, focus, history). */
async function cardMenuItem(card: Locator, index: number): Promise<void> {
  await card.locator('button[aria-haspopup="menu"]').click();
  await card.getByRole('menuitem').nth(index).click();
}

test.describe('every dialog and panel in Arabic, Japanese and German', () => {
  // Fourteen views at three widths, with two axe runs each, on a shared two-core machine.
  test.describe.configure({ timeout: 300_000 });
  for (const locale of LOCALES) {
    for (const theme of THEMES) {
      test(`${locale}, ${theme}: each dialog fits the phone, the desktop and the TV, cuts no text and is axe clean`, async ({
        page,
      }) => {
        const shot = { locale, theme };
        const { name, key } = await seedFullGroup();
        await useTheme(page, theme);
        await page.addInitScript((value) => {
          localStorage.setItem('tally:lang', value);
        }, locale);
        await page.setViewportSize(SIZES.phone);
        await page.goto(`/${name}?key=${key}`);
        await expect(page.locator('html')).toHaveAttribute('lang', locale);
        const water = counterCard(page, 'Water');
        await expect(water).toBeVisible({ timeout: 15_000 });

        // The header's buttons keep each label on one line at every width.
        for (const [size, viewport] of Object.entries(SIZES)) {
          await page.setViewportSize(viewport);
          expect(await wrappedLabels(page, '.group-actions'), size).toEqual([]);
        }
        await page.setViewportSize(SIZES.phone);

        // The share dialog, each of its tabs; the last lists the tap link made above.
        const openers = page.locator('.group-actions button[aria-haspopup="dialog"]');
        await openers.nth(0).click();
        const tabs = page.locator('dialog[open] [role="tab"]');
        await expect(tabs).toHaveCount(4);
        for (const [index, tab] of ['own', 'view', 'display', 'tap'].entries()) {
          await tabs.nth(index).click();
          await expect(tabs.nth(index)).toHaveAttribute('aria-selected', 'true');
          if (tab === 'tap') {
            await expect(page.locator('dialog[open] .tap-link-row')).toHaveCount(1, {
              timeout: 10_000,
            });
          }
          await holdsUp(page, `share-${tab}`, 'dialog[open]', shot);
        }
        await closeTop(page);

        // Group settings, its alerts (the rule above, then the form to add one) and the import.
        await openers.nth(1).click();
        await holdsUp(page, 'settings', 'dialog[open]', shot);
        const settingsOpeners = page.locator('dialog[open] button[aria-haspopup="dialog"]');
        await settingsOpeners.nth(0).click();
        const alerts = page
          .locator('dialog[open]')
          .filter({ has: page.getByTestId('alert-limits') });
        await expect(alerts.locator('.state-badge')).toHaveCount(1, { timeout: 10_000 });
        await holdsUp(page, 'alerts', 'dialog[open]', shot);
        // Add alert, the one secondary button under the rules.
        await alerts.locator('button.btn-secondary.mt-4').click();
        await expect(alerts.locator('form')).toBeVisible();
        await holdsUp(page, 'alerts-form', 'dialog[open]', shot);
        await closeTop(page, 1);
        await settingsOpeners.nth(1).click();
        await expect(page.getByTestId('import-drop')).toBeVisible({ timeout: 10_000 });
        await holdsUp(page, 'import', 'dialog[open]', shot);
        await closeTop(page, 1);
        await closeTop(page);

        // The activity panel: its log, then the By member board.
        await page.locator('.activity-btn').click();
        const panel = page.locator('.activity-panel');
        await expect(panel.getByRole('listitem').first()).toBeVisible({ timeout: 10_000 });
        await holdsUp(page, 'activity', '.activity-panel', shot);
        await panel.getByRole('tab').nth(1).click();
        await expect(panel.getByRole('tab').nth(1)).toHaveAttribute('aria-selected', 'true');
        await expect(panel.getByRole('tabpanel').last()).toBeVisible({ timeout: 10_000 });
        await holdsUp(page, 'by-member', '.activity-panel', shot);
        await page.keyboard.press('Escape');
        await expect(panel).toHaveCount(0);

        // A card's menu: goal and limits, a count with a note, history.
        await cardMenuItem(water, 0);
        await holdsUp(page, 'goal-limits', 'dialog[open]', shot);
        await closeTop(page);
        await cardMenuItem(water, 1);
        await expect(page.locator('dialog[open]')).toBeVisible();
        await holdsUp(page, 'note', 'dialog[open]', shot);
        await closeTop(page);
        await cardMenuItem(water, 3);
        await expect(page.locator('dialog[open] svg').first()).toBeVisible({ timeout: 10_000 });
        await holdsUp(page, 'history', 'dialog[open]', shot);
        await closeTop(page);

        // The keys help (?), focus mode, reorder mode.
        await page.keyboard.press('?');
        await expect(page.getByTestId('keys-help')).toBeVisible({ timeout: 10_000 });
        await holdsUp(page, 'keys', 'dialog[open]', shot);
        await closeTop(page);
        await cardMenuItem(water, 2);
        await expect(page.getByTestId('focus-mode')).toBeVisible({ timeout: 10_000 });
        await holdsUp(page, 'focus', '[data-testid="focus-mode"]', shot);
        await closeTop(page);
        await page.getByRole('button', { name: translated(locale, 'Reorder') }).click();
        await expect(page.getByTestId('reorder-row')).toHaveCount(2, { timeout: 10_000 });
        await holdsUp(page, 'reorder', 'main', shot);
      });
    }
  }
});
