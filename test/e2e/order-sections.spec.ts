/**
 * Order, sections, limits and goals (ADR 19) in the live client: the counters' order (reordered by
 * keyboard, by mouse drag and with Move up/down, shared live, kept by the server), sections as
 * headed blocks with live subtotals and a capacity, limits refused by the server with nothing left
 * pending, and goals reached announced to every member present. Two browser contexts on one group,
 * against the real server.
 */
import type { Locator, Page } from '@playwright/test';
import { MESSAGES } from '../../src/shared/messages.js';
import {
  api,
  baseUrl,
  counterCard,
  counterValue,
  expect,
  openGroup,
  seedGroup,
  test,
} from './support/fixtures.js';
import { memberPage } from './support/members.js';
import {
  goOffline,
  goOnline,
  test as offlineTest,
  waitForServiceWorker,
} from './support/network.js';
import { seriousA11yFindings } from './support/a11y.js';
import { screenshotPath, screenshotsWanted } from './support/screenshots.js';

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 900 };

async function call(method: string, path: string, key: string, body?: unknown): Promise<unknown> {
  const response = await fetch(baseUrl() + path, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? null : JSON.stringify(body),
  });
  if (!response.ok)
    throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return response.json();
}

/** The names of the counter cards, top to bottom as the page lays them out. */
function cardNames(page: Page): Promise<string[]> {
  return page
    .getByRole('article')
    .evaluateAll((cards) => cards.map((card) => card.getAttribute('aria-label') ?? ''));
}

/** The names of the rows of reorder mode, in order. */
function rowNames(page: Page): Promise<string[]> {
  return page
    .getByTestId('reorder-row')
    .evaluateAll((rows) => rows.map((row) => row.querySelector('p')?.textContent ?? ''));
}

/** What dnd-kit's live region says (its announcements for screen readers). */
const dragAnnouncement = (page: Page) => page.locator('[id^="DndLiveRegion"]');

/** Drags one row's handle onto another row with the mouse, in small steps like a hand would. */
async function dragRow(page: Page, from: Locator, to: Locator): Promise<void> {
  const handle = await from.getByRole('button', { name: /^Drag / }).boundingBox();
  const target = await to.boundingBox();
  if (!handle || !target) throw new Error('row not on screen');
  const startX = handle.x + handle.width / 2;
  const startY = handle.y + handle.height / 2;
  await page.mouse.move(startX, startY);
  await page.mouse.down();
  await page.mouse.move(startX, startY + 8, { steps: 4 });
  await page.mouse.move(startX, target.y + target.height * 0.75, { steps: 12 });
  await page.mouse.up();
}

/**
 * Space on a row's handle picks it up. dnd-kit listens for the arrow keys only from a
 * setTimeout(0) its keyboard sensor sets on pick-up, which can run after the announcement is on
 * screen: a timer set now runs after it, so the next key is heard.
 */
async function pickUp(page: Page, name: string, announcement: string): Promise<void> {
  await page.getByRole('button', { name: `Drag ${name}` }).focus();
  await page.keyboard.press('Space');
  await expect(dragAnnouncement(page)).toHaveText(announcement);
  await page.evaluate(() => new Promise<void>((resolve) => setTimeout(resolve, 0)));
}

const row = (page: Page, name: string) => page.getByTestId('reorder-row').filter({ hasText: name });

