/**
 * The activity log in the browser (ADR 7): who did what (the activity panel), undo (toast, Ctrl+Z,
 * the panel), and each counter's history (sparkline, chart). Members are separate browser contexts
 * with their own 'Signed in as' names.
 */
import type { ActivityPage } from '../../src/shared/activity.js';
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
import { activityEntries, memberPage, openActivity, toast } from './support/members.js';

const activity = async (name: string, key: string, query = 'limit=200'): Promise<ActivityPage> => {
  const response = await fetch(`${baseUrl()}/api/groups/${name}/activity?${query}`, {
    headers: { authorization: `Bearer ${key}` },
  });
  expect(response.status).toBe(200);
  return (await response.json()) as ActivityPage;
};

test.describe('activity panel', () => {
  test('a tap shows up in the activity panel under the member’s name, newest first', async ({
    browser,
  }) => {
    const { name, key } = await seedGroup([{ name: 'Coffees' }]);
    const ada = await memberPage(browser, 'Ada');
    await openGroup(ada, name, key);
    await expect(ada.getByText('Signed in as')).toBeVisible();
    await counterCard(ada, 'Coffees').getByRole('button', { name: 'Increment by 1' }).click();
    await expect(toast(ada)).toContainText('+1 on Coffees');

    const panel = await openActivity(ada);
    const entries = activityEntries(panel);
    await expect(entries.first()).toContainText('Ada +1 on Coffees');
    await expect(entries.first()).toContainText('just now');
    // The server logged the name the browser sent (Tally-Member), not "Someone".
    const page = await activity(name, key);
    expect(page.entries[0]).toMatchObject({ kind: 'counter.adjusted', actor: 'Ada', delta: 1 });

    await panel.getByRole('button', { name: 'Close activity' }).click();
    await expect(panel).toBeHidden();
    await expect(ada.getByRole('button', { name: 'Activity', exact: true })).toBeFocused();
    await ada.context().close();
  });

  test('the panel follows live changes of other members without reopening', async ({ browser }) => {
    const { name, key } = await seedGroup([{ name: 'Coffees' }]);
    const ada = await memberPage(browser, 'Ada');
    const bob = await memberPage(browser, 'Bob');
    await openGroup(ada, name, key);
    await openGroup(bob, name, key);
    const panel = await openActivity(ada);

    await counterCard(bob, 'Coffees').getByRole('button', { name: 'Increment by 1' }).click();
    await expect(activityEntries(panel).first()).toContainText('Bob +1 on Coffees');
    await bob.getByRole('button', { name: /^Counter name/ }).click();
    await bob.getByRole('textbox', { name: 'Counter name' }).fill('Teas');
    await bob.getByRole('textbox', { name: 'Counter name' }).press('Enter');
    await expect(activityEntries(panel).first()).toContainText('Bob renamed Coffees → Teas');
    await ada.context().close();
    await bob.context().close();
  });

  test('a long log opens with one page of 50 and loads older entries on scrolling to its end', async ({
    page,
  }) => {
    const { name, key, counters } = await seedGroup([{ name: 'Laps' }]);
    const id = counters[0]?.id ?? '';
    // 60 separate commits: 60 entries, plus the one that created the counter.
    for (let i = 0; i < 60; i += 1) await api.increment(name, key, id);
    const requests: string[] = [];
    page.on('request', (request) => {
      if (request.url().includes('/activity')) requests.push(request.url());
    });
    await openGroup(page, name, key);
    const panel = await openActivity(page);
    await expect(activityEntries(panel)).toHaveCount(50);
    expect(new URL(requests[0] ?? '').searchParams.get('limit')).toBe('50');
    // Scrolling to the end of the list loads the next (older) page by itself.
    await panel.getByRole('button', { name: 'Load older' }).scrollIntoViewIfNeeded();
    await expect(activityEntries(panel)).toHaveCount(61);
    const older = new URL(requests.find((url) => url.includes('before=')) ?? '').searchParams;
    expect(older.get('limit')).toBe('50');
    expect(Number(older.get('before'))).toBeGreaterThan(0);
    await expect(activityEntries(panel).last()).toContainText('created Laps');
    await expect(panel.getByText('That is the beginning of the log.')).toBeVisible();
  });
});

