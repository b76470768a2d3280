/**
 * The live channel across a server restart: the server closes every socket with 1001 (going
 * away) when it stops; the page must say it is offline, reconnect by itself once the server is
 * back (within 5 s of it listening again), without a reload, and show what changed meanwhile —
 * including a change another client made while this page was away.
 *
 * This test stops its server, so it starts its own (support/server.ts) on its own database; the
 * change "while away" goes through a second server process on the same database and another
 * port, which the page does not know about.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from '@playwright/test';
import type { Counter } from '../../src/shared/api.js';
import { counterCard, counterValue, expect, newKey, uniqueName } from './support/fixtures.js';
import { startServer, type RunningServer } from './support/server.js';

/** How soon after the server listens again the page must be live and up to date, ms. */
const BACK_WITHIN_MS = 5_000;

async function call<T>(origin: string, method: string, url: string, key: string, body?: unknown) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (!url.endsWith('/join')) headers.authorization = `Bearer ${key}`;
  const response = await fetch(origin + url, {
    method,
    headers,
    body: JSON.stringify(body ?? {}),
  });
  if (!response.ok) throw new Error(`${method} ${url}: ${String(response.status)}`);
  return (await response.json()) as T;
}

test('after a server restart the page reconnects by itself and shows what changed while it was away', async ({
  page,
}) => {
  test.setTimeout(120_000);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tally-restart-'));
  const databaseFile = path.join(dir, 'tally.sqlite');
  const servers: RunningServer[] = [];
  const start = async (port: number) => {
    const server = await startServer({ port, databaseFile });
    servers.push(server);
    return server;
  };
  try {
    const first = await start(0);
    const name = uniqueName('restart');
    const key = newKey();
    const group = `/api/groups/${name}`;
    await call(first.url, 'POST', `${group}/join`, key, { key });
    const counter = await call<Counter>(first.url, 'POST', `${group}/counters`, key, {
      name: 'Survivor',
      value: 1,
    });

    await page.goto(`${first.url}/${name}?key=${key}`);
    const live = page.getByRole('status').filter({ hasText: 'Live' });
    const card = counterCard(page, 'Survivor');
    await expect(live).toBeVisible();
    await expect(counterValue(card)).toHaveText('1');
    // A mark on this very document: a reload would wipe it.
    await page.evaluate(() => {
      (window as unknown as Record<string, unknown>).tallyNotReloaded = true;
    });

    await first.stop();
    await expect(page.getByRole('status').filter({ hasText: 'Offline' })).toBeVisible();

    // Somebody else changes the group while this page is away.
    const elsewhere = await start(0);
    await call(elsewhere.url, 'POST', `${group}/counters/${counter.id}/increment`, key, {
      times: 4,
    });
    await call(elsewhere.url, 'POST', `${group}/counters`, key, { name: 'Made while away' });
    await elsewhere.stop();

    // The server is back where the page expects it.
    await start(first.port);
    await expect(live).toBeVisible({ timeout: BACK_WITHIN_MS });
    await expect(counterValue(card)).toHaveText('5', { timeout: BACK_WITHIN_MS });
    await expect(counterCard(page, 'Made while away')).toBeVisible({ timeout: BACK_WITHIN_MS });
    expect(
      await page.evaluate(
        () => (window as unknown as Record<string, unknown>).tallyNotReloaded === true,
      ),
    ).toBe(true);

    // And it is live for real: a change made now arrives as a live change.
    await call(first.url, 'POST', `${group}/counters/${counter.id}/increment`, key, {});
    await expect(counterValue(card)).toHaveText('6');
  } finally {
    for (const server of servers) await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