test.describe('order of the counters', () => {
  test('a member reorders by keyboard, by mouse and with Move buttons; the other sees it live and it stays', async ({
    browser,
  }) => {
    const { name, key } = await seedGroup([
      { name: 'Alpha' },
      { name: 'Bravo' },
      { name: 'Charlie' },
    ]);
    const ada = await memberPage(browser, 'Ada', { theme: 'dark' });
    const bob = await memberPage(browser, 'Bob', { theme: 'dark' });
    await openGroup(ada, name, key);
    await openGroup(bob, name, key);
    expect(await cardNames(bob)).toEqual(['Alpha', 'Bravo', 'Charlie']);

    await ada.getByRole('button', { name: 'Reorder' }).click();
    await expect(ada.getByRole('list', { name: 'Counter order' })).toBeVisible();

    // Keyboard: Space picks Charlie up, two arrows up, Space drops it first.
    await pickUp(ada, 'Charlie', 'Picked up Charlie, position 3 of 3.');
    await ada.keyboard.press('ArrowUp');
    await expect(dragAnnouncement(ada)).toHaveText('Charlie moved to position 2 of 3.');
    await ada.keyboard.press('ArrowUp');
    await expect(dragAnnouncement(ada)).toHaveText('Charlie moved to position 1 of 3.');
    await ada.keyboard.press('Space');
    await expect(dragAnnouncement(ada)).toHaveText('Charlie dropped at position 1 of 3.');
    await expect.poll(() => rowNames(ada)).toEqual(['Charlie', 'Alpha', 'Bravo']);
    await expect.poll(() => cardNames(bob)).toEqual(['Charlie', 'Alpha', 'Bravo']);

    // Escape puts a picked-up counter back where it was.
    await pickUp(ada, 'Alpha', 'Picked up Alpha, position 2 of 3.');
    await ada.keyboard.press('ArrowDown');
    await expect(dragAnnouncement(ada)).toHaveText('Alpha moved to position 3 of 3.');
    await ada.keyboard.press('Escape');
    await expect(dragAnnouncement(ada)).toHaveText(
      'Moving Alpha was cancelled. It stays at position 2 of 3.',
    );
    expect(await rowNames(ada)).toEqual(['Charlie', 'Alpha', 'Bravo']);

    // Mouse: Alpha dragged below Bravo.
    await dragRow(ada, row(ada, 'Alpha'), row(ada, 'Bravo'));
    await expect.poll(() => rowNames(ada)).toEqual(['Charlie', 'Bravo', 'Alpha']);
    await expect.poll(() => cardNames(bob)).toEqual(['Charlie', 'Bravo', 'Alpha']);

    // Move down keeps the focus on the button that moved, and says what happened.
    const moveDown = ada.getByRole('button', { name: 'Move Charlie down' });
    await moveDown.click();
    await expect.poll(() => rowNames(ada)).toEqual(['Bravo', 'Charlie', 'Alpha']);
    await expect(moveDown).toBeFocused();
    await expect(ada.getByText('Charlie moved to position 2 of 3.')).toBeAttached();
    await expect(ada.getByRole('button', { name: 'Move Bravo up' })).toHaveAttribute(
      'aria-disabled',
      'true',
    );
    await expect.poll(() => cardNames(bob)).toEqual(['Bravo', 'Charlie', 'Alpha']);

    // The server keeps it: the API lists it, and a reload shows it.
    await expect
      .poll(async () => (await api.counters(name, key)).map((counter) => counter.name))
      .toEqual(['Bravo', 'Charlie', 'Alpha']);
    await bob.reload();
    await expect(bob.getByRole('article')).toHaveCount(3);
    expect(await cardNames(bob)).toEqual(['Bravo', 'Charlie', 'Alpha']);

    // Back to the grid; a counter created now goes last, for everyone.
    await ada.getByRole('button', { name: 'Done reordering' }).click();
    await expect.poll(() => cardNames(ada)).toEqual(['Bravo', 'Charlie', 'Alpha']);
    await ada.getByRole('button', { name: 'Add Counter' }).click();
    await expect
      .poll(() => cardNames(bob))
      .toEqual(['Bravo', 'Charlie', 'Alpha', MESSAGES.newCounterName]);
    await expect
      .poll(() => cardNames(ada))
      .toEqual(['Bravo', 'Charlie', 'Alpha', MESSAGES.newCounterName]);

    await ada.context().close();
    await bob.context().close();
  });

  test('a view-only page offers no reordering and no section maximum', async ({ browser }) => {
    const { name, key, counters } = await seedGroup([{ name: 'One' }, { name: 'Two' }]);
    await api.updateCounter(name, key, counters[0]?.id ?? '', { section: 'Hall' });
    const { viewKey } = (await call('POST', `/api/groups/${name}/view-key`, key)) as {
      viewKey: string;
    };
    const viewer = await memberPage(browser, 'Viewer', { theme: 'dark' });
    await openGroup(viewer, name, viewKey);
    await expect(viewer.getByRole('heading', { name: 'Hall' })).toBeVisible();
    await expect(viewer.getByRole('button', { name: 'Reorder' })).toHaveCount(0);
    await expect(viewer.getByRole('button', { name: /^(Set|Edit) max/ })).toHaveCount(0);
    await viewer.context().close();
  });
});

