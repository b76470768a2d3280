/**
 * Per-member tallies in the browser (docs/product.md#per-member-tallies), "who counted": the
 * activity panel's By member tab ranks the members by what they added and took away (GET …/tallies,
 * from the activity log), for the whole group or one counter, and follows the other members' taps
 * live. Members are separate browser contexts with their own 'Signed in as' names.
 */
import type { Locator, Page } from '@playwright/test';
import type { Tally } from '../../src/shared/api.js';
import {
  api,
  baseUrl,
  counterCard,
  counterValue,
  expect,
  openGroup,
  seedGroup,
  test,
} from './support/fixtures.js';
import { seriousA11yFindings } from './support/a11y.js';
import { screenshotPath, screenshotsWanted } from './support/screenshots.js';
import { activityEntries, memberPage, openActivity } from './support/members.js';

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 800 };

/** Opens the activity panel's By member tab and waits for its table. */
async function openByMember(page: Page): Promise<Locator> {
  const panel = await openActivity(page);
  await panel.getByRole('tab', { name: 'By member' }).click();
  await expect(panel.getByRole('tab', { name: 'By member' })).toHaveAttribute(
    'aria-selected',
    'true',
  );
  await expect(panel.getByRole('table')).toBeVisible();
  return panel;
}

/** A member's row: rank, added, taken away, net (the member's name is the row's header). */
function memberRow(panel: Locator, member: string): Locator {
  return panel
    .getByRole('table')
    .getByRole('row')
    .filter({ has: panel.page().getByRole('rowheader', { name: member }) })
    .getByRole('cell');
}

/** Taps through the API as a named member (the name the activity log records). */
async function tapAs(
  name: string,
  key: string,
  member: string,
  counterId: string,
  direction: 'increment' | 'decrement',
  times = 1,
): Promise<void> {
  const response = await fetch(
    `${baseUrl()}/api/groups/${name}/counters/${counterId}/${direction}`,
    {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        'idempotency-key': `op-${Math.random().toString(36).slice(2)}`,
        'tally-member': encodeURIComponent(member),
      },
      body: JSON.stringify({ times }),
    },
  );
  expect(response.status).toBe(200);
}

async function tallies(name: string, key: string, query = ''): Promise<Tally[]> {
  const response = await fetch(`${baseUrl()}/api/groups/${name}/tallies${query}`, {
    headers: { authorization: `Bearer ${key}` },
  });
  expect(response.status).toBe(200);
  return (await response.json()) as Tally[];
}

