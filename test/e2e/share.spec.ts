import { MESSAGES } from '../../src/shared/messages.js';
import {
  baseUrl,
  expect,
  openGroup,
  seedGroup,
  test,
  watchTextDuration,
} from './support/fixtures.js';

test.describe('share link', () => {
  test('Share URL copies the group link and reads Copied! for 2 s', async ({ page, context }) => {
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseUrl() });
    const { name, key } = await seedGroup();
    await openGroup(page, name, key);
    const durations = await watchTextDuration(page, MESSAGES.copied);
    await page.getByRole('button', { name: 'Share URL' }).click();
    await expect(page.getByRole('button', { name: MESSAGES.copied })).toBeVisible();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(
      `${baseUrl()}/${name}?key=${key}`,
    );
    await expect(page.getByRole('button', { name: 'Share URL' })).toBeVisible({ timeout: 4_000 });
    const [shown] = await durations();
    expect(shown).toBeGreaterThanOrEqual(1_950);
    expect(shown).toBeLessThan(3_000);
  });

  test('a refused copy shows the copy error for 3 s', async ({ page }) => {
    await page.addInitScript(() => {
      Object.defineProperty(navigator, 'clipboard', {
        value: { writeText: () => Promise.reject(new Error('denied')) },
      });
    });
    const { name, key } = await seedGroup();
    await openGroup(page, name, key);
    const durations = await watchTextDuration(page, MESSAGES.copyFailed);
    await page.getByRole('button', { name: 'Share URL' }).click();
    await expect(page.getByText(MESSAGES.copyFailed)).toBeVisible();
    await expect(page.getByText(MESSAGES.copyFailed)).toBeHidden({ timeout: 5_000 });
    const [shown] = await durations();
    expect(shown).toBeGreaterThanOrEqual(2_950);
    expect(shown).toBeLessThan(4_000);
  });
});
