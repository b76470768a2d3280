/**
 * The counter card in everyday use, at a phone's, a tablet's, a desktop's and a TV's width: the
 * name has the card's width and wraps only between words, the edit box is as wide as what it
 * edits, the less frequent actions sit behind one menu, and the −/+ rows of a grid row line up.
 */
import type { Locator, Page } from '@playwright/test';
import type { Counter } from '../../src/shared/api.js';
import { seriousA11yFindings } from './support/a11y.js';
import {
  cardAction,
  counterCard,
  counterValue,
  expect,
  imagesUrl,
  openGroup,
  SCREEN_SIZES,
  seedGroup,
  startInTheme,
  test,
} from './support/fixtures.js';
import { screenshotPath, screenshotsWanted } from './support/screenshots.js';

const WIDTHS = [360, 768, 1280, 1920] as const;
const LONG_NAME = 'Temporary visitors at the registration desk';

/**
 * Cards that hold different lines above and below their −/+ row, in an order where each grid row
 * mixes them in two and in three columns (Coffees gets a pace line in the test).
 */
function variedCounters(): Partial<Counter>[] {
  return [
    { name: 'Laps' },
    { name: 'Push-ups', value: 40, goal: 100, incrementStep: 10 },
    { name: LONG_NAME, description: 'Everyone who signs in at the front door before noon today' },
    { name: 'Hall', value: 29, max: 30, incrementStep: 5 },
    { name: 'Tickets', value: 3, min: 0, reset: 'daily' },
    { name: 'Coffees', value: 12 },
  ];
}

/**
 * Words of the element's text laid out on more than one line (a word cut in two, "Temporar / y"),
 * and how many lines the whole text takes.
 */
async function brokenWords(target: Locator): Promise<{ broken: string[]; lines: number }> {
  return target.evaluate((element) => {
    const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
    const broken: string[] = [];
    const tops = new Set<number>();
    for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
      const text = node.textContent ?? '';
      for (const match of text.matchAll(/\S+/g)) {
        const range = document.createRange();
        range.setStart(node, match.index);
        range.setEnd(node, match.index + match[0].length);
        const rowTops = new Set([...range.getClientRects()].map((rect) => Math.round(rect.top)));
        if (rowTops.size > 1) broken.push(match[0]);
        for (const top of rowTops) tops.add(top);
      }
    }
    return { broken, lines: tops.size };
  });
}

async function box(target: Locator) {
  const found = await target.boundingBox();
  if (found === null) throw new Error('not laid out');
  return found;
}

/** The width of an element's text as laid out (its widest line), px. */
async function textWidth(target: Locator): Promise<number> {
  return target.evaluate((element) => {
    const range = document.createRange();
    range.selectNodeContents(element);
    return Math.max(...[...range.getClientRects()].map((rect) => rect.width));
  });
}

