/**
 * Languages (docs/product.md#languages, ADR 35): the browser's preference on a first visit, the
 * menu that switches the page at once and is remembered, `&lang=` on a display link, a switch that
 * keeps the live connection and the taps waiting, and Arabic laid out right to left.
 * TALLY_SCREENSHOTS=1 also writes docs/screenshots/lang-*.png.
 */
import type { Page } from '@playwright/test';
import {
  api,
  counterCard,
  counterValue,
  expect,
  openGroup,
  seedGroup,
} from './support/fixtures.js';
import { goOffline, goOnline, test } from './support/network.js';
import { seriousA11yFindings } from './support/a11y.js';
import { useTheme } from './support/members.js';
import { screenshotPath, screenshotsWanted } from './support/screenshots.js';

const languageMenu = (page: Page) => page.getByTestId('app-bar').getByRole('combobox');

async function pageLanguage(page: Page): Promise<{ lang: string; dir: string }> {
  return page.evaluate(() => ({
    lang: document.documentElement.lang,
    dir: document.documentElement.dir,
  }));
}

test.describe('languages', () => {
  test.use({ locale: 'de-DE' });

  test("a first visit speaks the browser's language; the menu switches at once and is remembered", async ({
    page,
  }) => {
    await page.goto('/');
    await expect(page.getByRole('button', { name: 'Gruppe erstellen' })).toBeVisible();
    await expect(page.getByLabel('Eindeutiger Gruppenname')).toBeVisible();
    expect(await pageLanguage(page)).toEqual({ lang: 'de', dir: 'ltr' });
    await expect(languageMenu(page)).toHaveAccessibleName('Sprache');

    // No reload: what this page holds (a typed name) is still there after the switch.
    await page.getByLabel('Eindeutiger Gruppenname').fill('Game Night');
    await languageMenu(page).selectOption('en');
    await expect(page.getByRole('button', { name: 'Create Group' })).toBeVisible();
    await expect(page.getByLabel('Unique Group Name')).toHaveValue('Game Night');
    expect(await pageLanguage(page)).toEqual({ lang: 'en', dir: 'ltr' });

    await page.reload();
    await expect(page.getByRole('button', { name: 'Create Group' })).toBeVisible();
    await expect(languageMenu(page)).toHaveValue('en');

    await languageMenu(page).selectOption('ar');
    await expect(page.getByRole('button', { name: 'إنشاء مجموعة' })).toBeVisible();
    expect(await pageLanguage(page)).toEqual({ lang: 'ar', dir: 'rtl' });
    expect(await seriousA11yFindings(page)).toEqual([]);
  });

  test('a language change keeps the live connection and the taps waiting', async ({
    page,
    context,
    network,
  }) => {
    const sockets: string[] = [];
    page.on('websocket', (socket) => sockets.push(socket.url()));
    const { name, key } = await seedGroup([{ name: 'Laps' }]);
    await page.addInitScript(() => {
      localStorage.setItem('tally:lang', 'en');
    });
    await openGroup(page, name, key);
    const card = counterCard(page, 'Laps');
    await card.getByRole('button', { name: 'Increment by 1' }).click();
    await expect.poll(async () => (await api.counters(name, key))[0]?.value).toBe(1);

    await languageMenu(page).selectOption('de');
    await expect(page.getByRole('status').filter({ hasText: 'Live' })).toBeVisible();
    expect(sockets).toHaveLength(1);

    await goOffline(page, network);
    await card.getByRole('button', { name: 'Increment by 1' }).click();
    await card.getByRole('button', { name: 'Increment by 1' }).click();
    await expect(page.getByTestId('changes-waiting')).toHaveText('2 Änderungen warten');
    await languageMenu(page).selectOption('fr');
    await expect(page.getByTestId('changes-waiting')).toHaveText('2 modifications en attente');
    await expect(counterValue(card)).toHaveText('3');

    await goOnline(context, network);
    await expect
      .poll(async () => (await api.counters(name, key))[0]?.value, { timeout: 15_000 })
      .toBe(3);
    await expect(page.getByTestId('changes-waiting')).toBeHidden();
  });

  test('&lang=de on a display link shows German, for that page only', async ({ page }) => {
    const { name, key } = await seedGroup([]);
    await page.addInitScript(() => {
      localStorage.setItem('tally:lang', 'en');
    });
    await page.goto(`/${name}/display?key=${key}&lang=de`);
    await expect(page.getByText('Noch keine Zähler')).toBeVisible({ timeout: 15_000 });
    expect(await pageLanguage(page)).toEqual({ lang: 'de', dir: 'ltr' });
    expect(await page.evaluate(() => localStorage.getItem('tally:lang'))).toBe('en');
  });

  test('Arabic is laid out right to left: the bar and the card mirrored', async ({ page }) => {
    const { name, key } = await seedGroup([{ name: 'Laps', value: 1234 }]);
    const positions = async () => {
      const card = counterCard(page, 'Laps');
      const x = async (locator: ReturnType<Page['locator']>) =>
        ((await locator.boundingBox()) ?? { x: Number.NaN }).x;
      return {
        minus: await x(card.getByRole('button', { name: /^Decrement by/ })),
        plus: await x(card.getByRole('button', { name: /^Increment by/ })),
        menu: await x(languageMenu(page)),
        brand: await x(page.getByTestId('app-bar').getByRole('link').first()),
      };
    };
    await page.setViewportSize({ width: 390, height: 844 });
    await page.addInitScript(() => {
      localStorage.setItem('tally:lang', 'en');
    });
    await openGroup(page, name, key);
    const english = await positions();
    expect(english.minus).toBeLessThan(english.plus);
    expect(english.brand).toBeLessThan(english.menu);

    await languageMenu(page).selectOption('ar');
    await expect(page.locator('html')).toHaveAttribute('dir', 'rtl');
    const arabic = await positions();
    expect(arabic.minus).toBeGreaterThan(arabic.plus);
    expect(arabic.brand).toBeGreaterThan(arabic.menu);
    expect(await seriousA11yFindings(page)).toEqual([]);
  });
});

