import WebSocket from 'ws';
import { PROTOCOL_VERSION, livePath } from '../../src/shared/live.js';
import { baseUrl, expect, openGroup, seedGroup, test } from './support/fixtures.js';

/** A member connected from outside the browser (the live protocol, docs/api.md). */
async function connectMember(group: string, key: string, id: string, name: string) {
  const socket = new WebSocket(baseUrl().replace(/^http/, 'ws') + livePath(group));
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  socket.send(
    JSON.stringify({ type: 'auth', protocol: PROTOCOL_VERSION, key, member: { id, name } }),
  );
  return socket;
}

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

  test('renaming in one tab renames the other tabs of the same browser, shown once to others', async ({
    browser,
  }) => {
    const { name, key } = await seedGroup();
    const mine = await browser.newContext();
    await mine.addInitScript(() => {
      if (!localStorage.getItem('tally:guestName')) localStorage.setItem('tally:guestName', 'Cleo');
    });
    const first = await mine.newPage();
    const second = await mine.newPage();
    const other = await (await browser.newContext()).newPage();
    await openGroup(first, name, key);
    await openGroup(second, name, key);
    await openGroup(other, name, key);
    const seen = other.getByTestId('here-now');
    await expect(seen.locator('[data-member="Cleo"]')).toHaveCount(1);

    await first.getByRole('button', { name: 'Your name: Cleo' }).click();
    await first.getByRole('textbox', { name: 'Your name' }).fill('Cleopatra');
    await first.keyboard.press('Enter');
    await expect(second.getByRole('button', { name: 'Your name: Cleopatra' })).toBeVisible();
    await expect(seen.locator('[data-member="Cleopatra"]')).toHaveCount(1);
    await expect(seen.locator('[data-member="Cleo"]')).toHaveCount(0);
    await mine.close();
    await other.context().close();
  });

  test('a crowd shows four faces and +N, with every name in its label', async ({ page }) => {
    const { name, key } = await seedGroup();
    const crowd = ['Ada', 'Ben', 'Cy', 'Dee', 'Eve'];
    const sockets = await Promise.all(
      crowd.map((member, index) => connectMember(name, key, `crowd-${String(index)}`, member)),
    );
    await page.addInitScript(() => {
      localStorage.setItem('tally:guestName', 'Me');
    });
    await openGroup(page, name, key);
    const here = page.getByTestId('here-now');
    await expect(here.getByRole('listitem')).toHaveCount(5);
    await expect(here.getByRole('listitem').last()).toHaveText('+2');
    for (const member of [...crowd, 'Me']) {
      await expect(here).toHaveAttribute('aria-label', new RegExp(`\\b${member}\\b`));
    }
    for (const socket of sockets) socket.close();
    await expect(here.getByRole('listitem')).toHaveCount(1, { timeout: 15_000 });
  });
});
