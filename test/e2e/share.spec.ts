import jsqr from 'jsqr';
import { PNG } from 'pngjs';
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

// jsqr is CommonJS typed as an ES module: its function is `.default` under NodeNext typing (and
// at run time both ways).
const jsQR = jsqr.default;

test.describe('share dialog with a QR code', () => {
  test('Show QR code opens a dialog whose QR code decodes to the group link with its key', async ({
    page,
  }) => {
    const { name, key } = await seedGroup();
    await openGroup(page, name, key);
    const link = `${baseUrl()}/${name}?key=${key}`;
    await page.getByRole('button', { name: 'Show QR code' }).click();
    const dialog = page.getByRole('dialog', { name: 'Share this group' });
    await expect(dialog).toBeVisible();
    const qr = dialog.getByRole('img', { name: 'QR code of the full access link' });
    await expect(qr).toBeVisible();
    // What a phone camera would see: the rendered pixels, decoded by an independent reader.
    const image = PNG.sync.read(await qr.screenshot());
    const decoded = jsQR(new Uint8ClampedArray(image.data), image.width, image.height);
    expect(decoded?.data).toBe(link);
    await expect(dialog.getByText(link, { exact: true })).toBeVisible();
  });

  test('the dialog copies the link, reads Copied!, and closes with Escape back to its button', async ({
    page,
    context,
  }) => {
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseUrl() });
    const { name, key } = await seedGroup();
    await openGroup(page, name, key);
    const opener = page.getByRole('button', { name: 'Show QR code' });
    await opener.focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Share this group' });
    // Focus starts on the copy button: Enter copies straight away.
    await expect(dialog.getByRole('button', { name: 'Copy link' })).toBeFocused();
    await page.keyboard.press('Enter');
    await expect(dialog.getByRole('button', { name: MESSAGES.copied })).toBeVisible();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(
      `${baseUrl()}/${name}?key=${key}`,
    );
    await expect(dialog.getByRole('button', { name: 'Copy link' })).toBeVisible({
      timeout: 4_000,
    });
    await page.keyboard.press('Escape');
    await expect(dialog).toBeHidden();
    await expect(opener).toBeFocused();
  });

  test('the QR encoder is downloaded only when the dialog opens', async ({ page }) => {
    const fetched: string[] = [];
    page.on('request', (request) => {
      fetched.push(new URL(request.url()).pathname);
    });
    const { name, key } = await seedGroup();
    await openGroup(page, name, key);
    // The dialog's own chunk is prefetched when the page is idle; the encoder must not be.
    await expect
      .poll(() => fetched.some((path) => /\/ShareDialog-[^/]*\.js$/.test(path)))
      .toBe(true);
    expect(fetched.filter((path) => /\/qr-[^/]*\.js$/.test(path))).toEqual([]);
    await page.getByRole('button', { name: 'Show QR code' }).click();
    await expect(page.getByRole('img', { name: 'QR code of the full access link' })).toBeVisible();
    expect(fetched.filter((path) => /\/qr-[^/]*\.js$/.test(path))).toHaveLength(1);
  });
});