offlineTest.describe('order, offline', () => {
  offlineTest(
    'a reorder made offline survives a reload and is sent on reconnect, with the counters created meanwhile last',
    async ({ page, context, network }) => {
      const { name, key } = await seedGroup([
        { name: 'Alpha' },
        { name: 'Bravo' },
        { name: 'Charlie' },
      ]);
      await openGroup(page, name, key);
      await waitForServiceWorker(page);

      await goOffline(page, network);
      await page.getByRole('button', { name: 'Reorder' }).click();
      await page.getByRole('button', { name: 'Move Charlie up' }).click();
      await page.getByRole('button', { name: 'Move Charlie up' }).click();
      await expect.poll(() => rowNames(page)).toEqual(['Charlie', 'Alpha', 'Bravo']);
      await expect(page.getByTestId('changes-waiting')).toBeVisible();

      // Somebody else adds a counter meanwhile: the kept reorder no longer lists every counter.
      await api.createCounter(name, key, { name: 'Delta' });
      await page.reload();
      await expect(page.getByRole('heading', { name: 'Offline' })).toBeVisible();

      const sent: string[][] = [];
      page.on('request', (request) => {
        if (request.method() === 'PUT' && request.url().endsWith('/order')) {
          sent.push((request.postDataJSON() as { counterIds: string[] }).counterIds);
        }
      });
      await goOnline(context, network);
      await expect(page.getByRole('status').filter({ hasText: 'Live' })).toBeVisible({
        timeout: 15_000,
      });
      await expect
        .poll(async () => (await api.counters(name, key)).map((counter) => counter.name), {
          timeout: 15_000,
        })
        .toEqual(['Charlie', 'Alpha', 'Bravo', 'Delta']);
      await expect.poll(() => cardNames(page)).toEqual(['Charlie', 'Alpha', 'Bravo', 'Delta']);
      await expect(page.getByRole('alert')).toHaveCount(0);
      // The kept reorders went as they were (refused: Delta missing); the latest went again,
      // completed with Delta.
      expect(sent.map((ids) => ids.length)).toEqual([3, 3, 4]);
    },
  );
});

