import { MESSAGES } from '../../src/shared/messages.js';
import { expect, newKey, openGroup, seedGroup, test, uniqueName } from './support/fixtures.js';

test.describe('group screen access', () => {
  test('shows Loading group... while the access check runs', async ({ page }) => {
    const { name, key } = await seedGroup();
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route(/\/join$/, async (route) => {
      await held;
      await route.continue();
    });
    await page.goto(`/${name}?key=${key}`);
    await expect(page.getByText(MESSAGES.loadingGroup)).toBeVisible();
    release();
    await expect(page.getByText(MESSAGES.noCountersTitle)).toBeVisible();
  });

  for (const [reason, path] of [
    ['no key', (name: string) => `/${name}`],
    ['an empty key', (name: string) => `/${name}?key=`],
  ] as const) {
    test(`denies access with "Missing group name or access key" for ${reason}`, async ({
      page,
    }) => {
      await page.goto(path(uniqueName()));
      await expect(page.getByRole('heading', { name: 'Access Denied' })).toBeVisible();
      await expect(page.getByText(MESSAGES.missingNameOrKey)).toBeVisible();
    });
  }

  test('denies access with "Invalid access key format" for a malformed key', async ({ page }) => {
    await page.goto(`/${uniqueName()}?key=not-hex-at-all`);
    await expect(page.getByRole('heading', { name: 'Access Denied' })).toBeVisible();
    await expect(page.getByText(MESSAGES.invalidKeyFormat)).toBeVisible();
  });

  test('denies access with "Invalid access key for this group" for a wrong key', async ({
    page,
  }) => {
    const { name } = await seedGroup();
    await page.goto(`/${name}?key=${newKey()}`);
    await expect(page.getByRole('heading', { name: 'Access Denied' })).toBeVisible();
    await expect(page.getByText(MESSAGES.wrongKey)).toBeVisible();
  });

  test("denies access with the server's own message for other failures", async ({ page }) => {
    await page.route(/\/join$/, (route) =>
      route.fulfill({
        status: 503,
        contentType: 'application/json',
        body: JSON.stringify({
          error: { code: 'internal_error', message: 'Database unavailable' },
        }),
      }),
    );
    await page.goto(`/${uniqueName()}?key=${newKey()}`);
    await expect(page.getByText('Database unavailable')).toBeVisible();
  });

  test("denies access with 'Access denied' when the server gives no reason", async ({ page }) => {
    await page.route(/\/join$/, (route) => route.fulfill({ status: 403, body: '' }));
    await page.goto(`/${uniqueName()}?key=${newKey()}`);
    await expect(page.getByText(MESSAGES.accessDenied, { exact: true })).toBeVisible();
  });

  test('Go Home returns to the landing page', async ({ page }) => {
    await page.goto(`/${uniqueName()}?key=nope`);
    await page.getByRole('button', { name: 'Go Home' }).click();
    await expect(page).toHaveURL(/\/$/);
    await expect(page.getByLabel('Unique Group Name')).toBeVisible();
  });

  test('opening a new name with a valid key creates the group (name and display name = slug)', async ({
    page,
  }) => {
    const name = uniqueName('Fresh Group');
    const slug = name.toLowerCase().replace(/[^a-z0-9_-]/g, '-');
    const key = newKey();
    await page.goto(`/${encodeURIComponent(name)}?key=${key}`);
    await expect(page.getByRole('heading', { level: 1 })).toContainText(slug);
    // The address becomes the canonical slug, so Share URL and reloads use it.
    await expect(page).toHaveURL(`/${slug}?key=${key}`);
    await page.reload();
    await openGroup(page, slug, key);
    await expect(page.getByRole('heading', { level: 1 })).toContainText(slug);
  });
});
