/**
 * XSS: script payloads in every user-controlled string the app renders — counter name and
 * description, group display name, guest name, thumbnail and profile image URLs — arriving by
 * the API, by the live channel and by typing. In Chromium, no payload may run (a `window.__xss`
 * flag and a dialog listener), no inline handler or foreign frame may reach the DOM, no CSP
 * violation may be reported (nothing injected even tried), and no `javascript:`/`data:` URL may
 * reach a `src` or `href`.
 */
import type { Page } from '@playwright/test';
import { MESSAGES } from '../../src/shared/messages.js';
import {
  api,
  baseUrl,
  counterCard,
  expect,
  imagesUrl,
  newKey,
  openGroup,
  seedGroup,
  test,
  uniqueName,
} from './support/fixtures.js';

/** Each sets window.__xss or opens a dialog if it ever runs. */
const PAYLOADS = [
  '<script>window.__xss=1</script>',
  '<img src=x onerror="window.__xss=1">',
  '"><svg onload=window.__xss=1>',
  "'><img src=x onerror=alert(1)>",
  '<scr<script></script>ipt>window.__xss=1</script>',
  '<a href="javascript:window.__xss=1">click</a>',
  'javascript:window.__xss=1',
  '<iframe src="javascript:window.__xss=1"></iframe>',
  '<iframe srcdoc="<script>parent.__xss=1</script>"></iframe>',
  '<object data="data:text/html,<script>parent.__xss=1</script>"></object>',
  '<math><mtext><table><mglyph><style><img src=x onerror=window.__xss=1>',
  '<details open ontoggle=window.__xss=1>',
  '</textarea><img src=x onerror=window.__xss=1>',
  '{{constructor.constructor("window.__xss=1")()}}',
  '${window.__xss=1}',
  '<b>bold</b>',
];

/** Image URLs that are valid http(s) but try to break out of an attribute. */
const URL_PAYLOADS = [
  'https://img.example/a.png?"onerror="window.__xss=1',
  "https://img.example/a.png?'><script>window.__xss=1</script>",
  'http://img.example/"><img/src=x/onerror=alert(1)>.png',
];

/** URLs that must never reach an attribute: refused by the server and by the editors. */
const BAD_URLS = [
  'javascript:window.__xss=1',
  'JavaScript:alert(1)',
  ' javascript:alert(1)',
  'data:image/svg+xml,<svg onload=alert(1)>',
  'data:text/html,<script>alert(1)</script>',
  'vbscript:msgbox(1)',
];

interface Traps {
  dialogs: string[];
}

