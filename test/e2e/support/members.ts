/**
 * Members with names (docs/product.md#member-names): each browser context is one member, signed in
 * under a display name of the test's choosing, so the activity log can be read back by name.
 */
import type { Browser, Locator, Page } from '@playwright/test';
import WebSocket from 'ws';
import { PROTOCOL_VERSION, livePath } from '../../../src/shared/live.js';
import { GUEST_NAME_KEY, THEME_KEY } from '../../../src/web/lib/storage.js';
import { baseUrl } from './fixtures.js';

export type Theme = 'light' | 'dark';

/**
 * A fresh context whose 'Signed in as' name is `name` from the first page load on; with a
 * `theme`, in that theme (else the browser's), and with a `viewport`, that size.
 */
export async function memberPage(
  browser: Browser,
  name: string,
  options: { theme?: Theme; viewport?: { width: number; height: number } } = {},
): Promise<Page> {
  const context = await browser.newContext(
    options.viewport === undefined ? {} : { viewport: options.viewport },
  );
  await context.addInitScript(
    (entries) => {
      for (const [key, value] of entries) window.localStorage.setItem(key, value);
    },
    [
      [GUEST_NAME_KEY, name],
      ...(options.theme === undefined ? [] : [[THEME_KEY, options.theme] as const]),
    ] as (readonly [string, string])[],
  );
  return context.newPage();
}

/** This page opens in `theme` from its next load on. */
export async function useTheme(page: Page, theme: Theme): Promise<void> {
  await page.addInitScript(
    ([key, value]) => {
      window.localStorage.setItem(key, value);
    },
    [THEME_KEY, theme] as const,
  );
}

/** Opens the activity panel from the header and returns it. */
export async function openActivity(page: Page): Promise<Locator> {
  await page.getByRole('button', { name: 'Activity', exact: true }).click();
  const panel = page.getByRole('dialog', { name: 'Activity' });
  await panel
    .getByRole('list', { name: 'Activity log' })
    .or(panel.getByText('No activity yet'))
    .waitFor();
  return panel;
}

/** The entries of the panel, newest first. */
export function activityEntries(panel: Locator): Locator {
  return panel.getByRole('list', { name: 'Activity log' }).getByRole('listitem');
}

/** The undo toast (a status region at the bottom of the screen). */
export function toast(page: Page): Locator {
  return page.getByRole('status').filter({ has: page.getByRole('button', { name: 'Dismiss' }) });
}

/**
 * A member connected from outside the browser (the live protocol, docs/api.md): it is in every
 * page's 'Here now' from when this resolves until its socket closes.
 */
export async function connectMember(
  group: string,
  key: string,
  id: string,
  name: string,
): Promise<WebSocket> {
  const socket = new WebSocket(baseUrl().replace(/^http/, 'ws') + livePath(group));
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  // Resolved once the server has listed the member: a page opened next finds it already here.
  const listed = new Promise<void>((resolve) => {
    const onMessage = (data: Buffer) => {
      if ((JSON.parse(data.toString()) as { type?: string }).type !== 'presence') return;
      socket.off('message', onMessage);
      resolve();
    };
    socket.on('message', onMessage);
  });
  socket.send(
    JSON.stringify({ type: 'auth', protocol: PROTOCOL_VERSION, key, member: { id, name } }),
  );
  await listed;
  return socket;
}
