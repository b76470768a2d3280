/**
 * Languages (docs/product.md#languages, ADR 35): the browser's preference on a first visit, the
 * menu that switches the page at once and is remembered, `&lang=` on a display link, a switch that
 * keeps the live connection and the taps waiting, and Arabic laid out right to left.
 * TALLY_SCREENSHOTS=1 also writes .tmp/screenshots/lang-*.png.
 */
import type { Page } from '@playwright/test';
import {
  api,
  counterCard,
  expect,
  openGroup,
  seedGroup,
  seedTapLinkAndAlert,
} from './support/fixtures.js';
import { goOffline, goOnline, test, waitForServiceWorker } from './support/network.js';
import { seriousA11yFindings } from './support/a11y.js';
import { useTheme } from './support/members.js';
import { screenshotPath, screenshotsWanted } from './support/screenshots.js';
import { clippedIn, sideways } from './support/layout.js';

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

    // Offline, the next language comes from the service worker's cache: wait until it has one.
    await waitForServiceWorker(page);
    await goOffline(page, network);
    await card.getByRole('button', { name: 'Um 1 erhöhen' }).click();
    await card.getByRole('button', { name: 'Um 1 erhöhen' }).click();
    await expect(page.getByTestId('changes-waiting')).toHaveText('2 Änderungen warten');
    await languageMenu(page).selectOption('fr');
    await expect(page.getByTestId('changes-waiting')).toHaveText('2 modifications en attente');
    await expect(card.getByRole('button', { name: /^Valeur du compteur: / })).toHaveText('3');

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

  test("the share dialog's display link carries the member's language; a TV opening it speaks it", async ({
    page,
    context,
  }) => {
    const { name, key } = await seedGroup([{ name: 'Laps' }]);
    await openGroup(page, name, key);
    await page.getByRole('button', { name: 'QR-Code zeigen' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('tab', { name: 'Anzeige' }).click();
    const link = dialog.getByRole('link', { name: 'Anzeige öffnen' });
    await expect(link).toHaveAttribute('href', new RegExp(`/display\\?key=${key}&lang=de$`));

    // A screen that has never chosen a language: the link's is the one it shows.
    const tv = await context.browser()?.newContext({ locale: 'en-US' });
    if (!tv) throw new Error('no browser');
    const screen = await tv.newPage();
    await screen.goto((await link.getAttribute('href')) ?? '');
    await expect(screen.getByTestId('display-counter')).toBeVisible({ timeout: 15_000 });
    await expect(screen.locator('html')).toHaveAttribute('lang', 'de');
    await tv.close();
  });

  test('Arabic is laid out right to left: the bar and the card mirrored', async ({ page }) => {
    const { name, key } = await seedGroup([{ name: 'Laps', value: 1234 }]);
    const positions = async () => {
      const card = counterCard(page, 'Laps');
      const x = async (locator: ReturnType<Page['locator']>) =>
        ((await locator.boundingBox()) ?? { x: Number.NaN }).x;
      return {
        minus: await x(card.getByRole('button', { name: /^(Decrement by|إنقاص بمقدار)/ })),
        plus: await x(card.getByRole('button', { name: /^(Increment by|زيادة بمقدار)/ })),
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

test.describe('each screen in Arabic, Japanese and German', () => {
  // Three screens, each with an axe run, on a shared machine.
  test.describe.configure({ timeout: 60_000 });
  const SIZES = {
    phone: { width: 360, height: 780 },
    desktop: { width: 1280, height: 800 },
    tv: { width: 1920, height: 1080 },
  };
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
          ] as const;
          for (const { screen, url } of screens) {
            await page.goto(url);
            await expect(page.locator('html')).toHaveAttribute('lang', locale);
            // What each screen shows once its chunks are in: the form, a card, a counter.
            const shown = {
              landing: page.locator('form button[type="submit"]'),
              group: counterCard(page, 'Water'),
              display: page.getByTestId('display-counter').first(),
            }[screen];
            await expect(shown).toBeVisible({ timeout: 15_000 });
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

test('the pseudo-locale clips nothing in the dialogs at 360 px', async ({ page }) => {
  const { name, key } = await seedGroup([
    { name: 'Visitors', value: 1840, max: 2000, section: 'Hall' },
    { name: 'Water', value: 6, goal: 8 },
  ]);
  await page.setViewportSize({ width: 360, height: 780 });
  await page.goto(`/${name}?key=${key}&lang=en-XA`);
  await expect(counterCard(page, 'Water')).toBeVisible({ timeout: 15_000 });
  const clipped = () => clippedIn(page, 'dialog[open]');
  // The header's dialogs (share, group settings), then the keys help.
  const openers = page.locator('.group-actions button[aria-haspopup="dialog"]');
  await expect(openers).toHaveCount(2);
  for (let index = 0; index < (await openers.count()); index += 1) {
    await openers.nth(index).click();
    await expect(page.locator('dialog[open]')).toBeVisible();
    expect(await clipped()).toEqual([]);
    expect(await sideways(page)).toBeLessThanOrEqual(0);
    await page.keyboard.press('Escape');
    await expect(page.locator('dialog[open]')).toHaveCount(0);
  }
  await page.keyboard.press('?');
  await expect(page.getByTestId('keys-help')).toBeVisible();
  expect(await clipped()).toEqual([]);
});

test('the pseudo-locale clips nothing in the activity panel, the tap links and the alerts at 360 px', async ({
  page,
}) => {
  test.setTimeout(60_000);
  const { name, key } = await seedGroup([
    { name: 'Visitors', value: 1840, max: 2000, section: 'Hall' },
    { name: 'Water', value: 6, goal: 8 },
  ]);
  const [visitors] = await api.counters(name, key);
  if (visitors) await api.increment(name, key, visitors.id, 3);
  await seedTapLinkAndAlert(name, key);
  await page.setViewportSize({ width: 360, height: 780 });
  await page.goto(`/${name}?key=${key}&lang=en-XA`);
  await expect(counterCard(page, 'Water')).toBeVisible({ timeout: 15_000 });

  // The activity panel and its log.
  await page.locator('.activity-btn').click();
  const panel = page.locator('.activity-panel');
  await expect(panel.getByRole('listitem').first()).toBeVisible({ timeout: 10_000 });
  expect(await clippedIn(page, '.activity-panel')).toEqual([]);
  expect(await sideways(page)).toBeLessThanOrEqual(0);
  await page.keyboard.press('Escape');
  await expect(panel).toHaveCount(0);

  // The share dialog's Tap links tab, with the link made above.
  const openers = page.locator('.group-actions button[aria-haspopup="dialog"]');
  await openers.nth(0).click();
  const share = page.locator('dialog[open]');
  await share.getByRole('tab').last().click();
  await expect(share.locator('.tap-link-row')).toHaveCount(1, { timeout: 10_000 });
  expect(await clippedIn(page, 'dialog[open]')).toEqual([]);
  expect(await sideways(page)).toBeLessThanOrEqual(0);
  await page.keyboard.press('Escape');
  await expect(page.locator('dialog[open]')).toHaveCount(0);

  // Group settings, then its alerts, with the rule added above and the form open.
  await openers.nth(1).click();
  await page.locator('dialog[open] button[aria-haspopup="dialog"]').first().click();
  const alerts = page.locator('dialog[open]').filter({ has: page.getByTestId('alert-limits') });
  await expect(alerts.getByTestId('alert-limits')).toBeVisible({ timeout: 10_000 });
  await expect(alerts.locator('.state-badge')).toHaveCount(1);
  expect(await clippedIn(page, 'dialog[open]')).toEqual([]);
  expect(await sideways(page)).toBeLessThanOrEqual(0);
  // Add alert, the one secondary button under the rules.
  await alerts.locator('button.btn-secondary.mt-4').click();
  await expect(alerts.locator('form')).toBeVisible();
  expect(await clippedIn(page, 'dialog[open]')).toEqual([]);
  expect(await sideways(page)).toBeLessThanOrEqual(0);
  // The text is the pseudo-locale's: the badge is not the English word.
  await expect(alerts.locator('.state-badge')).not.toHaveText('New');
});

test("Russian, whose tab names are the longest, clips none of the share dialog's tabs at 360 px", async ({
  page,
}) => {
  const { name, key } = await seedGroup([{ name: 'Water', value: 6, goal: 8 }]);
  await page.setViewportSize({ width: 360, height: 780 });
  await page.goto(`/${name}?key=${key}&lang=ru`);
  await expect(counterCard(page, 'Water')).toBeVisible({ timeout: 15_000 });
  await page.locator('.group-actions button[aria-haspopup="dialog"]').first().click();
  await expect(page.locator('dialog[open] [role="tab"]')).toHaveCount(4);
  expect(await clippedIn(page, 'dialog[open] [role="tablist"]')).toEqual([]);
  expect(await sideways(page)).toBeLessThanOrEqual(0);
});
