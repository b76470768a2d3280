/**
 * Counting without looking (docs/product.md#keys-and-clickers, docs/product.md#focus-mode): digits
 * select a counter, +/−, arrows and a clicker's Page Up/Down count on it (checked on the server),
 * never while a field is being edited nor on a view-only link; `?` lists the keys; focus mode
 * counts full screen and shows other members' taps live. Real server, Chromium.
 */
import {
  api,
  baseUrl,
  cardAction,
  counterCard,
  counterValue,
  expect,
  openGroup,
  seedGroup,
  test,
} from './support/fixtures.js';
import { memberPage } from './support/members.js';
import { seriousA11yFindings } from './support/a11y.js';
import { screenshotPath, screenshotsWanted } from './support/screenshots.js';

const PHONE = { width: 360, height: 780 };
const DESKTOP = { width: 1280, height: 900 };
const TV = { width: 1920, height: 1080 };

async function serverValues(name: string, key: string): Promise<Record<string, number>> {
  const counters = await api.counters(name, key);
  return Object.fromEntries(counters.map((c) => [c.name, c.value]));
}

test('keys select and count the right counter on the server, not while editing a field', async ({
  page,
}) => {
  const { name, key } = await seedGroup([
    { name: 'Coffees', value: 12, incrementStep: 2, decrementStep: 1 },
    { name: 'Teas', value: 5 },
    { name: 'Waters', value: 0 },
  ]);
  await openGroup(page, name, key);

  // Nothing selected yet: counting keys do nothing.
  await page.keyboard.press('+');
  await page.keyboard.press('2');
  await expect(page.getByTestId('key-announcer')).toHaveText('Selected Teas, 5');
  await expect(counterCard(page, 'Teas')).toHaveAttribute('data-key-selected', '');
  await page.keyboard.press('+');
  await page.keyboard.press('=');
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press('PageUp');
  await page.keyboard.press('PageDown');
  await expect.poll(() => serverValues(name, key)).toEqual({ Coffees: 12, Teas: 8, Waters: 0 });

  await page.keyboard.press('1');
  await expect(page.getByTestId('key-announcer')).toHaveText('Selected Coffees, 12');
  await expect(counterCard(page, 'Teas')).not.toHaveAttribute('data-key-selected');
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press('-');
  await page.keyboard.press('ArrowDown');
  await expect.poll(() => serverValues(name, key)).toEqual({ Coffees: 12, Teas: 8, Waters: 0 });
  await page.keyboard.press('PageUp');
  await expect.poll(() => serverValues(name, key)).toEqual({ Coffees: 14, Teas: 8, Waters: 0 });

  // Editing a field: the keys are the field's.
  await counterValue(counterCard(page, 'Waters')).click();
  const field = counterCard(page, 'Waters').getByRole('textbox');
  await expect(field).toBeFocused();
  await field.press('3');
  await field.press('+');
  await field.press('ArrowUp');
  await field.press('Escape');
  await page.keyboard.press('Control+=');
  // A tap through the buttons proves the page is live, and nothing else arrived meanwhile.
  await counterCard(page, 'Waters').getByRole('button', { name: 'Increment by 1' }).click();
  await expect.poll(() => serverValues(name, key)).toEqual({ Coffees: 14, Teas: 8, Waters: 1 });
});

test('keys pressed before keyboard counting has loaded still select and count', async ({
  page,
}) => {
  const { name, key } = await seedGroup([
    { name: 'Coffees', value: 12 },
    { name: 'Teas', value: 5 },
  ]);
  // Keyboard counting's chunk is held back until the keys are pressed: a slow network's case.
  let releaseChunk = (): void => undefined;
  const chunkHeld = new Promise<void>((resolve) => {
    releaseChunk = resolve;
  });
  await page.route('**/assets/KeyboardCounting-*.js', async (route) => {
    await chunkHeld;
    await route.continue();
  });
  await openGroup(page, name, key);
  await expect(page.getByTestId('key-announcer')).toHaveCount(0);
  await page.keyboard.press('2');
  await page.keyboard.press('+');
  await page.keyboard.press('+');
  releaseChunk();

  await expect(page.getByTestId('key-announcer')).toHaveText('Selected Teas, 5');
  await expect(counterValue(counterCard(page, 'Teas'))).toHaveText('7');
  await expect.poll(() => serverValues(name, key)).toEqual({ Coffees: 12, Teas: 7 });
});