/** The page opens in `locale` (what the menu stores). */
async function useLanguage(page: Page, locale: string): Promise<void> {
  await page.addInitScript((value) => {
    localStorage.setItem('tally:lang', value);
  }, locale);
}

const sideways = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

test.describe('each screen in Arabic, Japanese and German', () => {
  const SIZES = { phone: { width: 360, height: 780 }, desktop: { width: 1280, height: 800 } };
  for (const locale of ['ar', 'ja', 'de']) {
    for (const theme of ['light', 'dark'] as const) {
      for (const [size, viewport] of Object.entries(SIZES)) {
        test(`${locale}, ${theme}, ${size}: nothing wider than the screen, axe clean`, async ({
          page,
        }) => {
          const { name, key } = await seedGroup([
            { name: 'Visitors', value: 1840, max: 2000, section: 'Hall' },
            { name: 'Water', value: 6, goal: 8 },
          ]);
          await useTheme(page, theme);
          await useLanguage(page, locale);
          await page.setViewportSize(viewport);
          const screens = [
            { screen: 'landing', url: '/' },
            { screen: 'group', url: `/${name}?key=${key}` },
            { screen: 'display', url: `/${name}/display?key=${key}` },
          ];
          for (const { screen, url } of screens) {
            await page.goto(url);
            await expect(page.locator('html')).toHaveAttribute('lang', locale);
            if (screen !== 'landing') {
              await expect(
                page.getByTestId('display-counter').or(counterCard(page, 'Water')).first(),
              ).toBeVisible({ timeout: 15_000 });
            }
            expect(await sideways(page), screen).toBeLessThanOrEqual(0);
            if (size === 'phone') expect(await seriousA11yFindings(page), screen).toEqual([]);
            if (screenshotsWanted) {
              await page.screenshot({
                path: screenshotPath(`lang-${screen}-${locale}-${size}-${theme}.png`),
                fullPage: true,
              });
            }
          }
        });
      }
    }
  }
});

test('the pseudo-locale (longer, accented English) overflows nothing at 360 px', async ({
  page,
}) => {
  const { name, key } = await seedGroup([
    { name: 'Visitors', value: 1840, max: 2000, section: 'Hall' },
    { name: 'Water', value: 6, goal: 8 },
  ]);
  await page.setViewportSize({ width: 360, height: 780 });
  for (const url of [
    '/?lang=en-XA',
    `/${name}?key=${key}&lang=en-XA`,
    `/${name}/display?key=${key}&lang=en-XA`,
  ]) {
    await page.goto(url);
    await expect(page.locator('html')).toHaveAttribute('lang', 'en-XA');
    await expect(page.getByTestId('app-bar')).toBeVisible();
    if (url !== '/?lang=en-XA') {
      await expect(
        page.getByTestId('display-counter').or(counterCard(page, 'Water')).first(),
      ).toBeVisible({ timeout: 15_000 });
    }
    expect(await sideways(page), url).toBeLessThanOrEqual(0);
  }
  // The text is the pseudo-locale's, not English: the submit button says something else.
  await page.goto('/?lang=en-XA');
  const submit = page.locator('form button[type="submit"]');
  await expect(submit).toHaveText(/\p{L}{4}/u);
  await expect(submit).not.toHaveText('Create Group');
});
