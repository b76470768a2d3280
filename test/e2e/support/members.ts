/**
 * Members with names (issue 7): each browser context is one member, signed in under a display
 * name of the test's choosing, so the activity log can be read back by name.
 */
import type { Browser, Locator, Page } from '@playwright/test';
import { GUEST_NAME_KEY } from '../../../src/web/lib/storage.js';

/** A fresh context whose 'Signed in as' name is `name` from the first page load on. */
export async function memberPage(browser: Browser, name: string): Promise<Page> {
  const context = await browser.newContext();
  await context.addInitScript(
    ([key, value]) => {
      window.localStorage.setItem(key, value);
    },
    [GUEST_NAME_KEY, name] as const,
  );
  return context.newPage();
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
