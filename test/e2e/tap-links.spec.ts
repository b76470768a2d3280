/**
 * Tap links (docs/product.md#tap-links): the owner makes one for a section in the share dialog,
 * a volunteer opens it in another browser and can only tap the counters of that section, in the
 * direction it allows; the owner's log names the link beside the volunteer; revoking it tells the
 * volunteer's page so, on screen, and the taps it kept offline are dropped, not retried.
 * TALLY_SCREENSHOTS=1 also writes .tmp/screenshots/tap-*.png.
 */
import type { Browser, Locator, Page } from '@playwright/test';
import type { TapLinkCreated } from '../../src/shared/links.js';
import { LINK_MESSAGES } from '../../src/shared/links.js';
import { seriousA11yFindings } from './support/a11y.js';
import {
  api,
  baseUrl,
  counterCard,
  expect,
  openGroup,
  seedGroup,
  test,
} from './support/fixtures.js';
import { activityEntries, memberPage, openActivity, type Theme } from './support/members.js';
import { goOffline, goOnline, test as offlineTest } from './support/network.js';
import { SCREENSHOT_SIZES, screenshotPath, screenshotsWanted } from './support/screenshots.js';

/** Two doors in section Entrances and a hall outside it. */
function gateGroup() {
  return seedGroup(
    [
      { name: 'Gate A', section: 'Entrances' },
      { name: 'Gate B', section: 'Entrances' },
      { name: 'Main Hall' },
    ],
    'tap',
  );
}

