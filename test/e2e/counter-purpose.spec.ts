/**
 * Counters with a purpose (ADR 19) on the card: a counter's goal, limits, reset period, start value
 * and section, set in the Goal and limits dialog and shown on the card (progress, capacity near and
 * at the limit, the minimum, this period and all time); taps that would pass a limit are not
 * offered, and the server refuses them anyway; the group's time zone and first day of the week.
 * Against the real server, at phone width and on desktop, in both themes.
 *
 * TALLY_SCREENSHOTS=1 also writes .tmp/screenshots/counter-*.png.
 */
import { AxeBuilder } from '@axe-core/playwright';
import type { Locator, Page } from '@playwright/test';
import type { ActivityPage } from '../../src/shared/activity.js';
import type { Counter } from '../../src/shared/api.js';
import { MESSAGES } from '../../src/shared/messages.js';
import {
  api,
  baseUrl,
  cardAction,
  counterCard,
  counterValue,
  expect,
  openGroup,
  seedGroup,
  test,
} from './support/fixtures.js';
import { useTheme } from './support/members.js';
import { screenshotPath, screenshotsWanted } from './support/screenshots.js';

const VIEWPORTS = {
  phone: { width: 390, height: 844 },
  desktop: { width: 1280, height: 900 },
} as const;

async function counterOf(name: string, key: string, id: string): Promise<Counter> {
  const counter = (await api.counters(name, key)).find((c) => c.id === id);
  if (!counter) throw new Error(`counter ${id} not found`);
  return counter;
}

/** A REST call whose refusal is the point: the status and the error body, not a throw. */
async function post(
  path: string,
  key: string,
  body: unknown,
): Promise<{ status: number; json: unknown }> {
  const response = await fetch(baseUrl() + path, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, json: await response.json() };
}

