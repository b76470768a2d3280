/**
 * The display on a TV or a projector: every name of up to 20 characters whole on one line at
 * 1280×720 with 12 counters (and at 1920×1080), names and values at one height across a row of
 * tiles, and the group screen's order and sections.
 */
import type { Page } from '@playwright/test';
import { api, expect, openGroup, seedGroup, test } from './support/fixtures.js';
import { useTheme } from './support/members.js';
import { seriousA11yFindings } from './support/a11y.js';

async function openDisplay(page: Page, name: string, key: string): Promise<void> {
  await page.goto(`/${name}/display?key=${key}`);
  await expect(page.getByTestId('display-status')).toHaveText('Live', { timeout: 15_000 });
}

/** Twelve names of up to 20 characters, short and long, wide letters too, with mixed details. */
const TWELVE = [
  { name: 'Push-ups', goal: 100, value: 64 },
  { name: 'Temp', value: 3 },
  { name: 'Temporary workers', max: 40, value: 12 },
  { name: 'Visitors main hall', value: 1284 },
  { name: 'Wardrobe & Washrooms', value: 7 },
  { name: 'Mmmm Wide Names Here', min: 0, value: 5 },
  { name: 'Coffee', value: 37 },
  { name: 'Bikes parked outside', value: 19 },
  { name: 'Tickets sold at door', max: 500, value: 480 },
  { name: 'Volunteers on shift', value: 22 },
  { name: 'Lost & found items', value: 2 },
  { name: 'Ice creams', goal: 50, value: 50 },
];

/** Each tile's name: the text, whether it is cut, and how many lines it takes. */
function names(page: Page) {
  return page.locator('[data-display-name]').evaluateAll((nodes) =>
    nodes.map((node) => {
      const element = node as HTMLElement;
      const lineHeight = parseFloat(getComputedStyle(element).lineHeight);
      return {
        text: element.textContent,
        cut: element.scrollWidth > element.clientWidth,
        lines: Math.round(element.getBoundingClientRect().height / lineHeight),
        size: parseFloat(getComputedStyle(element).fontSize),
      };
    }),
  );
}

test.describe('display on a TV', () => {
  for (const viewport of [
    { width: 1280, height: 720 },
    { width: 1920, height: 1080 },
  ]) {
    test(`every name of up to 20 characters fits on one line with 12 counters at ${viewport.width}×${viewport.height}`, async ({
      page,
    }) => {
      await page.setViewportSize(viewport);
      const { name, key } = await seedGroup(TWELVE);
      await openDisplay(page, name, key);
      await expect(page.getByTestId('display-counter')).toHaveCount(12);
      const shown = await names(page);
      for (const entry of shown) {
        expect(entry, entry.text).toMatchObject({ cut: false, lines: 1 });
        // Readable across a room, not shrunk to fit.
        expect(entry.size, entry.text).toBeGreaterThanOrEqual(18);
      }
      expect(shown.map((entry) => entry.text)).toEqual(TWELVE.map((counter) => counter.name));
      // Still one screen: nothing to scroll.
      const overflow = await page.evaluate(
        () => document.documentElement.scrollHeight - window.innerHeight,
      );
      expect(overflow).toBeLessThanOrEqual(0);
    });
  }

  test('names and values sit at one height across every row of tiles', async ({ page }) => {
    await page.setViewportSize({ width: 1920, height: 1080 });
    const { name, key } = await seedGroup(TWELVE.slice(0, 8));
    await openDisplay(page, name, key);
    const tiles = await page.getByTestId('display-counter').evaluateAll((cells) =>
      cells.map((cell) => {
        const top = (selector: string) =>
          Math.round(cell.querySelector(selector)?.getBoundingClientRect().top ?? -1);
        return {
          row: Math.round(cell.getBoundingClientRect().top),
          name: top('[data-display-name]'),
          value: top('[data-testid="display-value"]'),
        };
      }),
    );
    const rows = new Map<number, { name: number; value: number }[]>();
    for (const tile of tiles) rows.set(tile.row, [...(rows.get(tile.row) ?? []), tile]);
    expect(rows.size).toBeGreaterThan(1);
    for (const row of rows.values()) {
      expect(row.length).toBeGreaterThan(1);
      expect(new Set(row.map((tile) => tile.name)).size, JSON.stringify(row)).toBe(1);
      expect(new Set(row.map((tile) => tile.value)).size, JSON.stringify(row)).toBe(1);
    }
  });

  test("shows the counters in the group screen's order and sections", async ({ browser }) => {
    // Sections interleaved in the group's order: the grid shows each section where its first
    // counter is, with all of its counters together.
    const { name, key, counters } = await seedGroup([
      { name: 'North door', value: 120 },
      { name: 'Coffees', value: 7 },
      { name: 'Stage', value: 92 },
      { name: 'South door', value: 85 },
      { name: 'Balcony', value: 100 },
      { name: 'Bikes', value: 3 },
    ]);
    const [north, , stage, south, balcony] = counters;
    for (const [counter, section] of [
      [north, 'Entrances'],
      [stage, 'Hall'],
      [south, 'Entrances'],
      [balcony, 'Hall'],
    ] as const) {
      await api.updateCounter(name, key, counter?.id ?? '', { section });
    }
    const group = await (await browser.newContext()).newPage();
    await openGroup(group, name, key);
    await expect(group.getByRole('region', { name: 'Hall' })).toBeVisible();
    const gridOrder = await group
      .getByRole('article')
      .evaluateAll((cards) => cards.map((card) => card.getAttribute('aria-label')));
    const gridSections = await group
      .locator('section[data-section]')
      .evaluateAll((sections) => sections.map((section) => section.getAttribute('data-section')));

    const page = await (
      await browser.newContext({ viewport: { width: 1280, height: 720 } })
    ).newPage();
    await useTheme(page, 'dark');
    await openDisplay(page, name, key);
    const displayOrder = await page
      .locator('[data-display-name]')
      .evaluateAll((nodes) => nodes.map((node) => node.textContent));
    expect(displayOrder).toEqual(gridOrder);
    expect(displayOrder).toEqual([
      'North door',
      'South door',
      'Coffees',
      'Stage',
      'Balcony',
      'Bikes',
    ]);
    await expect(page.getByTestId('display-section')).toHaveText([
      'Entrances total 205',
      'Hall total 192',
    ]);
    expect(gridSections).toEqual(['Entrances', 'Hall']);
    // Coffees and Bikes follow a section without being in it: on both screens a heading says so.
    await expect(group.getByRole('heading', { name: 'Counters without a section' })).toHaveCount(2);
    await expect(page.getByTestId('display-run-heading')).toHaveCount(2);
    // Each section's tiles under its heading.
    await expect(
      page.getByRole('region', { name: /^Entrances/ }).getByTestId('display-counter'),
    ).toHaveCount(2);
    await expect(
      page.getByRole('region', { name: /^Hall/ }).getByTestId('display-counter'),
    ).toHaveCount(2);
    expect(await seriousA11yFindings(page)).toEqual([]);
    await group.context().close();
    await page.context().close();
  });
});