/** A link made through the API, for the tests that are not about the share dialog. */
async function makeLink(
  name: string,
  key: string,
  body: { label: string; scope: unknown; can: string[] },
): Promise<TapLinkCreated> {
  const response = await fetch(`${baseUrl()}/api/groups/${name}/links`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(201);
  return (await response.json()) as TapLinkCreated;
}

async function openShare(page: Page): Promise<Locator> {
  await page.getByRole('button', { name: 'Show QR code' }).click();
  const dialog = page.getByRole('dialog', { name: 'Share this group' });
  await expect(dialog.getByRole('img', { name: /^QR code of/ })).toBeVisible();
  await dialog.getByRole('tab', { name: 'Tap links' }).click();
  await expect(dialog.getByText('No tap links yet.').or(dialog.getByRole('list'))).toBeVisible();
  return dialog;
}

/** Makes a link for section Entrances, up only, in the dialog; returns the address shown once. */
async function makeLinkInDialog(dialog: Locator, label: string): Promise<string> {
  await dialog.getByLabel('Label').fill(label);
  await dialog.getByRole('radio', { name: /^One section/ }).check();
  await expect(dialog.getByRole('combobox', { name: 'Section' })).toHaveValue('Entrances');
  await dialog.getByRole('radio', { name: 'Count up only' }).check();
  await dialog.getByRole('button', { name: 'Make tap link' }).click();
  const created = dialog.getByTestId('tap-link-created');
  await expect(
    created.getByRole('img', { name: `QR code of the tap link ${label}` }),
  ).toBeVisible();
  await expect(created).toContainText('shown only this once');
  await expect(created).toContainText('Section Entrances · Count up only');
  return (await created.locator('.share-url').textContent()) ?? '';
}

/** The volunteer's page on a tap link, once live. */
async function openTapLink(browser: Browser, url: string, theme: Theme, viewport?: object) {
  const page = await memberPage(browser, 'Ada', {
    theme,
    ...(viewport ? { viewport: viewport as { width: number; height: number } } : {}),
  });
  await page.goto(url);
  await expect(page.getByRole('status').filter({ hasText: 'Live' })).toBeVisible({
    timeout: 15_000,
  });
  return page;
}

const SIZES = { phone: SCREENSHOT_SIZES.phone, desktop: SCREENSHOT_SIZES.desktop };

test.describe('tap links', () => {
  for (const theme of ['light', 'dark'] as Theme[]) {
    for (const [size, viewport] of Object.entries(SIZES)) {
      test(`made in the share dialog, tapped in another browser, revoked (${theme}, ${size})`, async ({
        browser,
      }) => {
        test.setTimeout(60_000);
        const { name, key } = await gateGroup();
        const owner = await memberPage(browser, 'Owner', { theme, viewport });
        await openGroup(owner, name, key);
        const dialog = await openShare(owner);
        await expect(dialog.getByText(/up to 50 tap links/)).toBeVisible();
        const url = await makeLinkInDialog(dialog, 'Gate B');
        expect(url).toMatch(new RegExp(`/${name}\\?key=[0-9a-f]{64}$`));
        expect(url).not.toContain(key);
        const row = dialog.getByRole('list', { name: 'Tap links' }).getByRole('listitem');
        await expect(row).toHaveCount(1);
        await expect(row).toContainText('Gate B');
        await expect(row).toContainText('Section Entrances · Count up only');
        await expect(row).toContainText('never · 0 taps');
        expect(await seriousA11yFindings(owner)).toEqual([]);
        expect(
          await owner.evaluate(() => document.documentElement.scrollWidth),
        ).toBeLessThanOrEqual(viewport.width);

        // The volunteer: the section's counters only, up only, nothing else to change.
        const ada = await openTapLink(browser, url, theme, viewport);
        await expect(ada.getByTestId('tap-link-line')).toHaveText(
          'Tap link · Gate B — you can count the counters of Entrances, up only. Nothing else can be changed with this link.',
        );
        await expect(ada.getByRole('article')).toHaveCount(2);
        await expect(counterCard(ada, 'Main Hall')).toHaveCount(0);
        for (const label of [
          'Add Counter',
          'Share URL',
          'Show QR code',
          'Group settings',
          'Change profile picture',
          'Reorder',
          /^Decrement by/,
          /^Counter value:/,
          /^Counter name:/,
          'Add thumbnail',
        ]) {
          await expect(ada.getByRole('button', { name: label })).toHaveCount(0);
        }
        const gateA = counterCard(ada, 'Gate A');
        await gateA.getByRole('button', { name: 'Increment by 1' }).click();
        await expect(gateA.locator('[data-field="Counter value"]')).toHaveText('1');
        // Keys count too, in the one direction; the other says why, on screen.
        await ada.keyboard.press('1');
        await ada.keyboard.press('+');
        await expect(gateA.locator('[data-field="Counter value"]')).toHaveText('2');
        await ada.keyboard.press('-');
        await expect(
          ada.getByText('This tap link counts up only: it cannot take away.'),
        ).toBeVisible();
        // Its own last tap can be taken back.
        await expect.poll(async () => (await api.counters(name, key))[0]?.value).toBe(2);
        await ada.keyboard.press('Control+z');
        await expect(gateA.locator('[data-field="Counter value"]')).toHaveText('1');
        expect(await seriousA11yFindings(ada)).toEqual([]);
        expect(await ada.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
          viewport.width,
        );

        // The owner's log names the volunteer and the link.
        await dialog.getByRole('button', { name: 'Done' }).click();
        const panel = await openActivity(owner);
        await expect(activityEntries(panel).first()).toContainText('Ada · Gate B undid');
        await expect(activityEntries(panel).nth(1)).toContainText('Ada · Gate B +1 on Gate A');
        // The board keeps Ada's taps through the link apart, and groups by link on request.
        await panel.getByRole('tab', { name: 'By member' }).click();
        const board = panel.getByRole('region', { name: 'Leaderboard' });
        await expect(board.getByRole('rowheader')).toHaveText(['Ada · Gate B']);
        await panel.getByText('Tap link', { exact: true }).click();
        await expect(board.getByRole('columnheader', { name: 'Tap link' })).toBeVisible();
        await expect(board.getByRole('rowheader')).toHaveText(['Gate B']);
        await panel.getByRole('button', { name: 'Close activity' }).click();

        // Revoked: the volunteer's page says so, and does not come back.
        const again = await openShare(owner);
        const revokeRow = again.getByRole('list', { name: 'Tap links' }).getByRole('listitem');
        await expect(revokeRow).not.toContainText('never');
        await revokeRow.getByRole('button', { name: 'Revoke Gate B' }).click();
        await expect(revokeRow).toContainText('It stops working at once');
        await revokeRow.getByRole('button', { name: 'Revoke now' }).click();
        await expect(again.getByText('No tap links yet.')).toBeVisible();
        await expect(ada.getByRole('heading', { name: 'Access Denied' })).toBeVisible();
        await expect(ada.getByText(LINK_MESSAGES.revoked)).toBeVisible();
        await ada.reload();
        await expect(ada.getByText(LINK_MESSAGES.revoked)).toBeVisible();
        await owner.context().close();
        await ada.context().close();
      });
    }
  }

  test('a new access key can revoke every tap link with it', async ({ browser }) => {
    const { name, key } = await gateGroup();
    const link = await makeLink(name, key, {
      label: 'Gate B',
      scope: { all: true },
      can: ['increment', 'decrement'],
    });
    const ada = await openTapLink(browser, `${baseUrl()}/${name}?key=${link.key ?? ''}`, 'dark');
    const owner = await memberPage(browser, 'Owner', { theme: 'dark' });
    await openGroup(owner, name, key);
    await owner.getByRole('button', { name: 'Show QR code' }).click();
    const dialog = owner.getByRole('dialog', { name: 'Share this group' });
    await dialog.getByRole('button', { name: 'Change access key' }).click();
    await expect(
      dialog.getByText(/Tap links keep working unless you revoke them too/),
    ).toBeVisible();
    await dialog.getByRole('checkbox', { name: 'Also revoke every tap link' }).check();
    await dialog.getByRole('button', { name: 'Change key now' }).click();
    await expect(owner).not.toHaveURL(new RegExp(key));
    await expect(ada.getByText(LINK_MESSAGES.revoked)).toBeVisible();
    await owner.context().close();
    await ada.context().close();
  });

  test('the display opened with a tap link shows its scope only', async ({ page }) => {
    const { name, key } = await gateGroup();
    const link = await makeLink(name, key, {
      label: 'Hall screen',
      scope: { section: 'Entrances' },
      can: ['increment'],
    });
    await page.goto(`/${name}/display?key=${link.key ?? ''}`);
    await expect(page.getByTestId('display-status')).toHaveText('Live', { timeout: 15_000 });
    await expect(page.getByText('Gate A')).toBeVisible();
    await expect(page.getByText('Gate B')).toBeVisible();
    await expect(page.getByText('Main Hall')).toHaveCount(0);
  });

  test('a down-only link offers no +, its note dialog only takes away, and focus mode says why it cannot add', async ({
    browser,
  }) => {
    const { name, key } = await gateGroup();
    const link = await makeLink(name, key, {
      label: 'Exit desk',
      scope: { all: true },
      can: ['decrement'],
    });
    const ada = await openTapLink(browser, `${baseUrl()}/${name}?key=${link.key ?? ''}`, 'light');
    await expect(ada.getByRole('article')).toHaveCount(3);
    await expect(ada.getByRole('button', { name: /^Increment by/ })).toHaveCount(0);
    const hall = counterCard(ada, 'Main Hall');
    await hall.getByRole('button', { name: 'Counter actions' }).click();
    await expect(ada.getByRole('menuitem')).toHaveText([
      'Count with a note…',
      'Focus mode',
      'History',
    ]);
    // Its note dialog can only take away.
    await ada.getByRole('menuitem', { name: 'Count with a note…' }).click();
    const noteDialog = ada.getByRole('dialog', { name: 'Count with a note' });
    await expect(noteDialog.getByRole('radio')).toHaveCount(1);
    await expect(noteDialog.getByRole('radio', { name: 'Take away 1' })).toBeChecked();
    await noteDialog.getByRole('button', { name: 'Cancel' }).click();
    await expect(noteDialog).toBeHidden();
    await hall.getByRole('button', { name: 'Counter actions' }).click();
    await ada.getByRole('menuitem', { name: 'Focus mode' }).click();
    const focus = ada.getByTestId('focus-mode');
    await expect(focus.getByText('This tap link counts down only: it cannot add.')).toBeVisible();
    // The whole screen is the + of focus mode: here it is marked disabled and does nothing.
    const plus = focus.getByRole('button', { name: /^Increment Main Hall/ });
    await expect(plus).toHaveAttribute('aria-disabled', 'true');
    await plus.click({ force: true });
    await expect(focus.getByTestId('focus-value')).toHaveText('0');
    await focus.getByRole('button', { name: 'Decrement Main Hall by 1' }).click();
    await expect(focus.getByTestId('focus-value')).toHaveText('-1');
    await ada.context().close();
  });
});

offlineTest(
  'taps a revoked link kept offline are dropped, with the sentence that says why',
  async ({ page, context, network }) => {
    const { name, key } = await gateGroup();
    const link = await makeLink(name, key, {
      label: 'Gate B',
      scope: { section: 'Entrances' },
      can: ['increment', 'decrement'],
    });
    await openGroup(page, name, link.key ?? '');
    const gateA = counterCard(page, 'Gate A');
    await goOffline(page, network);
    await gateA.getByRole('button', { name: 'Increment by 1' }).click();
    await gateA.getByRole('button', { name: 'Increment by 1' }).click();
    await expect(gateA.locator('[data-field="Counter value"]')).toHaveText('2');

    const revoked = await fetch(`${baseUrl()}/api/groups/${name}/links/${link.id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${key}` },
    });
    expect(revoked.status).toBe(204);
    await goOnline(context, network);
    await expect(page.getByText(LINK_MESSAGES.revoked)).toBeVisible({ timeout: 15_000 });
    await expect(
      page.getByText('The 2 taps waiting on this device were not counted.'),
    ).toBeVisible();
    expect((await api.counters(name, key)).map((counter) => counter.value)).toEqual([0, 0, 0]);
    // Nothing is kept for later: the next opening has nothing waiting.
    expect(
      await page.evaluate(() =>
        Object.keys(localStorage).filter((entry) => entry.startsWith('tally:outbox:')),
      ),
    ).toEqual([]);
  },
);

