/**
 * The everyday screens at phone, tablet, desktop and TV widths: the top bar (Tally's mark and the
 * theme toggle) stays put without covering a counter's buttons; editing your own name keeps Save
 * and Cancel on screen; the footer links to the source the server names; activity times and the
 * time-zone list read right. TALLY_SCREENSHOTS=1 also writes .tmp/screenshots/group-bar-*.png.
 */
import zlib from 'node:zlib';
import type { Page } from '@playwright/test';
import { seriousA11yFindings } from './support/a11y.js';
import { api, baseUrl, expect, openGroup, seedGroup, test } from './support/fixtures.js';
import { memberPage, openActivity, type Theme } from './support/members.js';
import { SCREENSHOT_SIZES, screenshotPath, screenshotsWanted } from './support/screenshots.js';

const WIDTHS = [360, 390, 768, 1280, 1920] as const;

/** Counters enough to scroll at every width, in two sections and a run between them. */
const MANY = [
  { name: 'North door', section: 'Entrances', goal: 50 },
  { name: 'South door', section: 'Entrances', max: 30 },
  { name: 'Coffees' },
  { name: 'Temporary workers', description: 'Agency staff on site today' },
  { name: 'Stage', section: 'Hall', value: 12 },
  { name: 'Balcony', section: 'Hall', value: 4 },
  { name: 'Push-ups', goal: 100 },
  { name: 'Water', min: 0 },
  { name: 'Tickets', max: 200, value: 150 },
  { name: 'Laps' },
  { name: 'Visitors' },
  { name: 'Bikes' },
];

/**
 * At this scroll position: every −/+ button of a card that lies in the visible content area
 * (inside the viewport and below whatever is fixed or sticky at the top) must receive a tap at its
 * centre, near each edge and near each corner. Returns what was hit instead, if anything.
 */
function coveredButtons(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    let top = 0;
    for (const node of document.querySelectorAll<HTMLElement>('body *')) {
      const { position } = getComputedStyle(node);
      if (position !== 'fixed' && position !== 'sticky') continue;
      const rect = node.getBoundingClientRect();
      if (rect.top <= 1 && rect.width >= window.innerWidth / 2 && rect.height > 0) {
        top = Math.max(top, rect.bottom);
      }
    }
    const problems: string[] = [];
    const width = document.documentElement.clientWidth;
    for (const button of document.querySelectorAll<HTMLElement>('article button')) {
      const label = button.getAttribute('aria-label') ?? '';
      if (!/^(Increment|Decrement) by/.test(label)) continue;
      const rect = button.getBoundingClientRect();
      const visible =
        rect.top >= top &&
        rect.bottom <= window.innerHeight &&
        rect.left >= 0 &&
        rect.right <= width;
      if (!visible) continue;
      // Clear of the rounded corners: a point in the corner's curve is not on the button.
      const radius = parseFloat(getComputedStyle(button).borderTopLeftRadius) || 0;
      const inset = Math.ceil(radius * 0.3) + 2;
      const xs = [rect.left + inset, rect.left + rect.width / 2, rect.right - inset];
      const ys = [rect.top + inset, rect.top + rect.height / 2, rect.bottom - inset];
      for (const x of xs) {
        for (const y of ys) {
          const hit = document.elementFromPoint(x, y);
          if (hit === null || !button.contains(hit)) {
            const card = button.closest('article')?.getAttribute('aria-label') ?? '?';
            const what = hit
              ? `${hit.tagName.toLowerCase()}${hit.getAttribute('aria-label') ? ` "${hit.getAttribute('aria-label') ?? ''}"` : ''}`
              : 'nothing';
            problems.push(`${card} ${label} at (${Math.round(x)}, ${Math.round(y)}): ${what}`);
          }
        }
      }
    }
    return problems;
  });
}

