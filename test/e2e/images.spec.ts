import { MESSAGES } from '../../src/shared/messages.js';
import {
  api,
  counterCard,
  expect,
  imagesUrl,
  openGroup,
  seedGroup,
  test,
} from './support/fixtures.js';

test.describe('profile picture', () => {
  test('the Profile Picture dialog saves an image only once it loads, and members see it live', async ({
    page,
    browser,
  }) => {
    const { name, key } = await seedGroup();
    await openGroup(page, name, key);
    const other = await (await browser.newContext()).newPage();
    await openGroup(other, name, key);

    await page.getByRole('button', { name: 'Change profile picture' }).click();
    const dialog = page.getByRole('dialog', { name: 'Profile Picture' });
    await expect(dialog).toBeVisible();
    const input = dialog.getByLabel('Image URL');

    await input.fill('http://exa mple.com/x.png');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect(dialog.getByText(MESSAGES.invalidUrl)).toBeVisible();

    await input.fill(`${imagesUrl()}/missing.png`);
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect(dialog.getByText(MESSAGES.profileImageFailed)).toBeVisible();

    await input.fill(`${imagesUrl()}/not-an-image.txt`);
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect(dialog.getByText(MESSAGES.profileImageFailed)).toBeVisible();

    await input.fill(`${imagesUrl()}/ok.png`);
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect(dialog).toBeHidden();
    const picture = (p: typeof page) =>
      p.getByRole('button', { name: 'Change profile picture' }).locator('img');
    await expect(picture(page)).toHaveAttribute('src', `${imagesUrl()}/ok.png`);
    await expect(picture(other)).toHaveAttribute('src', `${imagesUrl()}/ok.png`);
    await expect
      .poll(async () => (await api.join(name, key)).group.profileImageUrl)
      .toBe(`${imagesUrl()}/ok.png`);

    // Escape closes without saving; an empty URL removes the picture.
    await page.getByRole('button', { name: 'Change profile picture' }).click();
    await dialog.getByLabel('Image URL').fill(`${imagesUrl()}/other.png`);
    await page.keyboard.press('Escape');
    await expect(dialog).toBeHidden();
    await expect(picture(page)).toHaveAttribute('src', `${imagesUrl()}/ok.png`);
    await page.getByRole('button', { name: 'Change profile picture' }).click();
    await dialog.getByLabel('Image URL').fill('');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect(picture(other)).toHaveCount(0);
    await other.context().close();
  });
});

test.describe('counter thumbnail', () => {
  test('add, change and remove a thumbnail; a failing image and a bad URL are explained', async ({
    page,
  }) => {
    const { name, key } = await seedGroup([{ name: 'Pictured' }]);
    await openGroup(page, name, key);
    const card = counterCard(page, 'Pictured');

    await card.getByRole('button', { name: 'Add thumbnail' }).click();
    await expect(card.getByText(MESSAGES.thumbnailHint)).toBeVisible();
    const input = card.getByLabel('Thumbnail URL');
    await input.fill('not a url');
    await input.press('Enter');
    await expect(card.getByText(MESSAGES.invalidUrl)).toBeVisible();
    await input.fill(`${imagesUrl()}/missing.png`);
    await card.getByRole('button', { name: 'Save' }).click();
    await expect(card.getByText(MESSAGES.counterImageFailed)).toBeVisible();

    await input.fill(`${imagesUrl()}/ok.png`);
    await card.getByRole('button', { name: 'Save' }).click();
    const thumbnail = card.getByRole('button', { name: 'Change thumbnail' }).locator('img');
    await expect(thumbnail).toHaveAttribute('src', `${imagesUrl()}/ok.png`);

    await card.getByRole('button', { name: 'Change thumbnail' }).click();
    await card.getByLabel('Thumbnail URL').fill(`${imagesUrl()}/other.png`);
    await card.getByLabel('Thumbnail URL').press('Escape');
    await expect(thumbnail).toHaveAttribute('src', `${imagesUrl()}/ok.png`);

    await card.getByRole('button', { name: 'Change thumbnail' }).click();
    await card.getByLabel('Thumbnail URL').fill(`${imagesUrl()}/other.png`);
    await card.getByRole('button', { name: 'Save' }).click();
    await expect(thumbnail).toHaveAttribute('src', `${imagesUrl()}/other.png`);
    await expect
      .poll(async () => (await api.counters(name, key))[0]?.thumbnailUrl)
      .toBe(`${imagesUrl()}/other.png`);

    await card.getByRole('button', { name: 'Change thumbnail' }).click();
    await card.getByRole('button', { name: 'Remove thumbnail' }).click();
    await expect(card.getByRole('button', { name: 'Add thumbnail' })).toBeVisible();
    await expect.poll(async () => (await api.counters(name, key))[0]?.thumbnailUrl).toBeNull();
  });

  test('a saved thumbnail that stops loading shows the failed-image message', async ({ page }) => {
    const { name, key } = await seedGroup([
      { name: 'Broken', thumbnailUrl: `${imagesUrl()}/gone.png` },
    ]);
    await openGroup(page, name, key);
    await expect(counterCard(page, 'Broken').getByText(MESSAGES.counterImageFailed)).toBeVisible();
  });
});
