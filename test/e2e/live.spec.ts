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

test.describe('live updates between members', () => {
  test("two members see each other's new counters, edits and deletions without reloading", async ({
    browser,
  }) => {
    const { name, key } = await seedGroup();
    const alice = await (await browser.newContext()).newPage();
    const bob = await (await browser.newContext()).newPage();
    await openGroup(alice, name, key);
    await openGroup(bob, name, key);

    await alice.getByRole('button', { name: 'Create First Counter' }).click();
    const onBob = counterCard(bob, MESSAGES.newCounterName);
    await expect(onBob).toBeVisible();

    await onBob.getByRole('button', { name: /^Counter name/ }).click();
    await onBob.getByRole('textbox', { name: 'Counter name' }).fill('Shared');
    await onBob.getByRole('textbox', { name: 'Counter name' }).press('Enter');
    const onAlice = counterCard(alice, 'Shared');
    await expect(onAlice).toBeVisible();

    await onAlice.getByRole('button', { name: 'Increment by 1' }).click();
    await onAlice.getByRole('button', { name: 'Increment by 1' }).click();
    await expect(counterValue(counterCard(bob, 'Shared'))).toHaveText('2');

    await cardAction(counterCard(bob, 'Shared'), 'Delete counter');
    await bob.getByRole('alertdialog').getByRole('button', { name: 'Delete' }).click();
    await expect(onAlice).toBeHidden();
    await expect(alice.getByText(MESSAGES.noCountersTitle)).toBeVisible();

    await alice.context().close();
    await bob.context().close();
  });

  test('a display name edit reaches the other members; a blank one is not saved', async ({
    browser,
  }) => {
    const { name, key } = await seedGroup();
    const alice = await (await browser.newContext()).newPage();
    const bob = await (await browser.newContext()).newPage();
    await openGroup(alice, name, key);
    await openGroup(bob, name, key);
    await alice.getByRole('button', { name: /^Group name/ }).click();
    await alice.getByRole('textbox', { name: 'Group name' }).fill('Book club');
    await alice.getByRole('textbox', { name: 'Group name' }).press('Enter');
    await expect(bob.getByRole('heading', { level: 1 })).toHaveText('Book club');
    await expect(bob).toHaveTitle('Book club · Tally');
    // A blank display name is not saved.
    await bob.getByRole('button', { name: /^Group name/ }).click();
    await bob.getByRole('textbox', { name: 'Group name' }).fill('   ');
    await bob.getByRole('textbox', { name: 'Group name' }).press('Enter');
    await expect(bob.getByRole('heading', { level: 1 })).toHaveText('Book club');
    await alice.context().close();
    await bob.context().close();
  });

  test('two members clicking + at the same time lose no click', async ({ browser }) => {
    const { name, key, counters } = await seedGroup([{ name: 'Race' }]);
    const pages = await Promise.all([0, 1].map(async () => (await browser.newContext()).newPage()));
    await Promise.all(pages.map((page) => openGroup(page, name, key)));
    const CLICKS = 30;
    await Promise.all(
      pages.map(async (page) => {
        const plus = counterCard(page, 'Race').getByRole('button', { name: 'Increment by 1' });
        for (let i = 0; i < CLICKS; i += 1) await plus.click({ delay: 0 });
      }),
    );
    for (const page of pages) {
      await expect(counterValue(counterCard(page, 'Race'))).toHaveText(String(2 * CLICKS));
    }
    const [stored] = await api.counters(name, key);
    expect(stored?.id).toBe(counters[0]?.id);
    expect(stored?.value).toBe(2 * CLICKS);
    for (const page of pages) await page.context().close();
  });

  test('shows Offline when the connection drops, then reconnects and catches up without reload', async ({
    page,
    context,
  }) => {
    const { name, key, counters } = await seedGroup([{ name: 'Resync', value: 1 }]);
    const id = counters[0]?.id ?? '';
    await openGroup(page, name, key);
    const card = counterCard(page, 'Resync');

    await context.setOffline(true);
    await expect(page.getByRole('status').filter({ hasText: 'Offline' })).toBeVisible();
    // Changes made meanwhile by somebody else…
    await api.increment(name, key, id, 4);
    await api.createCounter(name, key, { name: 'Made while offline' });

    await context.setOffline(false);
    await expect(page.getByRole('status').filter({ hasText: 'Live' })).toBeVisible({
      timeout: 10_000,
    });
    // …show up from the resync snapshot.
    await expect(counterValue(card)).toHaveText('5');
    await expect(counterCard(page, 'Made while offline')).toBeVisible();
  });

  test('clicks made while offline are kept, sent once on reconnect and never counted twice', async ({
    page,
    context,
  }) => {
    const { name, key } = await seedGroup([{ name: 'Queued' }]);
    await openGroup(page, name, key);
    const card = counterCard(page, 'Queued');
    await context.setOffline(true);
    await expect(page.getByRole('status').filter({ hasText: 'Offline' })).toBeVisible();
    for (let i = 0; i < 3; i += 1)
      await card.getByRole('button', { name: 'Increment by 1' }).click();
    await expect(counterValue(card)).toHaveText('3');
    await context.setOffline(false);
    await expect(page.getByRole('status').filter({ hasText: 'Live' })).toBeVisible({
      timeout: 10_000,
    });
    await expect
      .poll(async () => (await api.counters(name, key))[0]?.value, { timeout: 15_000 })
      .toBe(3);
    await expect(counterValue(card)).toHaveText('3');
  });
});