/** The theme toggle lies wholly inside the top bar, and the bar's background is opaque. */
function barState(page: Page) {
  return page.evaluate(() => {
    const bar = document.querySelector<HTMLElement>('[data-testid="app-bar"]');
    const toggle = document.querySelector<HTMLElement>('button[aria-label^="Switch to"]');
    if (!bar || !toggle) return { found: false, inside: false, opaque: false, top: -1 };
    const b = bar.getBoundingClientRect();
    const t = toggle.getBoundingClientRect();
    const background = getComputedStyle(bar).backgroundColor;
    const alpha = /rgba?\(([^)]+)\)/.exec(background)?.[1]?.split(/[\s,/]+/)[3];
    return {
      found: true,
      inside: t.top >= b.top && t.bottom <= b.bottom && t.left >= b.left && t.right <= b.right,
      opaque: !background.startsWith('color(') && (alpha === undefined || Number(alpha) === 1),
      top: Math.round(b.top),
    };
  });
}

test.describe('the top bar', () => {
  for (const width of WIDTHS) {
    test(`the theme toggle never lies over a counter's − or + button, scrolled step by step: ${width} px`, async ({
      browser,
    }) => {
      test.setTimeout(60_000);
      const { name, key } = await seedGroup(MANY);
      const page = await memberPage(browser, 'Ada', {
        theme: 'dark',
        viewport: { width, height: width < 768 ? 740 : 800 },
      });
      await openGroup(page, name, key);
      await expect(page.getByRole('article')).toHaveCount(MANY.length);
      const height = await page.evaluate(() => document.documentElement.scrollHeight);
      const step = 97; // px: not a multiple of any card's height, so edges land everywhere
      let checked = 0;
      for (let y = 0; y <= height; y += step) {
        await page.evaluate((to) => {
          window.scrollTo(0, to);
        }, y);
        expect(await coveredButtons(page), `scrolled to ${y} px`).toEqual([]);
        const bar = await barState(page);
        expect(bar, `scrolled to ${y} px`).toEqual({
          found: true,
          inside: true,
          opaque: true,
          top: 0,
        });
        checked += 1;
      }
      expect(checked).toBeGreaterThan(3);
      await page.context().close();
    });
  }

  test('every screen has the bar with the toggle: landing, group, display, access denied', async ({
    page,
  }) => {
    const { name, key } = await seedGroup([{ name: 'Cups' }]);
    for (const path of ['/', `/${name}?key=${key}`, `/${name}/display?key=${key}`]) {
      await page.goto(path);
      await expect(
        page.getByRole('button', { name: /^Switch to (light|dark) mode$/ }),
      ).toBeVisible();
      expect(await barState(page), path).toMatchObject({ found: true, inside: true, opaque: true });
    }
    await page.goto(`/${name}?key=${'0'.repeat(64)}`);
    await expect(page.getByRole('heading', { name: 'Access Denied' })).toBeVisible();
    expect(await barState(page)).toMatchObject({ found: true, inside: true, opaque: true });
  });
});

test.describe('group screen screenshots', () => {
  test.skip(!screenshotsWanted, 'set TALLY_SCREENSHOTS=1 to write .tmp/screenshots');
  for (const theme of ['light', 'dark'] as Theme[]) {
    for (const [size, viewport] of Object.entries(SCREENSHOT_SIZES)) {
      test(`the group screen's top bar, scrolled (${theme}, ${size})`, async ({ browser }) => {
        const { name, key } = await seedGroup(MANY);
        await api.updateGroup(name, key, { displayName: 'Open day' });
        const page = await memberPage(browser, 'Ada', { theme, viewport });
        await openGroup(page, name, key);
        await page.evaluate(() => {
          window.scrollTo(0, 420);
        });
        await page.screenshot({ path: screenshotPath(`group-bar-${size}-${theme}.png`) });
        await page.context().close();
      });
    }
  }
});