test.describe('tap link screenshots', () => {
  test.skip(!screenshotsWanted, 'set TALLY_SCREENSHOTS=1 to write .tmp/screenshots/tap-*.png');
  for (const theme of ['light', 'dark'] as Theme[]) {
    for (const [size, viewport] of Object.entries(SCREENSHOT_SIZES)) {
      test(`tap links (${theme}, ${size})`, async ({ browser }) => {
        const { name, key, counters } = await gateGroup();
        await makeLink(name, key, {
          label: 'Exit desk',
          scope: { counterIds: [counters[2]?.id ?? ''] },
          can: ['increment', 'decrement'],
        });
        const owner = await memberPage(browser, 'Owner', { theme, viewport });
        await openGroup(owner, name, key);
        const dialog = await openShare(owner);
        const url = await makeLinkInDialog(dialog, 'Gate B');
        await expect(
          dialog.getByRole('list', { name: 'Tap links' }).getByRole('listitem'),
        ).toHaveCount(2);
        // The buttons under the new link and the list below it, rather than the dialog's top.
        await dialog
          .getByTestId('tap-link-created')
          .locator('.share-actions')
          .evaluate((row) => {
            row.scrollIntoView({ block: 'center' });
          });
        await owner.screenshot({ path: screenshotPath(`tap-share-${size}-${theme}.png`) });

        const ada = await openTapLink(browser, url, theme, viewport);
        await counterCard(ada, 'Gate A').getByRole('button', { name: 'Increment by 1' }).click();
        await expect(ada.getByText(/^\+1 on Gate A/)).toBeVisible();
        await ada.screenshot({ path: screenshotPath(`tap-group-${size}-${theme}.png`) });
        await owner.context().close();
        await ada.context().close();
      });
    }
  }
});