async function expectAxeClean(page: Page, where: string): Promise<void> {
  const results = await new AxeBuilder({ page }).analyze();
  const serious = results.violations.filter(
    (violation) => violation.impact === 'serious' || violation.impact === 'critical',
  );
  expect(
    serious.map((v) => `${where}: ${v.id} ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
  ).toEqual([]);
}

async function openSettings(card: Locator): Promise<Locator> {
  await cardAction(card, 'Goal and limits');
  const dialog = card.page().getByRole('dialog', { name: 'Goal and limits' });
  await expect(dialog).toBeVisible();
  return dialog;
}

test.describe('counter settings', () => {
  for (const [size, viewport] of Object.entries(VIEWPORTS)) {
    test(`a member sets goal, limits, period, start value and section in one save and the card shows them (${size})`, async ({
      page,
    }) => {
      const { name, key, counters } = await seedGroup([{ name: 'Visitors', value: 12 }]);
      const id = counters[0]?.id ?? '';
      await page.setViewportSize(viewport);
      await openGroup(page, name, key);
      const card = counterCard(page, 'Visitors');
      // Nothing set: the plain card, no bar, no capacity, no period.
      await expect(card.getByRole('progressbar')).toHaveCount(0);
      await expect(card.getByText(/left$|Resets|Full/)).toHaveCount(0);

      const dialog = await openSettings(card);
      await dialog.getByLabel('Goal').fill('20');
      await dialog.getByLabel('Minimum').fill('0');
      await dialog.getByLabel('Maximum').fill('30');
      await dialog.getByLabel('Reset').selectOption({ label: 'Daily' });
      await dialog.getByLabel('Section').fill('Entrances');
      await dialog.getByRole('button', { name: 'Save' }).click();
      await expect(dialog).toBeHidden();

      const goal = card.getByRole('progressbar', { name: 'Goal' });
      await expect(goal).toHaveAttribute('aria-valuenow', '60');
      await expect(goal).toHaveAttribute('aria-valuetext', '12 of 20, 60 %');
      await expect(card.getByText('12 / 20')).toBeVisible();
      await expect(card.getByText('18 left')).toBeVisible();
      await expect(card.getByRole('progressbar', { name: 'Capacity' })).toBeVisible();
      await expect(card.getByText('Resets daily')).toBeVisible();
      await expect(card.getByRole('definition').first()).toHaveText('12');

      // The server holds all of it, from one change (one activity entry).
      await expect
        .poll(async () => {
          const c = await counterOf(name, key, id);
          return [c.goal, c.min, c.max, c.reset, c.startValue, c.section];
        })
        .toEqual([20, 0, 30, 'daily', 0, 'Entrances']);
      const log = (await (
        await fetch(`${baseUrl()}/api/groups/${name}/activity?limit=50`, {
          headers: { authorization: `Bearer ${key}` },
        })
      ).json()) as ActivityPage;
      const updates = log.entries.filter((entry) => entry.kind === 'counter.updated');
      expect(updates).toHaveLength(1);

      // Reaching the goal: the badge says so in words, with an icon.
      await card.getByRole('button', { name: 'Counter value: 12' }).click();
      await card.getByRole('textbox', { name: 'Counter value' }).fill('20');
      await page.keyboard.press('Enter');
      await expect(card.getByText('Goal reached')).toBeVisible();
      await expect(goal).toHaveAttribute('aria-valuenow', '100');

      // Opened again, the dialog shows what is stored; clearing a field sets it to none.
      const again = await openSettings(card);
      await expect(again.getByLabel('Goal')).toHaveValue('20');
      await expect(again.getByLabel('Section')).toHaveValue('Entrances');
      await again.getByLabel('Goal').fill('');
      await again.getByRole('button', { name: 'Save' }).click();
      await expect(card.getByRole('progressbar', { name: 'Goal' })).toHaveCount(0);
      await expect.poll(async () => (await counterOf(name, key, id)).goal).toBeNull();
    });
  }

  test('settings made in one browser show on the other’s card live, and sections are suggested', async ({
    browser,
  }) => {
    const { name, key } = await seedGroup([
      { name: 'North door', value: 45, section: 'Entrances' },
      { name: 'South door', value: 10 },
    ]);
    const ada = await (await browser.newContext()).newPage();
    const bob = await (await browser.newContext()).newPage();
    await openGroup(ada, name, key);
    await openGroup(bob, name, key);

    const dialog = await openSettings(counterCard(ada, 'South door'));
    // The group's section names are offered (a <datalist> on the Section field).
    await expect(dialog.locator('datalist option[value="Entrances"]')).toHaveCount(1);
    await dialog.getByLabel('Maximum').fill('11');
    await dialog.getByLabel('Goal').fill('11');
    await dialog.getByRole('button', { name: 'Save' }).click();

    const south = counterCard(bob, 'South door');
    await expect(south.getByText('Nearly full · 1 left')).toBeVisible();
    await expect(south.getByRole('progressbar', { name: 'Goal' })).toHaveAttribute(
      'aria-valuetext',
      '10 of 11, 90 %',
    );
    await counterCard(ada, 'South door').getByRole('button', { name: 'Increment by 1' }).click();
    await expect(south.getByText('Full', { exact: true })).toBeVisible();
    await expect(south.getByText('Goal reached')).toBeVisible();
    await expect(south.getByRole('button', { name: 'Increment by 1' })).toHaveAttribute(
      'aria-disabled',
      'true',
    );
    await ada.context().close();
    await bob.context().close();
  });

  test('the dialog refuses a minimum above the maximum, says why, and saves nothing', async ({
    page,
  }) => {
    const { name, key, counters } = await seedGroup([{ name: 'Seats', value: 3 }]);
    await openGroup(page, name, key);
    const card = counterCard(page, 'Seats');
    const dialog = await openSettings(card);
    await dialog.getByLabel('Minimum').fill('10');
    await dialog.getByLabel('Maximum').fill('5');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect(dialog.getByRole('alert')).toHaveText(MESSAGES.minAboveMax);
    await expect(dialog.getByLabel('Minimum')).toBeFocused();
    await expect(dialog.getByLabel('Minimum')).toHaveAttribute('aria-invalid', 'true');
    await dialog.getByLabel('Maximum').fill('2.5');
    await dialog.getByLabel('Minimum').fill('');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect(dialog.getByRole('alert')).toHaveText(MESSAGES.notAnInteger);
    // Escape closes it (the native dialog's focus trap and Escape), nothing saved.
    await page.keyboard.press('Escape');
    await expect(dialog).toBeHidden();
    await expect(card.getByRole('button', { name: 'Counter actions' })).toBeFocused();
    const stored = await counterOf(name, key, counters[0]?.id ?? '');
    expect([stored.min, stored.max]).toEqual([null, null]);
  });

  test('a view-only member sees the goal and capacity but no settings buttons', async ({
    browser,
  }) => {
    const { name, key } = await seedGroup([{ name: 'Hall', value: 9, goal: 10, max: 10 }]);
    const response = await fetch(`${baseUrl()}/api/groups/${name}/view-key`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
    });
    const { viewKey } = (await response.json()) as { viewKey: string };
    const viewer = await (await browser.newContext()).newPage();
    await openGroup(viewer, name, viewKey);
    const card = counterCard(viewer, 'Hall');
    await expect(card.getByText('9 / 10').first()).toBeVisible();
    await expect(card.getByText('Nearly full · 1 left')).toBeVisible();
    await expect(card.getByRole('button', { name: 'Counter actions' })).toHaveCount(0);
    await expect(viewer.getByRole('button', { name: 'Group settings' })).toHaveCount(0);
    await viewer.context().close();
  });
});

test.describe('capacity', () => {
  for (const theme of ['light', 'dark'] as const) {
    for (const [size, viewport] of Object.entries(VIEWPORTS)) {
      test(`the card reads as room, nearly full and full in text and icon, and no tap passes the maximum (${theme}, ${size})`, async ({
        page,
      }) => {
        const { name, key, counters } = await seedGroup([
          { name: 'Room', value: 16, max: 20 },
          { name: 'Water', value: 4, goal: 10, reset: 'weekly' },
          { name: 'Floor', value: 1, min: 0 },
          { name: 'Plain', value: 3 },
        ]);
        const id = counters[0]?.id ?? '';
        await useTheme(page, theme);
        await page.setViewportSize(viewport);
        await openGroup(page, name, key);
        const card = counterCard(page, 'Room');
        const plus = card.getByRole('button', { name: 'Increment by 1' });
        await expect(card.getByText('4 left', { exact: true })).toBeVisible();
        await expect(card).toHaveAttribute('data-capacity', 'room');

        await plus.click();
        await plus.click();
        await expect(card.getByText('Nearly full · 2 left')).toBeVisible();
        await expect(card).toHaveAttribute('data-capacity', 'near');
        await expect(plus).not.toHaveAttribute('aria-disabled', 'true');

        await plus.click();
        await plus.click();
        await expect(card.getByText('Full', { exact: true })).toBeVisible();
        await expect(card).toHaveAttribute('data-capacity', 'full');
        await expect(counterValue(card)).toHaveText('20');
        // At the limit the button stays focusable but does nothing, and says why.
        await expect(plus).toHaveAttribute('aria-disabled', 'true');
        await expect(plus).toHaveAccessibleDescription(MESSAGES.limitAbove(20));
        // A tap on it anyway (force: Playwright itself will not click a disabled control).
        await plus.click({ force: true });
        await plus.focus();
        await page.keyboard.press('Enter');
        await expect(plus).toBeFocused();
        await expect(counterValue(card)).toHaveText('20');
        await expect.poll(async () => (await counterOf(name, key, id)).value).toBe(20);

        // The minimum: the decrement is held there the same way.
        const floor = counterCard(page, 'Floor');
        const minus = floor.getByRole('button', { name: 'Decrement by 1' });
        await minus.click();
        await expect(floor.getByText('At minimum')).toBeVisible();
        await expect(minus).toHaveAttribute('aria-disabled', 'true');
        await expect(minus).toHaveAccessibleDescription(MESSAGES.limitBelow(0));
        await minus.click({ force: true });
        await expect(counterValue(floor)).toHaveText('0');

        // The period's figures and the goal's bar; the plain counter shows none of it.
        const water = counterCard(page, 'Water');
        await expect(water.getByText('Resets weekly')).toBeVisible();
        await expect(water.getByText('4 / 10')).toBeVisible();
        const plain = counterCard(page, 'Plain');
        await expect(plain.getByRole('progressbar')).toHaveCount(0);
        await expect(plain).not.toHaveAttribute('data-capacity');

        await expectAxeClean(page, `group screen (${theme}, ${size})`);
        if (screenshotsWanted) {
          await page.screenshot({
            path: screenshotPath(`counter-capacity-${size}-${theme}.png`),
            fullPage: size === 'phone',
          });
        }
      });
    }
  }

  test('the server refuses an increment past the maximum with 409 limit_reached and the card never passes it', async ({
    page,
  }) => {
    const { name, key, counters } = await seedGroup([{ name: 'Door', value: 18, max: 20 }]);
    const id = counters[0]?.id ?? '';
    await openGroup(page, name, key);
    const card = counterCard(page, 'Door');
    const increment = `/api/groups/${name}/counters/${id}/increment`;

    // Five taps at once would pass 20: refused whole, not cut to the limit.
    const five = await post(increment, key, { times: 5 });
    expect(five.status).toBe(409);
    expect(five.json).toEqual({
      error: { code: 'limit_reached', message: MESSAGES.limitAbove(20) },
    });
    expect((await counterOf(name, key, id)).value).toBe(18);

    const two = await post(increment, key, { times: 2 });
    expect(two.status).toBe(200);
    // Another member's change reaches the card live: full, the increment blocked.
    await expect(counterValue(card)).toHaveText('20');
    await expect(card.getByText('Full', { exact: true })).toBeVisible();
    await expect(card.getByRole('button', { name: 'Increment by 1' })).toHaveAttribute(
      'aria-disabled',
      'true',
    );
    const past = await post(increment, key, {});
    expect(past.status).toBe(409);
    expect((past.json as { error: { code: string } }).error.code).toBe('limit_reached');

    // A value typed past the maximum is kept at it.
    await counterValue(card).click();
    await card.getByRole('textbox', { name: 'Counter value' }).fill('99');
    await page.keyboard.press('Enter');
    await expect(counterValue(card)).toHaveText('20');
    expect((await counterOf(name, key, id)).value).toBe(20);
  });
});

test.describe('group settings', () => {
  test('a member sets the group’s time zone and first day of the week', async ({ page }) => {
    const { name, key } = await seedGroup([{ name: 'Daily', reset: 'daily' }]);
    await openGroup(page, name, key);
    await page.getByRole('button', { name: 'Group settings' }).click();
    const dialog = page.getByRole('dialog', { name: 'Group settings' });
    await expect(dialog.getByLabel('Time zone')).toHaveValue('UTC');
    await expect(dialog.getByLabel('First day of the week')).toHaveValue('1');
    await expectAxeClean(page, 'group settings dialog');
    await dialog.getByLabel('Time zone').selectOption('Asia/Tokyo');
    await dialog.getByLabel('First day of the week').selectOption({ label: 'Sunday' });
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect(dialog).toBeHidden();
    await expect
      .poll(async () => {
        const { group } = await api.join(name, key);
        return [group.timeZone, group.weekStart];
      })
      .toEqual(['Asia/Tokyo', 7]);

    await page.getByRole('button', { name: 'Group settings' }).click();
    await expect(dialog.getByLabel('Time zone')).toHaveValue('Asia/Tokyo');
    await expect(dialog.getByLabel('First day of the week')).toHaveValue('7');
    await page.keyboard.press('Escape');
    await expect(dialog).toBeHidden();
  });
});

test.describe('screenshots', () => {
  test.skip(!screenshotsWanted, 'set TALLY_SCREENSHOTS=1 to write .tmp/screenshots/counter-*.png');
  for (const theme of ['light', 'dark'] as const) {
    for (const [size, viewport] of Object.entries(VIEWPORTS)) {
      test(`counter settings dialog and cards (${theme}, ${size})`, async ({ page }) => {
        const { name, key } = await seedGroup([
          { name: 'Visitors', description: 'Main hall', value: 184, max: 200, section: 'Hall' },
          { name: 'Water', value: 6, goal: 8, reset: 'daily', min: 0 },
          { name: 'Push-ups', value: 100, goal: 100, incrementStep: 10 },
          { name: 'Tickets left', value: 0, min: 0, max: 50, decrementStep: 1 },
        ]);
        await api.updateGroup(name, key, { displayName: 'Open day' });
        await useTheme(page, theme);
        await page.setViewportSize(viewport);
        await openGroup(page, name, key);
        await expect(counterCard(page, 'Visitors').getByText(/left$/)).toBeVisible();
        await page.screenshot({
          path: screenshotPath(`counter-cards-${size}-${theme}.png`),
          fullPage: size === 'phone',
        });
        await openSettings(counterCard(page, 'Water'));
        await page.screenshot({
          path: screenshotPath(`counter-settings-${size}-${theme}.png`),
        });
        await page.keyboard.press('Escape');
        await page.getByRole('button', { name: 'Group settings' }).click();
        await expect(page.getByRole('dialog', { name: 'Group settings' })).toBeVisible();
        await page.screenshot({
          path: screenshotPath(`counter-group-settings-${size}-${theme}.png`),
        });
      });
    }
  }
});