test.describe('editing your own name', () => {
  for (const width of [360, 390]) {
    test(`Save and Cancel stay on a ${width} px screen and the page does not scroll sideways`, async ({
      browser,
    }) => {
      const { name, key } = await seedGroup([{ name: 'Cups' }]);
      const page = await memberPage(browser, 'Ada Lovelace', {
        theme: 'light',
        viewport: { width, height: 740 },
      });
      await openGroup(page, name, key);
      await page.getByRole('button', { name: 'Your name: Ada Lovelace' }).click();
      const input = page.getByRole('textbox', { name: 'Your name' });
      await expect(input).toBeFocused();
      for (const control of [
        input,
        page.getByRole('button', { name: 'Save', exact: true }),
        page.getByRole('button', { name: 'Cancel', exact: true }),
      ]) {
        const box = await control.boundingBox();
        expect(box).not.toBeNull();
        expect(box?.x ?? -1).toBeGreaterThanOrEqual(0);
        expect((box?.x ?? 0) + (box?.width ?? 0)).toBeLessThanOrEqual(width);
      }
      // The field is wide enough to read what is typed.
      expect((await input.boundingBox())?.width ?? 0).toBeGreaterThanOrEqual(120);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
        width,
      );
      await expect(page.getByRole('button', { name: /^Switch to/ })).toBeInViewport();
      await input.fill('Ada L.');
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await expect(page.getByText('Signed in as')).toBeVisible();
      await expect(page.getByRole('button', { name: 'Your name: Ada L.' })).toBeVisible();
      expect(await seriousA11yFindings(page)).toEqual([]);
      await page.context().close();
    });
  }
});

test.describe('footer', () => {
  test("links to the build's own source archive when the server names no repository", async ({
    page,
  }) => {
    await page.goto('/');
    const footer = page.getByRole('contentinfo');
    await expect(footer).toContainText(`© ${new Date().getFullYear()} Tally`);
    const link = footer.getByRole('link', { name: 'Source code of this server (.tar.gz)' });
    await expect(link).toHaveAttribute('href', '/source.tar.gz');
    const response = await fetch(`${baseUrl()}/source.tar.gz`);
    expect(response.status).toBe(200);
    // A gzip'd tar of this very project: its package.json is in it.
    const tar = zlib.gunzipSync(Buffer.from(await response.arrayBuffer())).toString('latin1');
    expect(tar).toContain('tally/package.json');
    expect(tar).toContain('"name": "tally"');
  });

  test('links to the repository the server names, and shows the copyright alone when it names none', async ({
    browser,
  }) => {
    // No service worker: it would answer the second visit from its cache, past the route below.
    const context = await browser.newContext({ serviceWorkers: 'block' });
    const page = await context.newPage();
    const shell = async (meta: string) => {
      await page.route('**/*', async (route) => {
        if (route.request().resourceType() !== 'document') return route.fallback();
        const response = await route.fetch();
        const html = (await response.text()).replace(/<meta name="tally-source"[^>]*>/, '');
        return route.fulfill({ response, body: html.replace('</head>', `${meta}</head>`) });
      });
      await page.goto('/');
      await page.unrouteAll();
    };
    await shell('<meta name="tally-source" content="https://git.example.org/club/tally" />');
    const footer = page.getByRole('contentinfo');
    const link = footer.getByRole('link', { name: 'Source code' });
    await expect(link).toHaveAttribute('href', 'https://git.example.org/club/tally');
    await expect(link).toHaveAttribute('target', '_blank');
    await expect(footer.getByRole('link')).not.toHaveAttribute('href', /tally-app/);

    await shell('');
    await expect(footer).toHaveText(`© ${new Date().getFullYear()} Tally`);
    await expect(footer.getByRole('link')).toHaveCount(0);
    await context.close();
  });
});