async function armTraps(page: Page): Promise<Traps> {
  const traps: Traps = { dialogs: [] };
  page.on('dialog', (dialog) => {
    traps.dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  await page.addInitScript(() => {
    const w = window as unknown as { __xss: number; __csp: string[] };
    w.__xss = 0;
    w.__csp = [];
    document.addEventListener('securitypolicyviolation', (event) => {
      w.__csp.push(`${event.violatedDirective} ${event.blockedURI}`);
    });
  });
  return traps;
}

/** What the page holds that it should not. */
function inspect(page: Page) {
  return page.evaluate(() => {
    const w = window as unknown as { __xss: number; __csp: string[] };
    const all = [...document.querySelectorAll('*')];
    const urlAttributes = ['src', 'href', 'srcset', 'action', 'formaction', 'xlink:href', 'data'];
    return {
      ran: w.__xss,
      csp: w.__csp,
      badUrls: all.flatMap((element) =>
        urlAttributes
          .map((name) => element.getAttribute(name))
          .filter((value): value is string => value !== null)
          .filter((value) => /^\s*(javascript|data|vbscript):/i.test(value)),
      ),
      handlers: all.flatMap((element) =>
        [...element.attributes]
          .filter((attribute) => attribute.name.toLowerCase().startsWith('on'))
          .map((attribute) => `${element.tagName} ${attribute.name}`),
      ),
      foreign: document.querySelectorAll('iframe, frame, object, embed, base, meta[http-equiv]')
        .length,
      inlineOrForeignScripts: [...document.scripts].filter(
        (script) => script.src === '' || new URL(script.src).origin !== location.origin,
      ).length,
    };
  });
}

async function expectClean(page: Page, traps: Traps): Promise<void> {
  // Let image errors and any deferred handlers fire before looking.
  await page.waitForTimeout(500);
  expect(await inspect(page)).toEqual({
    ran: 0,
    csp: [],
    badUrls: [],
    handlers: [],
    foreign: 0,
    inlineOrForeignScripts: 0,
  });
  expect(traps.dialogs).toEqual([]);
}

test.describe('script payloads', () => {
  test('stored in counter names, descriptions, the group name and image URLs, nothing runs — loaded or arriving live', async ({
    page,
    browser,
  }) => {
    const traps = await armTraps(page);
    const { name, key } = await seedGroup();
    await api.updateGroup(name, key, {
      displayName: PAYLOADS[1],
      profileImageUrl: URL_PAYLOADS[0],
    });
    for (const [index, payload] of PAYLOADS.slice(0, 8).entries()) {
      await api.createCounter(name, key, {
        name: payload,
        description: PAYLOADS[(index + 3) % PAYLOADS.length],
        thumbnailUrl: URL_PAYLOADS[index % URL_PAYLOADS.length],
      });
    }
    await openGroup(page, name, key);
    await expect(page.getByRole('article')).toHaveCount(8);

    // A second member is watching while the rest arrive over the live channel.
    const watcher = await (await browser.newContext()).newPage();
    const watcherTraps = await armTraps(watcher);
    await openGroup(watcher, name, key);
    for (const payload of PAYLOADS.slice(8)) {
      await api.createCounter(name, key, { name: payload, description: payload });
    }
    await api.updateGroup(name, key, { displayName: PAYLOADS[2] });
    await expect(page.getByRole('article')).toHaveCount(PAYLOADS.length);
    await expect(watcher.getByRole('article')).toHaveCount(PAYLOADS.length);

    // Text stays text: the markup shows literally and makes no element.
    const bold = counterCard(page, '<b>bold</b>');
    await expect(bold).toBeVisible();
    await expect(bold.locator('b')).toHaveCount(0);

    await expectClean(page, traps);
    await expectClean(watcher, watcherTraps);
    await watcher.context().close();
  });

  test('typed into the group name, a counter name, a description and the guest name, nothing runs', async ({
    page,
  }) => {
    const traps = await armTraps(page);
    const { name, key } = await seedGroup([{ name: 'Target' }]);
    await openGroup(page, name, key);

    await page.getByRole('button', { name: /^Group name/ }).click();
    await page.getByRole('textbox', { name: 'Group name' }).fill(PAYLOADS[2] ?? '');
    await page.getByRole('textbox', { name: 'Group name' }).press('Enter');

    await page.getByRole('button', { name: /^Your name/ }).click();
    await page.getByRole('textbox', { name: 'Your name' }).fill(PAYLOADS[1] ?? '');
    await page.getByRole('textbox', { name: 'Your name' }).press('Enter');

    const card = counterCard(page, 'Target');
    await card.getByRole('button', { name: /^Description/ }).click();
    await card.getByRole('textbox', { name: 'Description' }).fill(PAYLOADS[11] ?? '');
    await card.getByRole('textbox', { name: 'Description' }).press('Enter');
    await card.getByRole('button', { name: /^Counter name/ }).click();
    await card.getByRole('textbox', { name: 'Counter name' }).fill('<b>bold</b>');
    await card.getByRole('textbox', { name: 'Counter name' }).press('Enter');
    await expect(counterCard(page, '<b>bold</b>')).toBeVisible();
    await expect.poll(async () => (await api.counters(name, key))[0]?.name).toBe('<b>bold</b>');

    // Reload: everything typed now comes back from the server and local storage.
    await page.reload();
    await expect(page.getByText('Signed in as')).toBeVisible();
    await expect(counterCard(page, '<b>bold</b>')).toBeVisible();
    await expectClean(page, traps);
  });

  test('a guest name planted in local storage renders as text', async ({ page }) => {
    const traps = await armTraps(page);
    await page.addInitScript((payload) => {
      window.localStorage.setItem('tally:guestName', payload);
    }, PAYLOADS[3] ?? '');
    const { name, key } = await seedGroup();
    await openGroup(page, name, key);
    await expect(page.getByText(PAYLOADS[3] ?? '')).toBeVisible();
    await expectClean(page, traps);
  });
});

test.describe('javascript: and data: URLs', () => {
  test('are refused by the API for thumbnails and profile pictures', async () => {
    const { name, key } = await seedGroup();
    for (const url of BAD_URLS) {
      await expect(api.createCounter(name, key, { thumbnailUrl: url })).rejects.toThrow(/400/);
      await expect(api.updateGroup(name, key, { profileImageUrl: url })).rejects.toThrow(/400/);
    }
  });

  test('are refused by the thumbnail editor and the profile picture dialog and never reach the page', async ({
    page,
  }) => {
    const traps = await armTraps(page);
    const { name, key } = await seedGroup([{ name: 'Pictured' }]);
    await openGroup(page, name, key);
    const card = counterCard(page, 'Pictured');
    await card.getByRole('button', { name: 'Add thumbnail' }).click();
    const input = card.getByLabel('Thumbnail URL');
    for (const url of BAD_URLS) {
      await input.fill(url);
      await input.press('Enter');
      await expect(card.getByText(MESSAGES.invalidUrl)).toBeVisible();
    }
    await page.keyboard.press('Escape');

    await page.getByRole('button', { name: 'Change profile picture' }).click();
    const dialog = page.getByRole('dialog', { name: 'Profile Picture' });
    for (const url of BAD_URLS) {
      await dialog.getByLabel('Image URL').fill(url);
      await dialog.getByRole('button', { name: 'Save' }).click();
      await expect(dialog.getByText(MESSAGES.invalidUrl)).toBeVisible();
    }
    await page.keyboard.press('Escape');
    expect((await api.counters(name, key))[0]?.thumbnailUrl).toBeNull();
    expect((await api.join(name, key)).group.profileImageUrl).toBeNull();
    await expectClean(page, traps);
  });

  test('the landing page shows a hostile-looking profile picture URL as an image source only', async ({
    page,
  }) => {
    const traps = await armTraps(page);
    const name = uniqueName('xss');
    const key = newKey();
    await api.join(name, key);
    await api.updateGroup(name, key, {
      profileImageUrl: `${imagesUrl()}/ok.png?"onerror="window.__xss=1`,
    });
    await page.goto(baseUrl());
    await page.getByLabel('Unique Group Name').fill(name);
    await expect(page.getByText(MESSAGES.groupExists, { exact: true })).toBeVisible();
    await expect(page.getByRole('img', { name: /profile picture/ })).toHaveAttribute(
      'src',
      /^http:\/\/127\.0\.0\.1:\d+\/ok\.png\?%22onerror=%22window\.__xss=1$/,
    );
    await expectClean(page, traps);
  });
});
