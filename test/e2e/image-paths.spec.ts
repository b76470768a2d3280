/**
 * An image on Tally's own site can be given by its path (/icons/icon-192.png): it is saved as the
 * site's full address and shows. An address typed without its scheme that does not load says what
 * to type; the product's own messages stay word for word.
 */
import type { Page } from '@playwright/test';
import { MESSAGES } from '../../src/shared/messages.js';
import {
  api,
  baseUrl,
  counterCard,
  expect,
  openGroup,
  seedGroup,
  test,
} from './support/fixtures.js';

/** The hint under an address that is not whole, word for word as the English app says it. */
const FULL_ADDRESS_HINT =
  'Enter a full address starting with https://, or a path on this site starting with /.';

/** A group with one counter, its Add thumbnail dialog open. */
async function thumbnailDialog(page: Page) {
  const { name, key } = await seedGroup([{ name: 'Pictured' }]);
  await openGroup(page, name, key);
  const card = counterCard(page, 'Pictured');
  await card.getByRole('button', { name: 'Add thumbnail' }).click();
  const dialog = page.getByRole('dialog', { name: 'Add thumbnail' });
  return { name, key, card, dialog, input: dialog.getByLabel('Thumbnail URL') };
}

test.describe('image addresses', () => {
  test('a same-site path such as /icons/icon-192.png is saved as this site’s address and shows', async ({
    page,
  }) => {
    const { name, key, card, dialog, input } = await thumbnailDialog(page);
    await input.fill('/icons/icon-192.png');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect(dialog).toBeHidden();
    const expected = new URL('/icons/icon-192.png', baseUrl()).href;
    const thumbnail = card.getByRole('button', { name: 'Change thumbnail' }).locator('img');
    await expect(thumbnail).toHaveAttribute('src', expected);
    await expect
      .poll(() => thumbnail.evaluate((image: HTMLImageElement) => image.naturalWidth))
      .toBeGreaterThan(0);
    await expect(card.getByText(MESSAGES.counterImageFailed)).toHaveCount(0);
    await expect.poll(async () => (await api.counters(name, key))[0]?.thumbnailUrl).toBe(expected);
  });

  test('a path without its leading slash fails with a sentence that says what to type', async ({
    page,
  }) => {
    const { dialog, input } = await thumbnailDialog(page);
    await expect(dialog.getByText(MESSAGES.thumbnailHint)).toBeVisible();
    // "icons/icon-192.png" reads as the host "icons": it cannot load.
    await input.fill('icons/icon-192.png');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect(dialog.getByText(MESSAGES.counterImageFailed)).toBeVisible({ timeout: 15_000 });
    await expect(dialog.getByText(FULL_ADDRESS_HINT)).toBeVisible();
    // A refused address gets the same guidance beside the product's message.
    await input.fill('not a url');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect(dialog.getByText(MESSAGES.invalidUrl, { exact: true })).toBeVisible();
    await expect(dialog.getByText(FULL_ADDRESS_HINT)).toBeVisible();
    // A full address that fails says only that it failed.
    await input.fill(`${baseUrl()}/icons/missing.png`);
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect(dialog.getByText(MESSAGES.counterImageFailed)).toBeVisible();
    await expect(dialog.getByText(FULL_ADDRESS_HINT)).toHaveCount(0);
  });

  test('the server refuses a bare path instead of reading it as a host name', async () => {
    const { name, key, counters } = await seedGroup([{ name: 'Pictured' }]);
    const response = await fetch(
      `${baseUrl()}/api/groups/${name}/counters/${counters[0]?.id ?? ''}`,
      {
        method: 'PATCH',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ thumbnailUrl: '/icons/icon-192.png' }),
      },
    );
    expect(response.status).toBe(400);
    expect(await response.text()).toContain(MESSAGES.invalidUrl);
    expect((await api.counters(name, key))[0]?.thumbnailUrl).toBeNull();
  });
});