test.describe('activity entries', () => {
  test('a wrapped entry never starts a line with the "·" before its time', async ({ browser }) => {
    // Names of every length from 5 to 28 characters (48 entries, one page of the log): some
    // entry's time falls at a line's end.
    const names = Array.from({ length: 24 }, (_, i) =>
      `Tally ${'abcdefghijklmnopqrstuvwxyz'.slice(0, i)}`.trim(),
    );
    const { name, key, counters } = await seedGroup(names.map((counter) => ({ name: counter })));
    for (const counter of counters) await api.increment(name, key, counter.id);
    const page = await memberPage(browser, 'Ada', { viewport: { width: 360, height: 740 } });
    await openGroup(page, name, key);
    const panel = await openActivity(page);
    const entries = panel.getByRole('list', { name: 'Activity log' }).getByRole('listitem');
    await expect(entries).toHaveCount(names.length * 2);
    const lines = await entries.evaluateAll((items) =>
      items.map((item) => {
        const time = item.querySelector('time');
        const paragraph = time?.closest('p');
        if (!time || !paragraph)
          return { text: item.textContent, separatorStartsLine: true, wrapped: false };
        // Every character's line (its box's top): the separator's and the one before it.
        const walker = document.createTreeWalker(paragraph, NodeFilter.SHOW_TEXT);
        const chars: { char: string; top: number }[] = [];
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
          const text = node.textContent ?? '';
          for (let i = 0; i < text.length; i += 1) {
            const range = document.createRange();
            range.setStart(node, i);
            range.setEnd(node, i + 1);
            const rect = range.getBoundingClientRect();
            if (rect.width > 0 || text[i] === '·')
              chars.push({ char: text[i] ?? '', top: rect.top });
          }
        }
        const at = chars.findIndex((entry) => entry.char === '·');
        const before = chars
          .slice(0, at)
          .filter((entry) => entry.char.trim() !== '')
          .at(-1);
        const separator = chars[at];
        const timeTop = time.getBoundingClientRect().top;
        return {
          text: paragraph.textContent,
          separatorStartsLine: !separator || !before || separator.top - before.top > 2,
          wrapped: timeTop - (chars[0]?.top ?? timeTop) > 2,
        };
      }),
    );
    expect(lines.filter((line) => line.separatorStartsLine).map((line) => line.text)).toEqual([]);
    // The test means something: some times did wrap onto a line of their own.
    expect(lines.some((line) => line.wrapped)).toBe(true);
    await page.context().close();
  });
});

test.describe('time zones', () => {
  test('the list offers current IANA names only, and the server keeps Asia/Kolkata as chosen', async ({
    page,
  }) => {
    const { name, key } = await seedGroup([{ name: 'Cups' }]);
    await openGroup(page, name, key);
    await page.getByRole('button', { name: 'Group settings' }).click();
    const dialog = page.getByRole('dialog', { name: 'Group settings' });
    const zone = dialog.getByLabel('Time zone');
    // The dialog is its own chunk: wait for its list before reading it.
    await expect(zone.locator('option[value="UTC"]')).toHaveCount(1);
    const offered = await zone
      .locator('option')
      .evaluateAll((options) => options.map((option) => (option as HTMLOptionElement).value));
    for (const old of ['Asia/Calcutta', 'Asia/Saigon', 'Europe/Kiev']) {
      expect(offered).not.toContain(old);
    }
    for (const current of ['Asia/Kolkata', 'Asia/Ho_Chi_Minh', 'Europe/Kyiv']) {
      expect(offered).toContain(current);
    }
    expect(new Set(offered).size).toBe(offered.length);
    await zone.selectOption('Asia/Kolkata');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect(dialog).toBeHidden();
    await expect.poll(async () => (await api.join(name, key)).group.timeZone).toBe('Asia/Kolkata');
    // Opened again, it shows the zone saved as the current one.
    await page.getByRole('button', { name: 'Group settings' }).click();
    await expect(page.getByLabel('Time zone')).toHaveValue('Asia/Kolkata');
  });
});