test.describe('undo', () => {
  test('Undo in the toast takes a tap back, and the other member sees the value restored', async ({
    browser,
  }) => {
    const { name, key } = await seedGroup([{ name: 'Coffees', value: 10, incrementStep: 5 }]);
    const ada = await memberPage(browser, 'Ada');
    const bob = await memberPage(browser, 'Bob');
    await openGroup(ada, name, key);
    await openGroup(bob, name, key);

    await counterCard(ada, 'Coffees').getByRole('button', { name: 'Increment by 5' }).click();
    await expect(counterValue(counterCard(bob, 'Coffees'))).toHaveText('15');
    await expect(toast(ada)).toContainText('+5 on Coffees');
    await toast(ada).getByRole('button', { name: 'Undo' }).click();
    await expect(toast(ada)).toContainText('Undone: +5 on Coffees');
    await expect(counterValue(counterCard(bob, 'Coffees'))).toHaveText('10');
    await expect(counterValue(counterCard(ada, 'Coffees'))).toHaveText('10');
    expect((await api.counters(name, key))[0]?.value).toBe(10);

    // Bob's panel says who undid what, and marks the tap as undone.
    const panel = await openActivity(bob);
    await expect(activityEntries(panel).first()).toContainText('Ada undid Ada +5 on Coffees');
    await expect(activityEntries(panel).nth(1)).toContainText('Undone by Ada');
    await expect(activityEntries(panel).nth(1).getByRole('button', { name: /^Undo/ })).toHaveCount(
      0,
    );
    await ada.context().close();
    await bob.context().close();
  });

  test('Ctrl+Z undoes this tab’s last change, and pressed again the one before', async ({
    browser,
  }) => {
    const { name, key } = await seedGroup([{ name: 'Coffees' }]);
    const ada = await memberPage(browser, 'Ada');
    await openGroup(ada, name, key);
    const card = counterCard(ada, 'Coffees');
    await card.getByRole('button', { name: 'Increment by 1' }).click();
    await expect(toast(ada)).toContainText('+1 on Coffees');
    await card.getByRole('button', { name: /^Counter name/ }).click();
    await ada.getByRole('textbox', { name: 'Counter name' }).fill('Teas');
    await ada.getByRole('textbox', { name: 'Counter name' }).press('Enter');
    await expect(toast(ada)).toContainText('Renamed Coffees → Teas');

    // Ctrl+Z typed in a text field is the field's own undo, not the group's.
    await counterCard(ada, 'Teas')
      .getByRole('button', { name: /^Description/ })
      .click();
    await ada.getByRole('textbox', { name: 'Description' }).press('Control+z');
    await ada.getByRole('textbox', { name: 'Description' }).press('Escape');
    await expect(counterCard(ada, 'Teas')).toBeVisible();

    await ada.keyboard.press('Control+z');
    await expect(counterCard(ada, 'Coffees')).toBeVisible();
    await expect(counterValue(counterCard(ada, 'Coffees'))).toHaveText('1');
    await ada.keyboard.press('Control+z');
    await expect(counterValue(counterCard(ada, 'Coffees'))).toHaveText('0');
    await expect
      .poll(async () => (await api.counters(name, key))[0])
      .toMatchObject({ name: 'Coffees', value: 0 });

    // Pressed right after a tap, before the server confirmed it: that tap is the one undone.
    await counterCard(ada, 'Coffees').getByRole('button', { name: 'Increment by 1' }).click();
    await ada.keyboard.press('Control+z');
    await expect(toast(ada)).toContainText('Undone: +1 on Coffees');
    await expect(counterValue(counterCard(ada, 'Coffees'))).toHaveText('0');
    expect((await api.counters(name, key))[0]?.value).toBe(0);
    await ada.context().close();
  });

  test('undoing a delete from the panel brings the counter back with its value', async ({
    browser,
  }) => {
    const { name, key } = await seedGroup([{ name: 'Coffees', value: 42 }, { name: 'Teas' }]);
    const ada = await memberPage(browser, 'Ada');
    const bob = await memberPage(browser, 'Bob');
    await openGroup(ada, name, key);
    await openGroup(bob, name, key);

    await cardAction(counterCard(ada, 'Coffees'), 'Delete counter');
    await ada.getByRole('alertdialog').getByRole('button', { name: 'Delete' }).click();
    await expect(counterCard(bob, 'Coffees')).toBeHidden();

    const panel = await openActivity(bob);
    const deleted = activityEntries(panel).filter({ hasText: /^Ada deleted Coffees/ });
    await deleted.getByRole('button', { name: 'Undo: Ada deleted Coffees' }).click();
    await expect(counterValue(counterCard(bob, 'Coffees'))).toHaveText('42');
    await expect(counterValue(counterCard(ada, 'Coffees'))).toHaveText('42');
    // Back in its place: created first, so first in the grid.
    await expect(bob.getByRole('article').first()).toHaveAccessibleName('Coffees');
    await expect(activityEntries(panel).first()).toContainText('Bob undid Ada deleted Coffees');
    await expect(deleted).toContainText('Undone by Bob');

    // The same change cannot be taken back twice: Ada's Ctrl+Z now says so.
    await ada.keyboard.press('Control+z');
    await expect(toast(ada)).toContainText('This change was already undone.');
    await expect(counterCard(ada, 'Coffees')).toBeVisible();
    await ada.context().close();
    await bob.context().close();
  });
});

test.describe('history', () => {
  test('each card shows a sparkline, and Show history opens a chart of the whole life', async ({
    page,
  }) => {
    const { name, key, counters } = await seedGroup([{ name: 'Coffees' }, { name: 'Teas' }]);
    const id = counters[0]?.id ?? '';
    for (let i = 0; i < 4; i += 1) await api.increment(name, key, id, i + 1);
    await openGroup(page, name, key);
    const card = counterCard(page, 'Coffees');
    await expect(counterValue(card)).toHaveText('10');
    const line = card.locator('svg.sparkline path').nth(1);
    await expect(line).toHaveAttribute('d', /^M0\.0 22\.0L/);
    // Extended live: a tap adds a point at the top right.
    await card.getByRole('button', { name: 'Increment by 1' }).click();
    await expect(line).toHaveAttribute('d', /L100\.0 2\.0$/);

    await card.getByRole('button', { name: 'Show history' }).click();
    const dialog = page.getByRole('dialog', { name: 'History of Coffees' });
    await expect(dialog).toBeVisible();
    const chart = dialog.getByRole('img');
    await expect(chart).toHaveAccessibleName(/started at 0, now 11, lowest 0, highest 11/);
    await expect(dialog.getByText('Highest')).toBeVisible();
    // Axis labels: round values up to the highest.
    await expect(chart.locator('text').filter({ hasText: /^10$/ })).toHaveCount(1);
    await dialog.getByRole('button', { name: 'Close' }).click();
    await expect(dialog).toBeHidden();
  });
});
