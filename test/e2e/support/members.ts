/**
 * Members with names (docs/product.md#member-names): each browser context is one member, signed in
 * under a display name of the test's choosing, so the activity log can be read back by name.
 */
import type { Browser, Locator, Page } from '@playwright/test';
import { GUEST_NAME_KEY, THEME_KEY } from '../../../src/web/lib/storage.js';

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