test.describe('the counter card', () => {
  for (const width of WIDTHS) {
    test(`the name has most of the card's width and wraps only between words (${width} px)`, async ({
      page,
    }) => {
      await page.setViewportSize({ width, height: 900 });
      const { name, key } = await seedGroup([
        { name: LONG_NAME, thumbnailUrl: `${imagesUrl()}/ok.png` },
        { name: 'Temporary' },
        { name: 'Registrations' },
      ]);
      await openGroup(page, name, key);
      for (const counter of [LONG_NAME, 'Temporary', 'Registrations']) {
        const card = counterCard(page, counter);
        const title = card.getByRole('heading', { level: 2 });
        expect((await brokenWords(title)).broken, counter).toEqual([]);
        // The thumbnail and the one menu button leave the name at least half the card's width.
        expect((await box(title)).width / (await box(card)).width, counter).toBeGreaterThan(0.5);
        // The description's placeholder is one line.
        const placeholder = card.getByRole('button', { name: 'Description: Add a description...' });
        expect((await brokenWords(placeholder)).lines, counter).toBe(1);
      }
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
        width,
      );
    });
  }

  for (const width of [360, 1280]) {
    test(`the edit box of the name, the description and the value is as wide as its text (${width} px)`, async ({
      page,
    }) => {
      await page.setViewportSize({ width, height: 900 });
      const { name, key } = await seedGroup([
        {
          name: 'Temporary visitors',
          description: 'Signed in at the desk',
          value: 123456,
          thumbnailUrl: `${imagesUrl()}/ok.png`,
        },
      ]);
      await openGroup(page, name, key);
      const card = counterCard(page, 'Temporary visitors');
      for (const [shown, label, sameFont] of [
        [card.getByRole('button', { name: /^Counter name: / }), 'Counter name', true],
        [card.getByRole('button', { name: /^Description: / }), 'Description', true],
        // The number is edited in a smaller font than it is shown in.
        [counterValue(card), 'Counter value', false],
      ] as const) {
        const before = await textWidth(shown);
        await shown.click();
        const input = card.getByRole('textbox', { name: label, exact: true });
        await expect(input).toBeFocused();
        if (sameFont) expect((await box(input)).width, label).toBeGreaterThanOrEqual(before);
        // All of the text shows inside the box, none of it scrolled out of sight either way.
        const fits = await input.evaluate(
          (element) =>
            element.scrollWidth <= element.clientWidth &&
            element.scrollHeight <= element.clientHeight,
        );
        expect(fits, label).toBe(true);
        await input.press('Escape');
      }
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
        width,
      );
    });
  }

  for (const width of [768, 1280, 1920]) {
    test(`the −/+ rows of the cards in a grid row are at the same height (${width} px)`, async ({
      page,
    }) => {
      await page.setViewportSize({ width, height: 1000 });
      const { name, key } = await seedGroup(variedCounters());
      await openGroup(page, name, key);
      // A pace line under one card's buttons: it counts a few times now.
      const coffees = counterCard(page, 'Coffees');
      for (let i = 0; i < 3; i += 1) {
        await coffees.getByRole('button', { name: 'Increment by 1' }).click();
      }
      await expect(coffees.getByTestId('pace')).toBeVisible();
      const rows = new Map<number, number[]>();
      for (const counter of variedCounters()) {
        const card = counterCard(page, counter.name ?? '');
        const top = Math.round((await box(card)).y);
        const plus = await box(card.getByRole('button', { name: /^Increment by/ }));
        rows.set(top, [...(rows.get(top) ?? []), Math.round(plus.y)]);
      }
      expect([...rows.values()].some((ys) => ys.length > 1)).toBe(true);
      for (const ys of rows.values())
        expect(new Set(ys).size, `−/+ rows at ${ys.join(', ')}`).toBe(1);
    });
  }

  test('the less frequent actions are one menu: arrows move, Escape returns, a click outside closes', async ({
    page,
  }) => {
    const { name, key } = await seedGroup([{ name: 'Laps', value: 5 }, { name: 'Coffees' }]);
    await openGroup(page, name, key);
    const card = counterCard(page, 'Laps');
    const button = card.getByRole('button', { name: 'Counter actions' });
    await expect(button).toHaveAttribute('aria-haspopup', 'menu');
    await expect(button).toHaveAttribute('aria-expanded', 'false');
    // Only the menu button and the thumbnail are above the name's right: no row of icons.
    await expect(card.getByRole('button', { name: 'Delete counter' })).toHaveCount(0);

    await button.click();
    const menu = card.getByRole('menu', { name: 'Counter actions' });
    await expect(button).toHaveAttribute('aria-expanded', 'true');
    await expect(menu.getByRole('menuitem')).toHaveText([
      'Goal and limits',
      'Count with a note…',
      'Focus mode',
      'History',
      'Delete counter',
    ]);
    const item = (label: string) => menu.getByRole('menuitem', { name: label });
    await expect(item('Goal and limits')).toBeFocused();
    await page.keyboard.press('ArrowDown');
    await expect(item('Count with a note…')).toBeFocused();
    await page.keyboard.press('End');
    await expect(item('Delete counter')).toBeFocused();
    await page.keyboard.press('ArrowDown');
    await expect(item('Goal and limits')).toBeFocused();
    await page.keyboard.press('ArrowUp');
    await expect(item('Delete counter')).toBeFocused();
    await page.keyboard.press('Escape');
    await expect(menu).toHaveCount(0);
    await expect(button).toBeFocused();
    await expect(button).toHaveAttribute('aria-expanded', 'false');

    // From the keyboard: ArrowUp opens it on its last entry; the arrows never count.
    await page.keyboard.press('1');
    await button.focus();
    await page.keyboard.press('ArrowUp');
    await expect(item('Delete counter')).toBeFocused();
    for (let press = 0; press < 4; press += 1) await page.keyboard.press('ArrowUp');
    await expect(item('Goal and limits')).toBeFocused();
    await expect(counterValue(card)).toHaveText('5');

    // A click elsewhere closes it.
    await page.getByRole('heading', { name: 'Coffees' }).click();
    await expect(menu).toHaveCount(0);

    // An entry opens its dialog; closing the dialog gives focus back to the menu button.
    await cardAction(card, 'Goal and limits');
    const dialog = page.getByRole('dialog', { name: 'Goal and limits' });
    await expect(dialog).toBeVisible();
    await page.keyboard.press('Escape');
    await expect(dialog).toBeHidden();
    await expect(button).toBeFocused();

    // History opens the same chart as the button beside the sparkline.
    await cardAction(card, 'History');
    const history = page.getByRole('dialog', { name: 'History of Laps' });
    await expect(history).toBeVisible();
    await page.keyboard.press('Escape');
    await expect(history).toBeHidden();
  });

  for (const theme of ['light', 'dark'] as const) {
    test(`axe finds nothing serious on the cards and the open menu (${theme})`, async ({
      page,
    }) => {
      // Two full axe runs over six cards: 8 to 13 s each on a busy two-core machine.
      test.setTimeout(60_000);
      await startInTheme(page, theme);
      const { name, key } = await seedGroup(variedCounters());
      await openGroup(page, name, key);
      expect(await seriousA11yFindings(page)).toEqual([]);
      await counterCard(page, 'Hall').getByRole('button', { name: 'Counter actions' }).click();
      await expect(page.getByRole('menu')).toBeVisible();
      expect(await seriousA11yFindings(page)).toEqual([]);
    });
  }
});

