import { MESSAGES } from '../../src/shared/messages.js';
import {
  api,
  cardAction,
  counterCard,
  counterValue,
  expect,
  openGroup,
  seedGroup,
  test,
} from './support/fixtures.js';

test.describe('counters', () => {
  test('an empty group shows the empty state; Create First Counter adds "New Counter" at 0', async ({
    page,
  }) => {
    const { name, key } = await seedGroup();
    await openGroup(page, name, key);
    await expect(page.getByText(MESSAGES.noCountersTitle)).toBeVisible();
    await expect(page.getByText(MESSAGES.noCountersBody)).toBeVisible();
    await page.getByRole('button', { name: 'Create First Counter' }).click();
    const card = counterCard(page, MESSAGES.newCounterName);
    await expect(card).toBeVisible();
    await expect(counterValue(card)).toHaveText('0');
    await expect(card.getByRole('button', { name: 'Increment by 1' })).toBeVisible();
    await expect(card.getByRole('button', { name: 'Decrement by 1' })).toBeVisible();
    await expect(page.getByText(MESSAGES.noCountersTitle)).toBeHidden();
    await page.getByRole('button', { name: 'Add Counter' }).click();
    await expect(page.getByRole('article')).toHaveCount(2);
    expect(await api.counters(name, key)).toHaveLength(2);
  });

  test('name and description: click to edit, Enter saves, Escape reverts, placeholders when empty', async ({
    page,
  }) => {
    const { name, key } = await seedGroup([{ name: 'Laps' }]);
    await openGroup(page, name, key);
    const card = counterCard(page, 'Laps');
    await expect(
      card.getByRole('button', { name: 'Description: Add a description...' }),
    ).toBeVisible();

    await card.getByRole('button', { name: 'Counter name: Laps' }).click();
    await card.getByRole('textbox', { name: 'Counter name' }).fill('Pool laps');
    await card.getByRole('textbox', { name: 'Counter name' }).press('Enter');
    const renamed = counterCard(page, 'Pool laps');
    await expect(renamed.getByRole('button', { name: 'Counter name: Pool laps' })).toBeVisible();

    await renamed.getByRole('button', { name: /^Counter name/ }).click();
    await renamed.getByRole('textbox', { name: 'Counter name' }).fill('Something else');
    await renamed.getByRole('textbox', { name: 'Counter name' }).press('Escape');
    await expect(renamed.getByRole('button', { name: 'Counter name: Pool laps' })).toBeVisible();

    await renamed.getByRole('button', { name: /^Description/ }).click();
    await renamed
      .getByRole('textbox', { name: 'Description' })
      .fill('  <script>alert(1)</script>50 m each  ');
    await renamed.getByRole('button', { name: 'Save' }).click();
    await expect(renamed.getByRole('button', { name: 'Description: 50 m each' })).toBeVisible();

    await renamed.getByRole('button', { name: /^Description/ }).click();
    await renamed.getByRole('textbox', { name: 'Description' }).fill('discarded');
    await renamed.getByRole('button', { name: 'Cancel' }).click();
    await expect(renamed.getByRole('button', { name: 'Description: 50 m each' })).toBeVisible();

    await expect
      .poll(async () => (await api.counters(name, key))[0])
      .toMatchObject({ name: 'Pool laps', description: '50 m each' });
    await page.reload();
    await expect(counterCard(page, 'Pool laps').getByText('50 m each')).toBeVisible();
  });

  test('value: typed integers are set, non-numeric input keeps the current value', async ({
    page,
  }) => {
    const { name, key } = await seedGroup([{ name: 'Score', value: 5 }]);
    await openGroup(page, name, key);
    const card = counterCard(page, 'Score');
    await counterValue(card).click();
    await card.getByRole('textbox', { name: 'Counter value' }).fill('-12');
    await card.getByRole('textbox', { name: 'Counter value' }).press('Enter');
    await expect(counterValue(card)).toHaveText('-12');

    await counterValue(card).click();
    await card.getByRole('textbox', { name: 'Counter value' }).fill('abc');
    await card.getByRole('textbox', { name: 'Counter value' }).press('Enter');
    await expect(counterValue(card)).toHaveText('-12');

    await counterValue(card).click();
    await card.getByRole('textbox', { name: 'Counter value' }).fill('99');
    await card.getByRole('textbox', { name: 'Counter value' }).press('Escape');
    await expect(counterValue(card)).toHaveText('-12');
    await expect.poll(async () => (await api.counters(name, key))[0]?.value).toBe(-12);
  });

  test('custom steps: + adds the increment step, − subtracts the decrement step, below 0 too', async ({
    page,
  }) => {
    const { name, key } = await seedGroup([{ name: 'Steps' }]);
    await openGroup(page, name, key);
    const card = counterCard(page, 'Steps');

    await card.getByRole('button', { name: 'Increment Step: 1' }).click();
    await card.getByRole('textbox', { name: 'Increment Step' }).fill('5');
    await card.getByRole('textbox', { name: 'Increment Step' }).press('Enter');
    await card.getByRole('button', { name: 'Decrement Step: 1' }).click();
    await card.getByRole('textbox', { name: 'Decrement Step' }).fill('3');
    await card.getByRole('textbox', { name: 'Decrement Step' }).press('Enter');

    await card.getByRole('button', { name: 'Increment by 5' }).click();
    await card.getByRole('button', { name: 'Increment by 5' }).click();
    await expect(counterValue(card)).toHaveText('10');
    for (let i = 0; i < 4; i += 1)
      await card.getByRole('button', { name: 'Decrement by 3' }).click();
    await expect(counterValue(card)).toHaveText('-2');
    await expect
      .poll(async () => (await api.counters(name, key))[0])
      .toMatchObject({
        value: -2,
        incrementStep: 5,
        decrementStep: 3,
      });
  });

  test('steps are clamped to at least 1 and non-numeric steps keep the current step', async ({
    page,
  }) => {
    const { name, key } = await seedGroup([{ name: 'Clamp', incrementStep: 4 }]);
    await openGroup(page, name, key);
    const card = counterCard(page, 'Clamp');
    await card.getByRole('button', { name: 'Increment Step: 4' }).click();
    await card.getByRole('textbox', { name: 'Increment Step' }).fill('0');
    await card.getByRole('textbox', { name: 'Increment Step' }).press('Enter');
    await expect(card.getByRole('button', { name: 'Increment by 1' })).toBeVisible();

    await card.getByRole('button', { name: 'Decrement Step: 1' }).click();
    await card.getByRole('textbox', { name: 'Decrement Step' }).fill('-7');
    await card.getByRole('textbox', { name: 'Decrement Step' }).press('Enter');
    await expect(card.getByRole('button', { name: 'Decrement by 1' })).toBeVisible();

    await card.getByRole('button', { name: 'Increment Step: 1' }).click();
    await card.getByRole('textbox', { name: 'Increment Step' }).fill('lots');
    await card.getByRole('textbox', { name: 'Increment Step' }).press('Enter');
    await expect(card.getByRole('button', { name: 'Increment by 1' })).toBeVisible();
    await expect.poll(async () => (await api.counters(name, key))[0]?.incrementStep).toBe(1);
  });

  test('delete asks "Are you sure you want to delete this counter?"; Cancel keeps it, Delete removes it', async ({
    page,
  }) => {
    const { name, key } = await seedGroup([{ name: 'Doomed' }, { name: 'Keeper' }]);
    await openGroup(page, name, key);
    const card = counterCard(page, 'Doomed');
    await cardAction(card, 'Delete counter');
    const dialog = page.getByRole('alertdialog');
    await expect(dialog).toContainText(MESSAGES.deleteConfirm);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect(dialog).toBeHidden();
    await expect(card).toBeVisible();

    await cardAction(card, 'Delete counter');
    await page.keyboard.press('Escape');
    await expect(page.getByRole('alertdialog')).toBeHidden();
    await expect(card).toBeVisible();

    await cardAction(card, 'Delete counter');
    await page.getByRole('alertdialog').getByRole('button', { name: 'Delete' }).click();
    await expect(card).toBeHidden();
    await expect(counterCard(page, 'Keeper')).toBeVisible();
    await expect
      .poll(async () => (await api.counters(name, key)).map((c) => c.name))
      .toEqual(['Keeper']);
  });

  test('fast clicks show at once, none is lost and none counts twice', async ({ page }) => {
    const { name, key } = await seedGroup([{ name: 'Fast', incrementStep: 2 }]);
    await openGroup(page, name, key);
    const card = counterCard(page, 'Fast');
    const plus = card.getByRole('button', { name: 'Increment by 2' });
    for (let i = 0; i < 40; i += 1) await plus.click({ delay: 0 });
    await expect(counterValue(card)).toHaveText('80');
    await expect.poll(async () => (await api.counters(name, key))[0]?.value).toBe(80);
    // Stays there once every answer and live event has arrived.
    await page.waitForTimeout(300);
    await expect(counterValue(card)).toHaveText('80');
  });

  test('a failed operation shows a dismissible banner with the server message or the fallback', async ({
    page,
  }) => {
    const { name, key } = await seedGroup([{ name: 'Fragile', value: 1 }]);
    await openGroup(page, name, key);
    const card = counterCard(page, 'Fragile');
    await page.route(/\/increment$/, (route) =>
      route.fulfill({
        status: 422,
        contentType: 'application/json',
        body: JSON.stringify({
          error: { code: 'value_out_of_range', message: MESSAGES.valueOutOfRange },
        }),
      }),
    );
    await card.getByRole('button', { name: 'Increment by 1' }).click();
    const banner = page.getByRole('alert').filter({ hasText: MESSAGES.valueOutOfRange });
    await expect(banner).toBeVisible();
    // The optimistic +1 is rolled back.
    await expect(counterValue(card)).toHaveText('1');
    await banner.getByRole('button', { name: 'Dismiss error' }).click();
    await expect(banner).toBeHidden();

    await page.route(/\/counters$/, (route) =>
      route.request().method() === 'POST'
        ? route.fulfill({ status: 400, body: 'nope' })
        : route.continue(),
    );
    await page.getByRole('button', { name: 'Add Counter' }).click();
    await expect(
      page.getByRole('alert').filter({ hasText: MESSAGES.failedToCreateCounter }),
    ).toBeVisible();

    await page.route(/\/counters\/[^/]+$/, (route) =>
      route.request().method() === 'DELETE'
        ? route.fulfill({ status: 400, body: '' })
        : route.continue(),
    );
    await cardAction(card, 'Delete counter');
    await page.getByRole('alertdialog').getByRole('button', { name: 'Delete' }).click();
    await expect(
      page.getByRole('alert').filter({ hasText: MESSAGES.failedToDeleteCounter }),
    ).toBeVisible();
    await expect(card).toBeVisible();
  });
});