test.describe('sections and limits', () => {
  test('sections show as headed blocks with live subtotals and a capacity; limits are refused and nothing stays pending', async ({
    browser,
  }) => {
    const { name, key, counters } = await seedGroup([
      { name: 'North' },
      { name: 'Bar' },
      { name: 'South' },
      { name: 'Door', max: 3 },
    ]);
    const [north, , south] = counters;
    const ada = await memberPage(browser, 'Ada', { theme: 'dark' });
    const bob = await memberPage(browser, 'Bob', { theme: 'dark' });
    await openGroup(ada, name, key);
    await openGroup(bob, name, key);

    // Sections set over REST reach both pages live: one block where North was, South in it.
    for (const counter of [north, south]) {
      await api.updateCounter(name, key, counter?.id ?? '', {
        section: 'Entrances',
      });
    }
    for (const page of [ada, bob]) {
      const block = page.getByRole('region', { name: 'Entrances' });
      await expect(block.getByRole('article')).toHaveCount(2);
      await expect(block.getByTestId('section-total')).toHaveText('— total 0');
      await expect.poll(() => cardNames(page)).toEqual(['North', 'South', 'Bar', 'Door']);
    }

    // Taps on either side move both pages' subtotal, each card keeping its own value.
    const plus = (page: Page, counter: string) =>
      counterCard(page, counter).getByRole('button', { name: 'Increment by 1' });
    await plus(ada, 'North').click();
    await plus(ada, 'North').click();
    await plus(bob, 'South').click();
    for (const page of [ada, bob]) {
      await expect(
        page.getByRole('region', { name: 'Entrances' }).getByTestId('section-total'),
      ).toHaveText('— total 3');
      await expect(counterValue(counterCard(page, 'North'))).toHaveText('2');
      await expect(counterValue(counterCard(page, 'South'))).toHaveText('1');
    }

    // Ada gives the section a maximum of 5 from its header: both see the capacity.
    await ada.getByRole('button', { name: 'Set max for Entrances' }).click();
    const dialog = ada.getByRole('dialog', { name: 'Maximum of Entrances' });
    await dialog.getByLabel('Maximum').fill('2');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect(dialog.getByRole('alert')).toHaveText(
      MESSAGES.sectionLimitBelowTotal('Entrances', 3),
    );
    await dialog.getByLabel('Maximum').fill('5');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect(dialog).toBeHidden();
    for (const page of [ada, bob]) {
      const block = page.getByRole('region', { name: 'Entrances' });
      await expect(block.getByTestId('section-total')).toHaveText('3 / 5');
      await expect(block.getByTestId('section-capacity')).toHaveText('2 left');
    }
    await plus(bob, 'South').click();
    for (const page of [ada, bob]) {
      await expect(
        page.getByRole('region', { name: 'Entrances' }).getByTestId('section-capacity'),
      ).toHaveText('1 left');
    }
    await plus(ada, 'North').click();
    for (const page of [ada, bob]) {
      await expect(
        page.getByRole('region', { name: 'Entrances' }).getByTestId('section-capacity'),
      ).toHaveText('Full');
    }

    // At the section's maximum the card says so and a tap does nothing (the server would refuse).
    const blockedPlus = plus(bob, 'North');
    await expect(blockedPlus).toHaveAttribute('aria-disabled', 'true');
    await expect(blockedPlus).toHaveAccessibleDescription(MESSAGES.sectionFull('Entrances', 5));
    await blockedPlus.click({ force: true });
    await expect(counterValue(counterCard(bob, 'North'))).toHaveText('3');
    await expect(bob.getByTestId('changes-waiting')).toHaveCount(0);

    // Past a counter's own maximum, as the server decides it: Bob taps Door three times while
    // offline (his page still had room), Ada taps it twice meanwhile; when Bob is back, his first
    // tap fills Door and the others are refused, the server's words shown, nothing kept.
    await bob.context().setOffline(true);
    for (let tap = 0; tap < 3; tap += 1) await plus(bob, 'Door').click();
    await expect(counterValue(counterCard(bob, 'Door'))).toHaveText('3');
    await plus(ada, 'Door').click();
    await plus(ada, 'Door').click();
    await expect(counterValue(counterCard(ada, 'Door'))).toHaveText('2');
    await bob.context().setOffline(false);
    await expect(bob.getByRole('alert')).toContainText(MESSAGES.limitAbove(3), {
      timeout: 15_000,
    });
    await expect(counterValue(counterCard(bob, 'Door'))).toHaveText('3');
    await expect(counterValue(counterCard(ada, 'Door'))).toHaveText('3');
    const stored = await api.counters(name, key);
    expect(stored.find((counter) => counter.name === 'Door')?.value).toBe(3);
    // Nothing kept for later: a reload sends nothing again.
    await bob.reload();
    await expect(counterValue(counterCard(bob, 'Door'))).toHaveText('3');
    await expect(bob.getByTestId('changes-waiting')).toHaveCount(0);
    expect(
      await bob.evaluate(() =>
        Object.keys(localStorage).filter((item) => item.startsWith('tally:outbox:')),
      ),
    ).toEqual([]);

    await ada.context().close();
    await bob.context().close();
  });
});

