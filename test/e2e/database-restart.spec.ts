/**
 * A member taps through a database restart: Tally on a PostgreSQL of this test's own (initdb and
 * pg_ctl, its own port), the database stopped while the page is open and started again. While it
 * is away the page says calmly that changes are not being saved and keeps the taps; once it is
 * back the notice goes, the kept taps are sent, and every tap ends counted exactly once.
 */
import { test } from '@playwright/test';
import { PostgresCluster, postgresBinaries } from '../../bench/faults/cluster.js';
import { startInstance, stopInstance, type Instance } from '../../bench/faults/scenario.js';
import type { Counter } from '../../src/shared/api.js';
import { MESSAGES } from '../../src/shared/messages.js';
import { counterCard, counterValue, expect, newKey, uniqueName } from './support/fixtures.js';

async function call<T>(origin: string, method: string, url: string, key: string, body?: unknown) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (!url.endsWith('/join')) headers.authorization = `Bearer ${key}`;
  const response = await fetch(origin + url, {
    method,
    headers,
    body: method === 'GET' ? null : JSON.stringify(body ?? {}),
  });
  if (!response.ok) throw new Error(`${method} ${url}: ${String(response.status)}`);
  return (await response.json()) as T;
}

test.skip(postgresBinaries() === null, 'no PostgreSQL server programs under /usr/lib/postgresql');

test('taps made while the database restarts are kept, shown as not saved, then counted once', async ({
  page,
}) => {
  test.setTimeout(120_000);
  const database = await PostgresCluster.create();
  let tally: Instance | undefined;
  try {
    tally = await startInstance(`${database.url}?schema=tally`, true);
    const origin = `http://127.0.0.1:${String(tally.port)}`;
    const name = uniqueName('dbrestart');
    const key = newKey();
    const group = `/api/groups/${name}`;
    await call(origin, 'POST', `${group}/join`, key, { key });
    const counter = await call<Counter>(origin, 'POST', `${group}/counters`, key, {
      name: 'Laps',
    });

    await page.goto(`${origin}/${name}?key=${key}`);
    await expect(page.getByRole('status').filter({ hasText: 'Live' })).toBeVisible({
      timeout: 15_000,
    });
    const card = counterCard(page, 'Laps');
    const tap = () => card.getByRole('button', { name: 'Increment by 1' }).click();
    const stored = async () =>
      (await call<Counter[]>(origin, 'GET', `${group}/counters`, key)).find(
        (row) => row.id === counter.id,
      )?.value;
    for (let i = 0; i < 3; i++) await tap();
    await expect(counterValue(card)).toHaveText('3');
    // All three saved before the database goes: on a busy machine the page shows a tap before
    // the server has answered it, and one still on its way would wait with the next four.
    await expect.poll(stored, { timeout: 15_000 }).toBe(3);
    await expect(page.getByText(/changes? waiting/)).toHaveCount(0);

    await database.stop('fast');
    const notice = page.getByTestId('saving-paused');
    await expect(notice).toBeVisible({ timeout: 10_000 });
    await expect(notice).toContainText(MESSAGES.savingPaused);
    // The socket stays open: the page is still live, only saving is paused.
    await expect(page.getByRole('status').filter({ hasText: 'Live' })).toBeVisible();
    for (let i = 0; i < 4; i++) await tap();
    // The member sees their taps at once, kept on this device meanwhile.
    await expect(counterValue(card)).toHaveText('7');
    await expect(notice).toContainText(MESSAGES.changesWaiting(4));

    await database.start();
    await expect(notice).toBeHidden({ timeout: 15_000 });
    await expect(counterValue(card)).toHaveText('7');
    // Every tap counted once on the server, and nothing left waiting on the page.
    await expect.poll(stored, { timeout: 15_000 }).toBe(7);
    await expect(page.getByText(/changes? waiting/)).toHaveCount(0, { timeout: 15_000 });
    // Still live afterwards: a tap now is saved.
    await tap();
    await expect.poll(stored).toBe(8);
  } finally {
    if (tally) await stopInstance(tally);
    database.destroy();
  }
});