/** Pictures of the card to look at: the grid, a name being edited and the open menu. */
test.describe('card screenshots', () => {
  test.skip(!screenshotsWanted, 'only when TALLY_SCREENSHOTS=1');
  for (const [size, viewport] of Object.entries(SCREEN_SIZES)) {
    for (const theme of ['light', 'dark'] as const) {
      test(`${size}, ${theme}`, async ({ page }) => {
        await page.setViewportSize(viewport);
        await startInTheme(page, theme);
        const { name, key } = await seedGroup(variedCounters(), 'card-look');
        await openGroup(page, name, key);
        await shoot(page, `card-grid-${size}-${theme}.png`);
        const card = counterCard(page, LONG_NAME);
        await card.getByRole('button', { name: /^Counter name: / }).click();
        await shoot(page, `card-editing-${size}-${theme}.png`, card);
        await page.keyboard.press('Escape');
        const hall = counterCard(page, 'Hall');
        await hall.getByRole('button', { name: 'Counter actions' }).click();
        await expect(hall.getByRole('menu')).toBeVisible();
        await shoot(page, `card-menu-${size}-${theme}.png`, hall);
      });
    }
  }
});

/** The viewport, scrolled so `around` (when given) is in the middle of it. */
async function shoot(page: Page, file: string, around?: Locator): Promise<void> {
  if (around) {
    await around.evaluate((element) => {
      element.scrollIntoView({ block: 'center' });
    });
  }
  await page.screenshot({ path: screenshotPath(file) });
}
