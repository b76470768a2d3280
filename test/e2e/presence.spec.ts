import { expect, openGroup, seedGroup, test } from './support/fixtures.js';

test.describe('presence: Here now', () => {
  test('two members see each other by name, and closing one removes it', async ({ browser }) => {
    const { name, key } = await seedGroup();
    const aliceContext = await browser.newContext();
    const bobContext = await browser.newContext();
    await aliceContext.addInitScript(() => {
      localStorage.setItem('tally:guestName', 'Alice Example');
    });
    await bobContext.addInitScript(() => {
      localStorage.setItem('tally:guestName', 'Bob');
    });
    const alice = await aliceContext.newPage();
    const bob = await bobContext.newPage();
    await openGroup(alice, name, key);
    await openGroup(bob, name, key);

    const aliceHere = alice.getByTestId('here-now');
    const bobHere = bob.getByTestId('here-now');
    await expect(aliceHere.locator('[data-member="Bob"]')).toBeVisible();
    await expect(bobHere.locator('[data-member="Alice Example"]')).toBeVisible();
    await expect(bobHere.locator('[data-member="Alice Example"]')).toHaveText(/AE/);
    await expect(bobHere).toHaveAttribute('title', /Alice Example/);

    // A rename reaches the others live.
    await bob.getByRole('button', { name: 'Your name: Bob' }).click();
    await bob.getByRole('textbox', { name: 'Your name' }).fill('Robert');
    await bob.keyboard.press('Enter');
    await expect(aliceHere.locator('[data-member="Robert"]')).toBeVisible();
    await expect(aliceHere.locator('[data-member="Bob"]')).toHaveCount(0);

    await bobContext.close();
    await expect(aliceHere.locator('[data-member="Robert"]')).toHaveCount(0, { timeout: 15_000 });
    await expect(aliceHere.locator('[data-member="Alice Example"]')).toBeVisible();
    await aliceContext.close();
  });
});
