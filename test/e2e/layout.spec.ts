import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { expect, openGroup, seedGroup, test } from './support/fixtures.js';
import { connectMember } from './support/members.js';

async function columns(page: Page): Promise<number> {
  const lefts = await page
    .getByRole('article')
    .evaluateAll((cards) => cards.map((card) => Math.round(card.getBoundingClientRect().left)));
  return new Set(lefts).size;
}

test.describe('layout', () => {
  test('the counter grid has 1 column on phones, 2 on medium and 3 on large screens', async ({
    page,
  }) => {
    const { name, key } = await seedGroup([
      { name: 'A' },
      { name: 'B' },
      { name: 'C' },
      { name: 'D' },
    ]);
    await page.setViewportSize({ width: 375, height: 800 });
    await openGroup(page, name, key);
    await expect(page.getByRole('article')).toHaveCount(4);
    expect(await columns(page)).toBe(1);
    await page.setViewportSize({ width: 800, height: 800 });
    await expect.poll(() => columns(page)).toBe(2);
    await page.setViewportSize({ width: 1280, height: 800 });
    await expect.poll(() => columns(page)).toBe(3);
  });

  // Present before the page opens: none, or six others with ordinary and long names.
  const crowds = [
    [],
    ['Ada', 'Bartholomew Featherstonehaugh', 'Chiara Rossi', 'Dmitri', 'Eve', 'Fatima Al-Zahra'],
  ];
  for (const lang of ['en', 'ar', 'de']) {
    for (const others of crowds) {
      const who = others.length === 0 ? 'alone' : `with ${String(others.length)} others here`;
      test(`opening a group on a phone moves nothing as it turns live and 'Here now' arrives, ${who} (${lang})`, async ({
        page,
      }) => {
        const { name, key } = await seedGroup([{ name: 'Apples', value: 3 }, { name: 'Pears' }]);
        const sockets = await Promise.all(
          others.map((member, index) => connectMember(name, key, `here-${String(index)}`, member)),
        );
        await page.setViewportSize({ width: 360, height: 740 });
        await page.addInitScript(() => {
          // Every layout shift of the page, from its first paint (the browser's own measure).
          const shifts: number[] = [];
          // Every height the header's status line has had, px, from the first frame it is in.
          const heights: number[] = [];
          Object.assign(window, { layoutShifts: shifts, statusHeights: heights });
          new PerformanceObserver((list) => {
            for (const entry of list.getEntries())
              shifts.push((entry as { value?: number }).value ?? 0);
          }).observe({ type: 'layout-shift', buffered: true });
          const sizes = new ResizeObserver((entries) => {
            for (const entry of entries) heights.push(entry.borderBoxSize[0]?.blockSize ?? 0);
          });
          const found = new MutationObserver(() => {
            const line = document.querySelector('[data-testid="header-status"]');
            if (!line) return;
            found.disconnect();
            sizes.observe(line);
          });
          found.observe(document, { childList: true, subtree: true });
        });
        await page.goto(`/${name}?key=${key}&lang=${lang}`);
        const here = page.getByTestId('here-now');
        await expect(here).toBeVisible();
        for (const member of others)
          await expect(here).toHaveAttribute('aria-label', new RegExp(member));
        await expect(page.getByRole('article')).toHaveCount(2);
        // A frame after the last change, so that its shifts and sizes have been reported.
        await page.evaluate(
          () =>
            new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))),
        );
        const seen = await page.evaluate(() => {
          const { layoutShifts, statusHeights } = window as unknown as {
            layoutShifts: number[];
            statusHeights: number[];
          };
          return {
            shifts: layoutShifts,
            heights: [...new Set(statusHeights)],
            overflow: document.documentElement.scrollWidth - window.innerWidth,
          };
        });
        expect(seen.shifts).toEqual([]);
        // The line keeps the lines it opened with, and nothing sticks out sideways.
        expect(seen.heights).toHaveLength(1);
        expect(seen.overflow).toBeLessThanOrEqual(0);
        for (const socket of sockets) socket.close();
      });
    }
  }

  test('both screens fit a 360 px wide phone without sideways scrolling', async ({ page }) => {
    const { name, key } = await seedGroup([
      {
        name: 'A counter with a rather long name to wrap',
        value: -123456789012,
        incrementStep: 1000,
      },
    ]);
    await page.setViewportSize({ width: 360, height: 740 });
    await page.goto('/');
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
      360,
    );
    await openGroup(page, name, key);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
      360,
    );
  });
});

test.describe('accessibility', () => {
  for (const theme of ['dark', 'light'] as const) {
    test(`axe finds no serious or critical violations on either screen in the ${theme} theme`, async ({
      page,
    }) => {
      const { name, key } = await seedGroup([
        { name: 'Coffees', description: 'Every cup counts', value: 7 },
        { name: 'Push-ups', value: 120, incrementStep: 10, decrementStep: 5 },
      ]);
      await page.addInitScript((value) => {
        localStorage.setItem('tally:theme', value);
      }, theme);
      const check = async (screen: string) => {
        const results = await new AxeBuilder({ page }).analyze();
        const serious = results.violations.filter(
          (violation) => violation.impact === 'serious' || violation.impact === 'critical',
        );
        expect(
          serious.map(
            (v) => `${screen}: ${v.id} ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`,
          ),
        ).toEqual([]);
      };
      await page.goto('/');
      await page.getByLabel('Unique Group Name').fill(name);
      await expect(page.getByRole('button', { name: 'Join Group' })).toBeVisible();
      await check('landing');
      await openGroup(page, name, key);
      await check('group');
      await page.getByRole('button', { name: 'Change profile picture' }).click();
      await expect(page.getByRole('dialog', { name: 'Profile Picture' })).toBeVisible();
      await check('profile picture dialog');
    });
  }

  test('every icon-only control says what it does', async ({ page }) => {
    const { name, key } = await seedGroup([{ name: 'Named', incrementStep: 5 }]);
    await openGroup(page, name, key);
    const card = page.getByRole('article', { name: 'Named' });
    for (const label of [
      'Increment by 5',
      'Decrement by 1',
      'Counter actions',
      'Add thumbnail',
      'Change profile picture',
    ]) {
      await expect(page.getByRole('button', { name: label })).toBeVisible();
    }
    await expect(page.getByRole('button', { name: /^Switch to (light|dark) mode$/ })).toBeVisible();
    // Keyboard: the increment button is reachable and works with Enter.
    await card.getByRole('button', { name: 'Increment by 5' }).focus();
    await page.keyboard.press('Enter');
    await expect(card.getByRole('button', { name: /^Counter value: / })).toHaveText('5');
  });
});