test.describe('By member', () => {
  test('two members’ taps rank them, live, and a counter can be chosen', async ({ browser }) => {
    const { name, key } = await seedGroup([
      { name: 'Coffees' },
      { name: 'Teas', incrementStep: 5 },
    ]);
    const ada = await memberPage(browser, 'Ada');
    const bob = await memberPage(browser, 'Bob');
    await openGroup(ada, name, key);
    await openGroup(bob, name, key);

    // Ada: +1 +1 +1 −1 on Coffees. Bob: two taps of 5 on Teas.
    const adaCoffees = counterCard(ada, 'Coffees');
    for (let i = 0; i < 3; i += 1) {
      await adaCoffees.getByRole('button', { name: 'Increment by 1' }).click();
    }
    await adaCoffees.getByRole('button', { name: 'Decrement by 1' }).click();
    const bobTeas = counterCard(bob, 'Teas');
    await bobTeas.getByRole('button', { name: 'Increment by 5' }).click();
    await bobTeas.getByRole('button', { name: 'Increment by 5' }).click();
    // Both see both counters settle (confirmed and shared live).
    await expect(counterValue(counterCard(ada, 'Teas'))).toHaveText('10');
    await expect(counterValue(counterCard(bob, 'Coffees'))).toHaveText('2');
    await expect.poll(async () => (await tallies(name, key)).length).toBe(2);

    const panel = await openByMember(ada);
    const table = panel.getByRole('table');
    await expect(table.getByRole('caption')).toContainText('All counters · All time');
    // Bob +10 ranks first; Ada +3 −1 = +2 second, marked as this browser's member.
    await expect(memberRow(panel, 'Bob')).toHaveText(['1', '10', '0', '+10']);
    await expect(memberRow(panel, 'Ada (you)')).toHaveText(['2', '3', '1', '+2']);
    await expect(table.getByRole('rowheader')).toHaveText(['Bob', 'Ada (you)']);

    // Live: Bob taps Coffees three times; Ada's open board follows without reopening.
    const bobCoffees = counterCard(bob, 'Coffees');
    for (let i = 0; i < 3; i += 1) {
      await bobCoffees.getByRole('button', { name: 'Increment by 1' }).click();
    }
    await expect(memberRow(panel, 'Bob')).toHaveText(['1', '13', '0', '+13']);

    // One counter: only its taps, only who touched it.
    await panel.getByLabel('Counter', { exact: true }).selectOption({ label: 'Coffees' });
    await expect(table.getByRole('caption')).toContainText('Coffees · All time');
    await expect(table.getByRole('rowheader')).toHaveText(['Bob', 'Ada (you)']);
    await expect(memberRow(panel, 'Bob')).toHaveText(['1', '3', '0', '+3']);
    await expect(memberRow(panel, 'Ada (you)')).toHaveText(['2', '3', '1', '+2']);
    await panel.getByLabel('Counter', { exact: true }).selectOption({ label: 'Teas' });
    await expect(table.getByRole('rowheader')).toHaveText(['Bob']);
    await expect(memberRow(panel, 'Bob')).toHaveText(['1', '10', '0', '+10']);

    // Live on a chosen counter too: Ada takes 5 away from Teas.
    await counterCard(ada, 'Teas').getByRole('button', { name: 'Decrement by 1' }).click();
    await expect(memberRow(panel, 'Ada (you)')).toHaveText(['2', '0', '1', '\u22121']);

    // What the board shows is what the API answers.
    const rows = await tallies(name, key);
    const of = (member: string, counter: string) =>
      rows.find((row) => row.member === member && row.counterId === counter);
    const teas = (await (
      await fetch(`${baseUrl()}/api/groups/${name}/counters`, {
        headers: { authorization: `Bearer ${key}` },
      })
    ).json()) as { id: string; name: string }[];
    const teasId = teas.find((counter) => counter.name === 'Teas')?.id ?? '';
    expect(of('Bob', teasId)).toMatchObject({ increments: 10, decrements: 0, net: 10 });
    expect(of('Ada', teasId)).toMatchObject({ increments: 0, decrements: 1, net: -1 });

    await ada.context().close();
    await bob.context().close();
  });

  test('a group nobody has counted in says so; today and this week are in the group’s zone', async ({
    page,
  }) => {
    const { name, key } = await seedGroup([{ name: 'Coffees' }]);
    await openGroup(page, name, key);
    const panel = await openByMember(page);
    await expect(panel.getByRole('table')).toContainText('Nobody has counted yet.');
    await panel.getByText('Today', { exact: true }).click();
    await expect(panel.getByRole('radio', { name: 'Today' })).toBeChecked();
    await expect(panel.getByRole('table')).toContainText('Nobody has counted today.');
    await expect(panel.getByRole('table').getByRole('caption')).toContainText('Since 00:00 (UTC)');

    // A tap now counts today, this week, this month and all time.
    await counterCard(page, 'Coffees').getByRole('button', { name: 'Increment by 1' }).click();
    const me = panel.getByRole('table').getByRole('rowheader');
    await expect(me).toHaveCount(1);
    await expect(me).toContainText('(you)');
    for (const range of ['This week', 'This month', 'All time']) {
      await panel.getByText(range, { exact: true }).click();
      await expect(panel.getByRole('radio', { name: range })).toBeChecked();
      await expect(panel.getByRole('table').getByRole('cell').last()).toHaveText('+1');
    }
  });

  test('a counter that resets offers all time and this period, since its own period began', async ({
    page,
  }) => {
    const { name, key, counters } = await seedGroup([{ name: 'Laps', reset: 'daily' }]);
    const id = counters[0]?.id ?? '';
    await tapAs(name, key, 'Cy', id, 'increment', 4);
    await openGroup(page, name, key);
    const panel = await openByMember(page);
    await panel.getByLabel('Counter', { exact: true }).selectOption({ label: 'Laps' });
    const ranges = panel.getByRole('group', { name: 'Range' }).getByRole('radio');
    await expect(ranges).toHaveCount(2);
    await panel.getByText('This period', { exact: true }).click();
    await expect(panel.getByRole('table').getByRole('caption')).toContainText(
      'Laps · This period (today)',
    );
    await expect(memberRow(panel, 'Cy')).toHaveText(['1', '4', '0', '+4']);
  });

  test('the log says who reached a goal, reordered the counters and changed limits, periods and sections', async ({
    browser,
  }) => {
    const { name, key, counters } = await seedGroup([
      { name: 'Coffees', goal: 3, value: 1 },
      { name: 'Teas' },
    ]);
    const [coffees, teas] = counters.map((counter) => counter.id);
    const ada = await memberPage(browser, 'Ada');
    await openGroup(ada, name, key);
    const panel = await openActivity(ada);
    const card = counterCard(ada, 'Coffees');
    await card.getByRole('button', { name: 'Increment by 1' }).click();
    await expect(counterValue(card)).toHaveText('2');
    await card.getByRole('button', { name: 'Increment by 1' }).click();
    await expect(activityEntries(panel).first()).toContainText(
      'Ada +1 on Coffees — reached the goal of 3',
    );
    // Past the goal: no second crossing.
    await card.getByRole('button', { name: 'Increment by 1' }).click();
    // The separator is held to the text by a no-break space (it never starts a line).
    await expect(activityEntries(panel).first()).toHaveText(/^Ada \+1 on Coffees\s·/);

    const put = await fetch(`${baseUrl()}/api/groups/${name}/order`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ counterIds: [teas, coffees] }),
    });
    expect(put.status).toBe(200);
    await expect(activityEntries(panel).first()).toContainText('reordered the counters');
    await api.updateCounter(name, key, teas ?? '', { max: 10, section: 'Hot drinks' });
    await expect(activityEntries(panel).first()).toContainText(
      'set the maximum of Teas to 10, moved Teas to section Hot drinks',
    );
    await api.updateCounter(name, key, teas ?? '', { max: null, reset: 'weekly' });
    await expect(activityEntries(panel).first()).toContainText(
      'removed the maximum of Teas, set Teas to reset weekly',
    );
    await ada.context().close();
  });

  for (const { theme, viewport, label } of [
    { theme: 'light', viewport: PHONE, label: 'phone-light' },
    { theme: 'dark', viewport: PHONE, label: 'phone-dark' },
    { theme: 'light', viewport: DESKTOP, label: 'desktop-light' },
    { theme: 'dark', viewport: DESKTOP, label: 'desktop-dark' },
  ] as const) {
    test(`the board is axe-clean and fits the screen (${label})`, async ({ page }) => {
      const { name, key, counters } = await seedGroup([
        { name: 'North entrance' },
        { name: 'South entrance' },
      ]);
      const [north, south] = counters.map((counter) => counter.id);
      await tapAs(name, key, 'Ada', north ?? '', 'increment', 42);
      await tapAs(name, key, 'Bob', north ?? '', 'increment', 17);
      await tapAs(name, key, 'Bob', south ?? '', 'decrement', 3);
      await tapAs(name, key, 'Chidi Anagonye', south ?? '', 'increment', 17);
      await tapAs(name, key, 'Dee', north ?? '', 'decrement', 2);
      await page.addInitScript((value) => {
        localStorage.setItem('tally:theme', value);
      }, theme);
      await page.setViewportSize(viewport);
      await openGroup(page, name, key);
      const panel = await openByMember(page);
      await expect(panel.getByRole('table').getByRole('rowheader')).toHaveText([
        'Ada',
        'Chidi Anagonye',
        'Bob',
        'Dee',
      ]);
      // Ada +42, Chidi +17, Bob +17 −3 = +14, Dee −2.
      await expect(memberRow(panel, 'Bob')).toHaveText(['3', '17', '3', '+14']);
      expect(await seriousA11yFindings(page)).toEqual([]);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
        viewport.width,
      );
      // Keyboard: the tabs move with the arrow keys.
      await panel.getByRole('tab', { name: 'By member' }).focus();
      await page.keyboard.press('ArrowLeft');
      await expect(panel.getByRole('tab', { name: 'Log' })).toBeFocused();
      await expect(panel.getByRole('tab', { name: 'Log' })).toHaveAttribute(
        'aria-selected',
        'true',
      );
      await page.keyboard.press('ArrowRight');
      await expect(panel.getByRole('table')).toBeVisible();
      if (screenshotsWanted) {
        await page.mouse.move(0, 0);
        await page.evaluate(() => {
          if (document.activeElement instanceof HTMLElement) document.activeElement.blur();
        });
        await page.screenshot({ path: screenshotPath(`members-${label}.png`) });
      }
    });
  }
});