test('a view-only link can select but not count', async ({ page }) => {
  const { name, key } = await seedGroup([{ name: 'Coffees', value: 12 }]);
  const response = await fetch(`${baseUrl()}/api/groups/${name}/view-key`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}` },
  });
  const { viewKey } = (await response.json()) as { viewKey: string };
  await openGroup(page, name, viewKey);
  await page.keyboard.press('1');
  await expect(page.getByTestId('key-announcer')).toHaveText('Selected Coffees, 12');
  await page.keyboard.press('+');
  await page.keyboard.press('f');
  await expect(page.getByTestId('focus-mode')).toHaveCount(0);
  await api.increment(name, key, (await api.counters(name, key))[0]?.id ?? '');
  await expect(counterCard(page, 'Coffees')).toContainText('13');
  expect(await serverValues(name, key)).toEqual({ Coffees: 13 });
});

test('focus mode counts on the server and shows another member’s taps live', async ({ page }) => {
  const { name, key, counters } = await seedGroup([
    { name: 'Coffees', value: 3 },
    { name: 'Door', value: 40, incrementStep: 1, decrementStep: 1 },
  ]);
  await openGroup(page, name, key);
  await page.evaluate(() => {
    (window as unknown as { vibrations: number }).vibrations = 0;
    navigator.vibrate = () => {
      (window as unknown as { vibrations: number }).vibrations++;
      return true;
    };
  });
  await cardAction(counterCard(page, 'Door'), 'Focus mode');
  const focus = page.getByRole('dialog', { name: 'Focus mode: Door' });
  await expect(focus).toBeVisible();
  const plus = focus.getByRole('button', { name: 'Increment Door by 1' });
  await expect(plus).toBeFocused();
  await plus.click();
  await plus.click({ position: { x: 10, y: 10 } });
  await plus.click();
  await focus.getByRole('button', { name: 'Decrement Door by 1' }).click();
  await expect(focus.getByTestId('focus-value')).toHaveText('42');
  await expect.poll(() => serverValues(name, key)).toEqual({ Coffees: 3, Door: 42 });
  expect(await page.evaluate(() => (window as unknown as { vibrations: number }).vibrations)).toBe(
    4,
  );
  // Keys count on the counter in focus too.
  await page.keyboard.press('PageUp');
  await expect.poll(() => serverValues(name, key)).toEqual({ Coffees: 3, Door: 43 });

  // Another member taps: it shows up live.
  await api.increment(name, key, counters[1]?.id ?? '', 5);
  await expect(focus.getByTestId('focus-value')).toHaveText('48');
  expect(await seriousA11yFindings(page)).toEqual([]);

  // Escape leaves focus mode, and the keys are the group screen's again.
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('focus-mode')).toHaveCount(0);
  await page.keyboard.press('?');
  const help = page.getByRole('dialog', { name: 'Keyboard and clickers' });
  await expect(help).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(help).toHaveCount(0);
  await expect(counterValue(counterCard(page, 'Door'))).toHaveAccessibleName('Counter value: 48');

  // And by key: 1 selects Coffees, f opens focus mode for it.
  await page.keyboard.press('1');
  await page.keyboard.press('f');
  await expect(page.getByRole('dialog', { name: 'Focus mode: Coffees' })).toBeVisible();
  await page.getByRole('button', { name: 'Close focus mode' }).click();
  await expect(page.getByTestId('focus-mode')).toHaveCount(0);
});

test('focus mode counts with touch on a 360 px phone', async ({ browser }) => {
  const { name, key } = await seedGroup([{ name: 'Door', value: 7 }]);
  const context = await browser.newContext({ viewport: PHONE, hasTouch: true, isMobile: true });
  const page = await context.newPage();
  await openGroup(page, name, key);
  await cardAction(counterCard(page, 'Door'), 'Focus mode', 'tap');
  const focus = page.getByRole('dialog', { name: 'Focus mode: Door' });
  const plus = focus.getByRole('button', { name: 'Increment Door by 1' });
  // Taps anywhere on the big area count, near its corners too; the smaller button takes away.
  await plus.tap({ position: { x: 20, y: 20 } });
  await plus.tap();
  await plus.tap({ position: { x: 300, y: 400 } });
  await focus.getByRole('button', { name: 'Decrement Door by 1' }).tap();
  await expect(focus.getByTestId('focus-value')).toHaveText('9');
  await expect.poll(() => serverValues(name, key)).toEqual({ Door: 9 });
  await context.close();
});

test.describe('help overlay and focus mode at phone, desktop and TV sizes, both themes', () => {
  for (const [size, viewport] of [
    ['phone', PHONE],
    ['desktop', DESKTOP],
    ['tv', TV],
  ] as const) {
    for (const theme of ['light', 'dark'] as const) {
      test(`axe clean and laid out: ${size}, ${theme}`, async ({ browser }) => {
        const { name, key, counters } = await seedGroup([
          { name: 'Coffees', value: 1284, goal: 1500 },
          { name: 'Teas', value: 5 },
        ]);
        const page = await memberPage(browser, 'Ada', { theme, viewport });
        await openGroup(page, name, key);
        await page.keyboard.press('?');
        const help = page.getByRole('dialog', { name: 'Keyboard and clickers' });
        await expect(help).toBeVisible();
        await expect(help).toContainText('Page Down');
        expect(await seriousA11yFindings(page)).toEqual([]);
        if (screenshotsWanted)
          await page.screenshot({ path: screenshotPath(`keys-help-${size}-${theme}.png`) });
        await page.keyboard.press('Escape');
        await expect(help).toHaveCount(0);

        await page.keyboard.press('1');
        await page.keyboard.press('f');
        const focus = page.getByRole('dialog', { name: 'Focus mode: Coffees' });
        await expect(focus.getByTestId('focus-value')).toHaveText('1284');
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
          viewport.width,
        );
        const box = await focus.getByRole('button', { name: /^Increment Coffees/ }).boundingBox();
        expect((box?.height ?? 0) * (box?.width ?? 0)).toBeGreaterThan(
          viewport.width * viewport.height * 0.5,
        );
        // Another member's burst: the pace and the forecast toward the goal show in focus mode.
        for (let i = 0; i < 6; i += 1) await api.increment(name, key, counters[0]?.id ?? '', 2);
        await expect(focus.getByTestId('focus-value')).toHaveText('1296');
        await expect(focus.getByTestId('pace')).toContainText('at this pace: reached in about');
        expect(await seriousA11yFindings(page)).toEqual([]);
        if (screenshotsWanted)
          await page.screenshot({ path: screenshotPath(`focus-${size}-${theme}.png`) });
        await page.context().close();
      });
    }
  }
});
