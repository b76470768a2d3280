/**
 * Reorder mode lists the counters as the grid shows them, under their sections' headings, and
 * every move shows in the grid: within a section, and past a section's edge into the next one
 * (or out of sections), by the Move buttons, the keyboard and the mouse.
 */
import type { Locator, Page } from '@playwright/test';
import { api, expect, openGroup, seedGroup, test } from './support/fixtures.js';
import { memberPage } from './support/members.js';

/** The grid as blocks: each section's name (or '-' for counters without one) and its cards. */
function gridBlocks(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const lists = document.querySelectorAll('main ul[aria-label^="Counters"]');
    return Array.from(lists, (list) => {
      const section = list.closest('section[data-section]')?.getAttribute('data-section') ?? '-';
      const cards = Array.from(list.querySelectorAll('article'), (card) =>
        card.getAttribute('aria-label'),
      );
      return `${section}: ${cards.join(', ')}`;
    });
  });
}

/** Reorder mode the same way: its headings and rows, top to bottom. */
function reorderBlocks(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const blocks: string[] = [];
    for (const item of document.querySelectorAll('ol[aria-label="Counter order"] > li')) {
      if (item.getAttribute('data-testid') === 'reorder-section') {
        const heading = item.textContent;
        blocks.push(`${heading === 'Not in a section' ? '-' : heading}:`);
      } else {
        const name = item.querySelector('p')?.textContent ?? '';
        const last = blocks.length - 1;
        blocks[last] =
          `${blocks[last] ?? ''}${(blocks[last] ?? '').endsWith(':') ? ' ' : ', '}${name}`;
      }
    }
    return blocks;
  });
}

const row = (page: Page, name: string): Locator =>
  page.getByTestId('reorder-row').filter({ hasText: name });

test.describe('reorder mode with sections', () => {
  test('shows the sections as the grid does and moves counters within and between them', async ({
    browser,
  }) => {
    const { name, key, counters } = await seedGroup([
      { name: 'North door' },
      { name: 'Coffees' },
      { name: 'South door' },
      { name: 'Stage' },
      { name: 'Balcony' },
    ]);
    const [north, , south, stage, balcony] = counters;
    for (const [counter, section] of [
      [north, 'Entrances'],
      [south, 'Entrances'],
      [stage, 'Hall'],
      [balcony, 'Hall'],
    ] as const) {
      await api.updateCounter(name, key, counter?.id ?? '', { section });
    }
    const ada = await memberPage(browser, 'Ada', { theme: 'dark' });
    const bob = await memberPage(browser, 'Bob', { theme: 'light' });
    await openGroup(ada, name, key);
    await openGroup(bob, name, key);
    const start = ['Entrances: North door, South door', '-: Coffees', 'Hall: Stage, Balcony'];
    await expect.poll(() => gridBlocks(bob)).toEqual(start);

    await ada.getByRole('button', { name: 'Reorder' }).click();
    await expect(ada.getByRole('list', { name: 'Counter order' })).toBeVisible();
    // Reorder mode shows the grid's blocks, in the grid's order.
    expect(await reorderBlocks(ada)).toEqual(start);

    // Within a section: South door up, first of Entrances.
    await ada.getByRole('button', { name: 'Move South door up' }).click();
    const inside = ['Entrances: South door, North door', '-: Coffees', 'Hall: Stage, Balcony'];
    await expect.poll(() => reorderBlocks(ada)).toEqual(inside);
    await expect.poll(() => gridBlocks(bob)).toEqual(inside);

    // Past the section's edge: North door down leaves Entrances for the counters without one.
    const moveDown = ada.getByRole('button', { name: 'Move North door down' });
    await moveDown.click();
    const out = ['Entrances: South door', '-: North door, Coffees', 'Hall: Stage, Balcony'];
    await expect.poll(() => reorderBlocks(ada)).toEqual(out);
    await expect(moveDown).toBeFocused();
    await expect(ada.getByText('North door moved to position 2 of 5.')).toBeAttached();
    await expect.poll(() => gridBlocks(bob)).toEqual(out);

    // Into the next section: Coffees down twice, into Hall as its first counter.
    await ada.getByRole('button', { name: 'Move Coffees down' }).click();
    const joined = ['Entrances: South door', '-: North door', 'Hall: Coffees, Stage, Balcony'];
    await expect.poll(() => reorderBlocks(ada)).toEqual(joined);
    await expect(ada.getByText('Coffees moved to position 3 of 5, in Hall.')).toBeAttached();
    await expect.poll(() => gridBlocks(bob)).toEqual(joined);

    // The keyboard, across sections: Balcony picked up and moved up to North door's place.
    await ada.getByRole('button', { name: 'Drag Balcony' }).focus();
    await ada.keyboard.press('Space');
    await expect(ada.locator('[id^="DndLiveRegion"]')).toHaveText(
      'Picked up Balcony, position 5 of 5, in Hall.',
    );
    await ada.evaluate(() => new Promise<void>((resolve) => setTimeout(resolve, 0)));
    for (const position of [4, 3, 2]) {
      await ada.keyboard.press('ArrowUp');
      await expect(ada.locator('[id^="DndLiveRegion"]')).toContainText(
        `Balcony moved to position ${position} of 5`,
      );
    }
    await ada.keyboard.press('Space');
    await expect(ada.locator('[id^="DndLiveRegion"]')).toHaveText(
      'Balcony dropped at position 2 of 5.',
    );
    const dropped = ['Entrances: South door', '-: Balcony, North door', 'Hall: Coffees, Stage'];
    await expect.poll(() => reorderBlocks(ada)).toEqual(dropped);
    await expect.poll(() => gridBlocks(bob)).toEqual(dropped);

    // The server keeps order and sections: a reload shows the same blocks.
    await bob.reload();
    await expect.poll(() => gridBlocks(bob)).toEqual(dropped);
    expect(
      (await api.counters(name, key)).map((counter) => `${counter.name}/${counter.section ?? '-'}`),
    ).toEqual(['South door/Entrances', 'Balcony/-', 'North door/-', 'Coffees/Hall', 'Stage/Hall']);
    await expect(row(ada, 'Balcony')).toHaveAttribute('data-section', '');
    await ada.context().close();
    await bob.context().close();
  });
});
