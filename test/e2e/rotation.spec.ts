import { MESSAGES } from '../../src/shared/messages.js';
import { baseUrl, expect, openGroup, seedGroup, test } from './support/fixtures.js';

test.describe('access key rotation', () => {
  test('rotating moves this tab to the new key and shuts out the old one', async ({ browser }) => {
    const { name, key } = await seedGroup([{ name: 'Cups' }]);
    const alice = await (await browser.newContext()).newPage();
    const bob = await (await browser.newContext()).newPage();
    await openGroup(alice, name, key);
    await openGroup(bob, name, key);

    await alice.getByRole('button', { name: 'Show QR code' }).click();
    const dialog = alice.getByRole('dialog', { name: 'Share this group' });
    await dialog.getByRole('button', { name: 'Change access key' }).click();
    await expect(dialog.getByText(/stop working/)).toBeVisible();
    await dialog.getByRole('button', { name: 'Change key now' }).click();

    await expect(alice).not.toHaveURL(new RegExp(key));
    await expect(alice).toHaveURL(new RegExp(`/${name}\\?key=[0-9a-f]{64}$`));
    const newKey = new URL(alice.url()).searchParams.get('key');
    expect(newKey).not.toBe(key);
    // The new link, ready to copy.
    const shown = alice.getByRole('dialog', { name: 'Share this group' });
    await expect(shown.getByText(`${baseUrl()}/${name}?key=${newKey}`)).toBeVisible();
    await expect(shown.getByText(/access key was changed/)).toBeVisible();
    await shown.getByRole('button', { name: 'Done' }).click();
    await expect(alice.getByRole('status').filter({ hasText: 'Live' })).toBeVisible({
      timeout: 15_000,
    });
    await expect(alice.getByRole('heading', { name: 'Access Denied' })).toHaveCount(0);
    await expect(alice.getByRole('article', { name: 'Cups' })).toBeVisible();

    await expect(bob.getByRole('heading', { name: 'Access Denied' })).toBeVisible();
    await expect(bob.getByText(MESSAGES.keyChanged)).toBeVisible();
    await alice.context().close();
    await bob.context().close();
  });
});
