/**
 * Shared test helpers: the base URL of the server started by global-setup.ts, unique group
 * names, and a small API client for arranging data and checking what the server holds.
 */
import { randomBytes } from 'node:crypto';
import { test as base, expect, type Locator, type Page } from '@playwright/test';
import type { Counter, Group, GroupSnapshot } from '../../../src/shared/api.js';

export { expect };

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run the suite with \`npm run test:e2e\``);
  return value;
}

export const baseUrl = () => required('E2E_BASE_URL');
export const imagesUrl = () => required('E2E_IMAGES_URL');

export const test = base.extend({
  // Not an option fixture of its own: the server's address is only known after global setup.
  // eslint-disable-next-line no-empty-pattern -- Playwright requires the destructuring form
  baseURL: async ({}, use) => {
    await use(baseUrl());
  },
});

/** A group name no other test uses. */
export function uniqueName(prefix = 'group'): string {
  return `${prefix}-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`;
}

export function newKey(): string {
  return randomBytes(32).toString('hex');
}

async function call<T>(method: string, path: string, key?: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = {};
  if (key) headers.authorization = `Bearer ${key}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(baseUrl() + path, {
    method,
    headers,
    body: body === undefined ? null : JSON.stringify(body),
  });
  if (!response.ok)
    throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return (response.status === 204 ? undefined : await response.json()) as T;
}

export const api = {
  join: (name: string, key: string) =>
    call<GroupSnapshot>('POST', `/api/groups/${name}/join`, undefined, { key }),
  counters: (name: string, key: string) =>
    call<Counter[]>('GET', `/api/groups/${name}/counters`, key),
  createCounter: (name: string, key: string, fields: Partial<Counter> = {}) =>
    call<Counter>('POST', `/api/groups/${name}/counters`, key, fields),
  updateCounter: (name: string, key: string, id: string, patch: Partial<Counter>) =>
    call<Counter>('PATCH', `/api/groups/${name}/counters/${id}`, key, patch),
  increment: (name: string, key: string, id: string, times = 1) =>
    call<Counter>('POST', `/api/groups/${name}/counters/${id}/increment`, key, { times }),
  deleteCounter: (name: string, key: string, id: string) =>
    call<undefined>('DELETE', `/api/groups/${name}/counters/${id}`, key),
  updateGroup: (name: string, key: string, patch: Partial<Group>) =>
    call<Group>('PATCH', `/api/groups/${name}`, key, patch),
  /** Any other POST of the API (a tap link, an alert rule), its answer unread. */
  post: (path: string, key: string, body: unknown) => call<unknown>('POST', path, key, body),
};

/** Creates a group (through the API) with the given counters; returns its name and key. */
export async function seedGroup(
  counters: Partial<Counter>[] = [],
  prefix = 'group',
): Promise<{ name: string; key: string; counters: Counter[] }> {
  const name = uniqueName(prefix);
  const key = newKey();
  await api.join(name, key);
  const created: Counter[] = [];
  for (const fields of counters) created.push(await api.createCounter(name, key, fields));
  return { name, key, counters: created };
}

/**
 * Something in the share dialog's Tap links tab and in the alerts: a link "Gate B" that counts up
 * every counter, and a push alert when section Hall is nearly full.
 */
export async function seedTapLinkAndAlert(name: string, key: string): Promise<void> {
  await api.post(`/api/groups/${name}/links`, key, {
    label: 'Gate B',
    scope: { all: true },
    can: ['increment'],
  });
  await api.post(`/api/groups/${name}/alerts`, key, {
    counterId: null,
    section: 'Hall',
    when: { kind: 'capacity', state: 'nearlyFull' },
    to: { kind: 'push' },
  });
}

/** Opens the group screen and waits until the live channel is connected. */
export async function openGroup(page: Page, name: string, key: string): Promise<void> {
  await page.goto(`/${name}?key=${key}`);
  // Readiness, not the behaviour under test: on a loaded CI machine the socket can take longer
  // than the default 5 s to authenticate (seen once in the XSS suite).
  await expect(page.getByRole('status').filter({ hasText: 'Live' })).toBeVisible({
    timeout: 15_000,
  });
}

export function counterCard(page: Page, name: string): Locator {
  return page.getByRole('article', { name, exact: true });
}

/**
 * Chooses one of a card's less frequent actions ('Goal and limits', 'Focus mode', 'Delete
 * counter'): they sit behind the card's one menu button.
 */
export async function cardAction(
  card: Locator,
  action: string,
  how: 'click' | 'tap' = 'click',
): Promise<void> {
  const button = card.getByRole('button', { name: 'Counter actions' });
  const item = card.getByRole('menuitem', { name: action, exact: true });
  if (how === 'tap') {
    await button.tap();
    await item.tap();
  } else {
    await button.click();
    await item.click();
  }
}

/** A view-only key for the group (the share dialog's "Create view-only link"). */
export async function createViewKey(name: string, key: string): Promise<string> {
  return (await call<{ viewKey: string }>('POST', `/api/groups/${name}/view-key`, key)).viewKey;
}

/** The theme a page starts in (what the theme toggle stores). */
export async function startInTheme(page: Page, theme: 'light' | 'dark'): Promise<void> {
  await page.addInitScript((value) => {
    localStorage.setItem('tally:theme', value);
  }, theme);
}

/** The screen sizes screenshots are taken at, px (one list, kept with the screenshot writers). */
export { SCREENSHOT_SIZES as SCREEN_SIZES } from './screenshots.js';

export function counterValue(card: Locator): Locator {
  return card.getByRole('button', { name: /^Counter value: / });
}

type Watched = { visibleMs: number[] };

/**
 * Measures, inside the page, how long a text stays on screen each time it appears (a
 * MutationObserver with performance.now()), so timing checks do not depend on how busy the test
 * runner is. Returns a function that reads the durations of completed appearances, ms.
 */
export async function watchTextDuration(
  page: Page,
  text: string,
): Promise<() => Promise<number[]>> {
  const id = `watch-${Math.random().toString(36).slice(2)}`;
  await page.evaluate(
    ({ id, text }) => {
      const state: Watched & { since: number | null } = { visibleMs: [], since: null };
      (window as unknown as Record<string, unknown>)[id] = state;
      const check = () => {
        const shown = document.body.textContent.includes(text);
        if (shown && state.since === null) state.since = performance.now();
        if (!shown && state.since !== null) {
          state.visibleMs.push(performance.now() - state.since);
          state.since = null;
        }
      };
      new MutationObserver(check).observe(document.body, {
        subtree: true,
        childList: true,
        characterData: true,
      });
    },
    { id, text },
  );
  return () =>
    page.evaluate((id) => (window as unknown as Record<string, Watched>)[id]?.visibleMs ?? [], id);
}