test.describe('goals', () => {
  test('a goal reached by one member is announced to the others, once, and fades', async ({
    browser,
  }) => {
    const { name, key, counters } = await seedGroup([{ name: 'Laps' }]);
    await api.updateCounter(name, key, counters[0]?.id ?? '', { goal: 3 });
    const ada = await memberPage(browser, 'Ada', { theme: 'dark' });
    const bob = await memberPage(browser, 'Bob', { theme: 'dark' });
    await openGroup(ada, name, key);
    await openGroup(bob, name, key);
    const text = MESSAGES.goalReached('Ada', 'Laps', 3);

    const plus = counterCard(ada, 'Laps').getByRole('button', { name: 'Increment by 1' });
    await plus.click();
    await plus.click();
    await expect(counterValue(counterCard(bob, 'Laps'))).toHaveText('2');
    await expect(bob.getByTestId('goal-notice')).toHaveCount(0);
    await plus.click();
    const notice = bob.getByRole('status').filter({ hasText: text });
    await expect(notice).toBeVisible();
    await expect(bob.getByTestId('goal-notice')).toHaveCount(1);
    await expect(ada.getByTestId('goal-notice')).toHaveText(text);
    // Further taps are no new crossing.
    await plus.click();
    await expect(counterValue(counterCard(bob, 'Laps'))).toHaveText('4');
    await expect(bob.getByTestId('goal-notice')).toHaveCount(1);
    // It goes by itself after a few seconds.
    await expect(bob.getByTestId('goal-notice')).toHaveCount(0, { timeout: 10_000 });
    // A page opened afterwards gets the counter from a snapshot: no notice.
    await bob.reload();
    await expect(counterValue(counterCard(bob, 'Laps'))).toHaveText('4');
    await expect(bob.getByTestId('goal-notice')).toHaveCount(0);

    await ada.context().close();
    await bob.context().close();
  });
});

test.describe('at phone width and on desktop, in both themes', () => {
  for (const [size, viewport] of [
    ['phone', PHONE],
    ['desktop', DESKTOP],
  ] as const) {
    for (const theme of ['light', 'dark'] as const) {
      test(`sections and reorder mode are laid out and axe clean: ${size}, ${theme}`, async ({
        browser,
      }) => {
        const { name, key, counters } = await seedGroup([
          { name: 'North door', value: 120 },
          { name: 'South door', value: 85 },
          { name: 'Coffees', value: 7 },
          { name: 'Stage', value: 92 },
          { name: 'Balcony', value: 100 },
        ]);
        const [northDoor, southDoor, , stage, balcony] = counters;
        for (const [counter, section] of [
          [northDoor, 'Entrances'],
          [southDoor, 'Entrances'],
          [stage, 'Hall'],
          [balcony, 'Hall'],
        ] as const) {
          await api.updateCounter(name, key, counter?.id ?? '', { section });
        }
        await call('PUT', `/api/groups/${name}/sections/Hall`, key, { max: 200 });
        const page = await memberPage(browser, 'Ada', { theme, viewport });
        await openGroup(page, name, key);
        const entrances = page.getByRole('region', { name: 'Entrances' });
        const hall = page.getByRole('region', { name: 'Hall' });
        await expect(entrances.getByTestId('section-total')).toHaveText('— total 205');
        await expect(hall.getByTestId('section-total')).toHaveText('192 / 200');
        await expect(hall.getByTestId('section-capacity')).toHaveText('Nearly full · 8 left');
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
          viewport.width,
        );
        expect(await seriousA11yFindings(page)).toEqual([]);
        // On a phone the Hall block is further down: scrolled to, it shows both states of a block.
        if (size === 'phone')
          await hall.getByRole('heading', { name: 'Hall' }).scrollIntoViewIfNeeded();
        if (screenshotsWanted)
          await page.screenshot({
            path: screenshotPath(`sections-${size}-${theme}.png`),
            fullPage: size === 'desktop',
          });

        await page.getByRole('button', { name: 'Reorder' }).click();
        await expect(page.getByTestId('reorder-row')).toHaveCount(5);
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
          viewport.width,
        );
        expect(await seriousA11yFindings(page)).toEqual([]);
        if (screenshotsWanted)
          await page.screenshot({ path: screenshotPath(`reorder-${size}-${theme}.png`) });
        await page.context().close();
      });
    }
  }
});
