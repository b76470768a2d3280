/**
 * Nothing scrolls sideways on a 360×740 phone: every screen, and every dialog, panel and menu
 * opened from the group screen, fits the screen's width, in both themes.
 */
import type { Page } from '@playwright/test';
import { api, expect, openGroup, seedGroup, test } from './support/fixtures.js';
import { memberPage, type Theme } from './support/members.js';

const PHONE = { width: 360, height: 740 };

/** Sideways overflow of the page, and every open dialog, panel or menu wider than the screen. */
function overflow(page: Page, where: string): Promise<string[]> {
  return page.evaluate((label) => {
    const problems: string[] = [];
    const width = window.innerWidth;
    const scrolled = document.documentElement.scrollWidth;
    if (scrolled > width) problems.push(`${label}: the page is ${scrolled} px wide`);
    const boxes = document.querySelectorAll<HTMLElement>(
      'dialog[open], [role="dialog"], [role="menu"]',
    );
    for (const box of boxes) {
      const rect = box.getBoundingClientRect();
      if (rect.width === 0) continue;
      if (rect.left < -1 || rect.right > width + 1 || box.scrollWidth > box.clientWidth + 1) {
        const name = box.getAttribute('aria-label') ?? box.getAttribute('aria-labelledby') ?? '';
        problems.push(
          `${label}: ${box.tagName.toLowerCase()} ${name} spans ${Math.round(rect.left)}–${Math.round(rect.right)} px (content ${box.scrollWidth} px)`,
        );
      }
    }
    return problems;
  }, where);
}

for (const theme of ['light', 'dark'] as Theme[]) {
  test(`at 360 px nothing scrolls sideways, on any screen or dialog (${theme})`, async ({
    browser,
  }) => {
    test.setTimeout(90_000);
    const { name, key, counters } = await seedGroup([
      { name: 'Temporary workers on site', description: 'Agency staff, signed in at the gate' },
      { name: 'Visitors', max: 200, value: 184, section: 'Main hall entrances' },
      { name: 'Push-ups', goal: 100, value: 40 },
    ]);
    for (const counter of counters) await api.increment(name, key, counter.id, 3);
    const page = await memberPage(browser, 'Ada Lovelace-Byron', { theme, viewport: PHONE });
    const problems: string[] = [];
    const check = async (where: string) => {
      problems.push(...(await overflow(page, where)));
    };
    const dialog = () => page.locator('dialog[open], [role="dialog"]').last();
    const close = async () => {
      await page.keyboard.press('Escape');
      await expect(page.locator('dialog[open]')).toHaveCount(0);
    };

    await page.goto('/');
    await expect(page.getByLabel('Unique Group Name')).toBeVisible();
    await check('landing');

    await page.goto(`/${name}?key=${'0'.repeat(64)}`);
    await expect(page.getByRole('heading', { name: 'Access Denied' })).toBeVisible();
    await check('access denied');

    await page.goto(`/${name}/display?key=${key}`);
    await expect(page.getByTestId('display-status')).toHaveText('Live', { timeout: 15_000 });
    await check('display');

    await openGroup(page, name, key);
    await expect(page.getByRole('article')).toHaveCount(3);
    await check('group');

    await page.getByRole('button', { name: 'Show QR code' }).click();
    await expect(page.getByRole('img', { name: /^QR code of/ })).toBeVisible();
    for (const tab of ['Full access', 'View only', 'Display']) {
      await page.getByRole('tab', { name: tab }).click();
      await check(`share dialog, ${tab}`);
    }
    await page.getByRole('tab', { name: 'Tap links' }).click();
    await page.getByLabel('Label').fill('Main hall entrances, north door');
    await page.getByRole('radio', { name: 'Chosen counters' }).check();
    await page.getByRole('checkbox', { name: 'Temporary workers on site' }).check();
    await check('share dialog, Tap links form');
    await page.getByRole('button', { name: 'Make tap link' }).click();
    await expect(page.getByTestId('tap-link-created')).toBeVisible();
    const tapUrl =
      (await page.getByTestId('tap-link-created').locator('.share-url').textContent()) ?? '';
    await page.getByRole('button', { name: /^Revoke / }).click();
    await check('share dialog, Tap links made and revoking');
    await close();

    await page.getByRole('button', { name: 'Change profile picture' }).click();
    await expect(dialog()).toBeVisible({ timeout: 10_000 });
    await check('profile picture');
    await close();

    await page.getByRole('button', { name: 'Add thumbnail' }).first().click();
    await expect(dialog()).toBeVisible({ timeout: 10_000 });
    await check('thumbnail');
    await close();

    await page.getByRole('button', { name: 'Group settings' }).click();
    await expect(dialog()).toBeVisible({ timeout: 10_000 });
    await check('group settings');
    await close();

    const card = page.getByRole('article').first();
    await card.getByRole('button', { name: 'Counter actions' }).click();
    await expect(page.getByRole('menu')).toBeVisible();
    await check('card menu');
    await page.getByRole('menuitem', { name: 'Goal and limits' }).click();
    await expect(dialog()).toBeVisible({ timeout: 10_000 });
    await check('counter settings');
    await close();

    await card.getByRole('button', { name: 'Counter actions' }).click();
    await page.getByRole('menuitem', { name: 'Delete counter' }).click();
    await expect(dialog()).toBeVisible({ timeout: 10_000 });
    await check('delete confirm');
    await close();

    await card.getByRole('button', { name: 'Counter actions' }).click();
    await page.getByRole('menuitem', { name: 'Focus mode' }).click();
    await expect(dialog()).toBeVisible({ timeout: 10_000 });
    await check('focus mode');
    await close();
    // The closed dialog leaves once the page has taken in its close: then `?` is the page's.
    await expect(page.getByTestId('focus-mode')).toHaveCount(0);

    await page.keyboard.press('?');
    await expect(dialog()).toBeVisible({ timeout: 10_000 });
    await check('keys help');
    await close();

    await page.getByRole('button', { name: 'Activity', exact: true }).click();
    const activity = page.getByRole('dialog', { name: 'Activity' });
    await expect(activity.getByRole('list', { name: 'Activity log' })).toBeVisible();
    await check('activity');
    await activity.getByRole('tab', { name: 'By member' }).click();
    await expect(activity.getByRole('tabpanel')).toContainText('Net');
    await check('members');

    await page.goto(tapUrl);
    await expect(page.getByTestId('tap-link-line')).toBeVisible({ timeout: 15_000 });
    await check('tap link group screen');

    expect(problems).toEqual([]);
    await page.context().close();
  });
}
