/**
 * The app in development, where React's StrictMode mounts every component, runs every effect,
 * cleans it up and runs it again, to find effects that do not undo what they did. The built app
 * the other specs use does none of that, so this spec serves the source through Vite's dev
 * server (its proxy sends /api, and the live socket, to the test server) and checks that the
 * double run leaves nothing behind: one live socket per tab, dialogs that stay open, edits and
 * taps that land once, and no error in the console.
 */
import path from 'node:path';
import { createServer, type ViteDevServer } from 'vite';
import type { Page, WebSocket } from '@playwright/test';
import {
  api,
  baseUrl,
  counterCard,
  counterValue,
  expect,
  seedGroup,
  test,
} from './support/fixtures.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

let vite: ViteDevServer;
let devUrl: string;

test.beforeAll(async () => {
  vite = await createServer({
    configFile: path.join(ROOT, 'vite.config.ts'),
    logLevel: 'error',
    server: {
      host: '127.0.0.1',
      port: 0,
      hmr: false,
      proxy: { '/api': { target: baseUrl(), ws: true } },
    },
  });
  await vite.listen();
  const address = vite.httpServer?.address();
  if (!address || typeof address === 'string') throw new Error('Vite is not listening');
  devUrl = `http://127.0.0.1:${String(address.port)}`;
});

test.afterAll(async () => {
  await vite.close();
});

/** Console errors and uncaught exceptions of the page, and its live sockets still open. */
function watch(page: Page): { problems: string[]; openSockets: () => WebSocket[] } {
  const problems: string[] = [];
  const sockets: WebSocket[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('websocket', (socket) => {
    if (socket.url().includes('/live')) sockets.push(socket);
  });
  return { problems, openSockets: () => sockets.filter((socket) => !socket.isClosed()) };
}

test('in development, StrictMode double effects leave one socket, open dialogs and single taps', async ({
  page,
}) => {
  // The dev server compiles modules on first request: slower than the built app.
  test.setTimeout(90_000);
  const { name, key, counters } = await seedGroup([{ name: 'Laps', value: 3 }]);
  const { problems, openSockets } = watch(page);
  await page.goto(`${devUrl}/${name}?key=${key}`);
  await expect(page.getByRole('status').filter({ hasText: 'Live' })).toBeVisible({
    timeout: 30_000,
  });
  // StrictMode opened, closed and opened the socket: one is left, and it is live.
  await expect.poll(() => openSockets().length).toBe(1);

  // A tap is sent once, not once per effect run.
  const card = counterCard(page, 'Laps');
  await card.getByRole('button', { name: /^Increment by/ }).click();
  await expect(counterValue(card)).toHaveAccessibleName('Counter value: 4');
  await expect.poll(async () => (await api.counters(name, key))[0]?.value).toBe(4);

  // A dialog opened from an effect stays open after StrictMode's cleanup and second run.
  await page.getByRole('button', { name: 'Change profile picture' }).click();
  const dialog = page.getByRole('dialog', { name: 'Profile Picture' });
  await expect(dialog).toBeVisible();
  await page.waitForTimeout(300);
  await expect(dialog).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();

  // An inline edit takes focus and saves once.
  await card.getByText('Laps', { exact: true }).click();
  const input = page.getByRole('textbox', { name: 'Counter Name' });
  await expect(input).toBeFocused();
  await input.fill('Laps run');
  await input.press('Enter');
  await expect(counterCard(page, 'Laps run')).toBeVisible();
  await expect
    .poll(async () => (await api.counters(name, key)).find((c) => c.id === counters[0]?.id)?.name)
    .toBe('Laps run');

  expect(openSockets()).toHaveLength(1);
  expect(problems).toEqual([]);
});
