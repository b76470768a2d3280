import { expect, openGroup, seedGroup, test } from './support/fixtures.js';

test.describe('theme', () => {
  test('is dark by default, applied before the app script runs', async ({ page }) => {
    // Without the app bundle only theme.js can have set the class: no flash of a light page.
    await page.route(/\/assets\/.*\.js$/, (route) => route.abort());
    await page.goto('/');
    await expect(page.locator('html')).toHaveClass(/\bdark\b/);
    expect(await page.evaluate(() => getComputedStyle(document.documentElement).colorScheme)).toBe(
      'dark',
    );
  });

  test('the toggle switches to light, keeps it across reloads and screens, and back', async ({
    page,
  }) => {
    const { name, key } = await seedGroup();
    await page.goto('/');
    await page.getByRole('button', { name: 'Switch to light mode' }).click();
    await expect(page.locator('html')).not.toHaveClass(/\bdark\b/);
    await expect(page.getByRole('button', { name: 'Switch to dark mode' })).toBeVisible();

    // Saved, and applied before first paint on the next load (app bundle blocked).
    await page.route(/\/assets\/.*\.js$/, (route) => route.abort());
    await page.reload();
    await expect(page.locator('html')).not.toHaveClass(/\bdark\b/);
    await page.unroute(/\/assets\/.*\.js$/);

    await openGroup(page, name, key);
    await expect(page.locator('html')).not.toHaveClass(/\bdark\b/);
    await page.getByRole('button', { name: 'Switch to dark mode' }).click();
    await expect(page.locator('html')).toHaveClass(/\bdark\b/);
    await page.reload();
    await expect(page.locator('html')).toHaveClass(/\bdark\b/);
    await expect(page.getByRole('button', { name: 'Switch to light mode' })).toBeVisible();
  });
});

test.describe('guest name', () => {
  test('a Guest{1..9999} name is created on the first visit and kept across visits', async ({
    page,
  }) => {
    const { name, key } = await seedGroup();
    await page.goto('/');
    const stored = await page.evaluate(() => localStorage.getItem('tally:guestName'));
    expect(stored).toMatch(/^Guest([1-9]\d{0,3})$/);
    expect(Number(stored?.slice(5))).toBeLessThanOrEqual(9999);
    await openGroup(page, name, key);
    await expect(page.getByText(`Signed in as${stored ?? ''}`)).toBeVisible();
    await page.reload();
    await expect(page.getByRole('button', { name: `Your name: ${stored ?? ''}` })).toBeVisible();
  });

  test('editing the name saves it locally; blank, unchanged and Escape are not saved', async ({
    page,
  }) => {
    const { name, key } = await seedGroup();
    await openGroup(page, name, key);
    const button = page.getByRole('button', { name: /^Your name: / });
    await button.click();
    await page.getByRole('textbox', { name: 'Your name' }).fill('Ada');
    await page.getByRole('textbox', { name: 'Your name' }).press('Enter');
    await expect(page.getByRole('button', { name: 'Your name: Ada' })).toBeVisible();

    await page.getByRole('button', { name: 'Your name: Ada' }).click();
    await expect(page.getByRole('textbox', { name: 'Your name' })).toHaveAttribute(
      'placeholder',
      'Your name',
    );
    await page.getByRole('textbox', { name: 'Your name' }).fill('   ');
    await page.getByRole('textbox', { name: 'Your name' }).press('Enter');
    await expect(page.getByRole('button', { name: 'Your name: Ada' })).toBeVisible();

    await page.getByRole('button', { name: 'Your name: Ada' }).click();
    await page.getByRole('textbox', { name: 'Your name' }).fill('Grace');
    await page.getByRole('textbox', { name: 'Your name' }).press('Escape');
    await expect(page.getByRole('button', { name: 'Your name: Ada' })).toBeVisible();

    await page.reload();
    await expect(page.getByRole('button', { name: 'Your name: Ada' })).toBeVisible();
    expect(await page.evaluate(() => localStorage.getItem('tally:guestName'))).toBe('Ada');
  });
});
