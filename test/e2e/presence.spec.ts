import { PRESENCE_LIST_MAX } from '../../src/shared/live.js';
import { expect, openGroup, seedGroup, test } from './support/fixtures.js';
import { connectMember, memberPage, type Theme } from './support/members.js';
import { SCREENSHOT_SIZES, screenshotPath, screenshotsWanted } from './support/screenshots.js';

test.describe('presence: Here now', () => {
  test('two members see each other by name, and closing one removes it', async ({ browser }) => {
    const { name, key } = await seedGroup();
    const aliceContext = await browser.newContext();
    const bobContext = await browser.newContext();
    await aliceContext.addInitScript(() => {
      localStorage.setItem('tally:guestName', 'Alice Example');
    });
    await bobContext.addInitScript(() => {
      localStorage.setItem('tally:guestName', 'Bob');
    });
    const alice = await aliceContext.newPage();
    const bob = await bobContext.newPage();
    await openGroup(alice, name, key);
    await openGroup(bob, name, key);

    const aliceHere = alice.getByTestId('here-now');
    const bobHere = bob.getByTestId('here-now');
    await expect(aliceHere.locator('[data-member="Bob"]')).toBeVisible();
    await expect(bobHere.locator('[data-member="Alice Example"]')).toBeVisible();
    await expect(bobHere.locator('[data-member="Alice Example"]')).toHaveText(/AE/);
    await expect(bobHere).toHaveAttribute('title', /Alice Example/);

    // A rename reaches the others live.
    await bob.getByRole('button', { name: 'Your name: Bob' }).click();
    await bob.getByRole('textbox', { name: 'Your name' }).fill('Robert');
    await bob.keyboard.press('Enter');
    await expect(aliceHere.locator('[data-member="Robert"]')).toBeVisible();
    await expect(aliceHere.locator('[data-member="Bob"]')).toHaveCount(0);

    await bobContext.close();
    await expect(aliceHere.locator('[data-member="Robert"]')).toHaveCount(0, { timeout: 15_000 });
    await expect(aliceHere.locator('[data-member="Alice Example"]')).toBeVisible();
    await aliceContext.close();
  });

  test('renaming in one tab renames the other tabs of the same browser, shown once to others', async ({
    browser,
  }) => {
    const { name, key } = await seedGroup();
    const mine = await browser.newContext();
    await mine.addInitScript(() => {
      if (!localStorage.getItem('tally:guestName')) localStorage.setItem('tally:guestName', 'Cleo');
    });
    const first = await mine.newPage();
    const second = await mine.newPage();
    const other = await (await browser.newContext()).newPage();
    await openGroup(first, name, key);
    await openGroup(second, name, key);
    await openGroup(other, name, key);
    const seen = other.getByTestId('here-now');
    await expect(seen.locator('[data-member="Cleo"]')).toHaveCount(1);

    await first.getByRole('button', { name: 'Your name: Cleo' }).click();
    await first.getByRole('textbox', { name: 'Your name' }).fill('Cleopatra');
    await first.keyboard.press('Enter');
    await expect(second.getByRole('button', { name: 'Your name: Cleopatra' })).toBeVisible();
    await expect(seen.locator('[data-member="Cleopatra"]')).toHaveCount(1);
    await expect(seen.locator('[data-member="Cleo"]')).toHaveCount(0);
    await mine.close();
    await other.context().close();
  });

  test('a crowd shows four faces and +N, with every name in its label', async ({ page }) => {
    const { name, key } = await seedGroup();
    const crowd = ['Ada', 'Ben', 'Cy', 'Dee', 'Eve'];
    const sockets = await Promise.all(
      crowd.map((member, index) => connectMember(name, key, `crowd-${String(index)}`, member)),
    );
    await page.addInitScript(() => {
      localStorage.setItem('tally:guestName', 'Me');
    });
    await openGroup(page, name, key);
    const here = page.getByTestId('here-now');
    await expect(here.getByRole('listitem')).toHaveCount(5);
    await expect(here.getByRole('listitem').last()).toHaveText('+2');
    for (const member of [...crowd, 'Me']) {
      await expect(here).toHaveAttribute('aria-label', new RegExp(`\\b${member}\\b`));
    }
    for (const socket of sockets) socket.close();
    await expect(here.getByRole('listitem')).toHaveCount(1, { timeout: 15_000 });
  });

  test('on a phone the row shows the faces it has room for and +N for the rest, and a tap lists everyone with what the list means', async ({
    browser,
  }) => {
    const { name, key } = await seedGroup();
    const others = ['Ada', 'Bartholomew Featherstonehaugh', 'Chiara Rossi', 'Dmitri', 'Eve', 'Fay'];
    const sockets = await Promise.all(
      others.map((member, index) => connectMember(name, key, `tap-${String(index)}`, member)),
    );
    const context = await browser.newContext({
      viewport: { width: 360, height: 740 },
      hasTouch: true,
    });
    await context.addInitScript(() => {
      localStorage.setItem('tally:guestName', 'Me Myself');
    });
    const page = await context.newPage();
    await openGroup(page, name, key);
    const here = page.getByTestId('here-now');
    await expect(here).toHaveAttribute('aria-label', /Fay/);
    // Whatever number of faces the row holds, '+N' counts the rest: seven in all.
    const faces = await here.locator('[data-member]').count();
    expect(faces).toBeGreaterThanOrEqual(1);
    await expect(here.getByRole('listitem').last()).toHaveText(`+${String(7 - faces)}`);

    const button = page.getByRole('button', { name: 'Here now', exact: true });
    await button.tap();
    await expect(button).toHaveAttribute('aria-expanded', 'true');
    await expect(
      page.getByText('Everyone with this group open right now, one entry per browser.'),
    ).toBeVisible();
    const everyone = page.getByRole('list', { name: 'Here now' });
    for (const member of others) {
      await expect(everyone.getByText(member, { exact: true })).toBeVisible();
    }
    await expect(everyone.getByRole('listitem').filter({ hasText: 'Me Myself' })).toContainText(
      '(you)',
    );
    expect(
      await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth),
    ).toBeLessThanOrEqual(0);

    await page.keyboard.press('Escape');
    await expect(everyone).toBeHidden();
    await expect(button).toBeFocused();
    await expect(button).toHaveAttribute('aria-expanded', 'false');
    // A tap elsewhere closes it too.
    await button.tap();
    await expect(everyone).toBeVisible();
    // The page's margin beside the list (the list itself covers what lies under it).
    await page.getByRole('main').tap({ position: { x: 4, y: 300 } });
    await expect(everyone).toBeHidden();
    // From the keyboard: Enter opens it, and Tab on to the next button closes it.
    await button.focus();
    await page.keyboard.press('Enter');
    await expect(everyone).toBeVisible();
    await page.keyboard.press('Tab');
    await expect(everyone).toBeHidden();
    for (const socket of sockets) socket.close();
    await context.close();
  });

  test('past the listed bound, the header says how many are here and names the first in its label', async ({
    browser,
  }) => {
    const { name, key } = await seedGroup();
    const crowd = PRESENCE_LIST_MAX + 10;
    const sockets = await Promise.all(
      Array.from({ length: crowd }, (_, index) =>
        connectMember(name, key, `crowd-${String(index)}`, `Fan ${String(index).padStart(2, '0')}`),
      ),
    );
    const sizes = Object.entries(SCREENSHOT_SIZES).filter(([size]) => size !== 'tv');
    for (const [size, viewport] of sizes) {
      for (const theme of ['light', 'dark'] as Theme[]) {
        const page = await memberPage(browser, 'Me', { theme, viewport });
        await openGroup(page, name, key);
        const here = page.getByTestId('here-now');
        // Everyone, this tab included: the crowd and 'Me'.
        await expect(page.getByTestId('here-count')).toHaveText(`${String(crowd + 1)} here`);
        await expect(here.getByRole('listitem')).toHaveCount(4);
        await expect(here).toHaveAttribute(
          'aria-label',
          new RegExp(`^Here now: ${String(crowd + 1)} people: Fan 00, .* and 11 more$`),
        );
        // The header keeps to the screen's width.
        const overflow = await page.evaluate(
          () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
        );
        expect(overflow).toBeLessThanOrEqual(0);
        if (size === 'phone' && theme === 'light') {
          // The list opened from the row names those listed and counts the others.
          await page.getByRole('button', { name: 'Here now', exact: true }).click();
          const everyone = page.getByRole('list', { name: 'Here now' });
          await expect(everyone.getByRole('listitem')).toHaveCount(PRESENCE_LIST_MAX + 1);
          await expect(everyone.getByRole('listitem').last()).toHaveText('and 11 more');
        }
        if (screenshotsWanted) {
          // The header's last button loads on its own: the picture waits for the whole header.
          await expect(page.getByRole('button', { name: 'Activity', exact: true })).toBeVisible();
          await page.screenshot({ path: screenshotPath(`here-crowd-${size}-${theme}.png`) });
        }
        await page.context().close();
      }
    }
    for (const socket of sockets) socket.close();
  });
});
