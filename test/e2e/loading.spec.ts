/**
 * The group screen (docs/product.md#body) shows 'Loading counters...' while its counters load (the
 * group's header is already up), and 'Failed to load counters' in the dismissible banner when they
 * cannot be loaded. The list request (GET …/counters) is held or failed here with route
 * interception.
 */
import type { Page, Route } from '@playwright/test';
import { counterCard, counterValue, expect, seedGroup, test } from './support/fixtures.js';

const COUNTERS_LIST = /\/api\/groups\/[^/]+\/counters$/;
const LIVE = /\/api\/groups\/[^/]+\/live$/;

/** Intercepts GET …/counters (creating a counter, a POST there, goes through). */
async function onCounterList(page: Page, handle: (route: Route) => Promise<void>): Promise<void> {
  await page.route(COUNTERS_LIST, async (route) => {
    if (route.request().method() !== 'GET') {
      await route.fallback();
      return;
    }
    await handle(route);
  });
}

/** Keeps the live channel from delivering anything (its `ready` snapshot would fill the grid). */
async function muteLiveChannel(page: Page): Promise<void> {
  await page.routeWebSocket(LIVE, () => {
    // Neither connected to the server nor answered: the socket opens and stays silent.
  });
}

test.describe('loading counters', () => {
  test("shows 'Loading counters...' under the group's header until the counters arrive", async ({
    page,
  }) => {
    const { name, key } = await seedGroup([{ name: 'Slow list', value: 7 }]);
    await muteLiveChannel(page);
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    await onCounterList(page, async (route) => {
      await released;
      await route.continue();
    });

    await page.goto(`/${name}?key=${key}`);
    await expect(page.getByRole('heading', { level: 1 })).toContainText(name);
    const loading = page.getByRole('status').filter({ hasText: 'Loading counters...' });
    await expect(loading).toBeVisible();
    await expect(page.getByRole('button', { name: 'Add Counter' })).toBeVisible();
    await expect(page.getByText('No counters yet')).toHaveCount(0);

    release();
    await expect(counterValue(counterCard(page, 'Slow list'))).toHaveText('7');
    await expect(loading).toHaveCount(0);
  });

  test("a failed load shows 'Failed to load counters'; Try again loads them", async ({ page }) => {
    const { name, key } = await seedGroup([{ name: 'Retried', value: 3 }]);
    await muteLiveChannel(page);
    let fail = true;
    await onCounterList(page, async (route) => {
      if (fail) await route.abort('connectionrefused');
      else await route.continue();
    });

    await page.goto(`/${name}?key=${key}`);
    const banner = page.getByRole('alert').filter({ hasText: 'Failed to load counters' });
    await expect(banner).toBeVisible();
    // Not the empty state: nothing says the group has no counters.
    await expect(page.getByText('No counters yet')).toHaveCount(0);
    await expect(page.getByRole('status').filter({ hasText: 'Loading counters...' })).toHaveCount(
      0,
    );

    fail = false;
    await page.getByRole('button', { name: 'Try again' }).click();
    await expect(counterValue(counterCard(page, 'Retried'))).toHaveText('3');
    await expect(banner).toHaveCount(0);
  });

  test("the server's own message is shown, and the banner can be dismissed", async ({ page }) => {
    const { name, key } = await seedGroup([{ name: 'Unlisted' }]);
    await muteLiveChannel(page);
    await onCounterList(page, async (route) => {
      await route.fulfill({
        status: 503,
        contentType: 'application/json',
        body: JSON.stringify({
          error: { code: 'internal_error', message: 'The database is busy' },
        }),
      });
    });

    await page.goto(`/${name}?key=${key}`);
    const banner = page.getByRole('alert').filter({ hasText: 'The database is busy' });
    await expect(banner).toBeVisible();
    await banner.getByRole('button', { name: 'Dismiss error' }).click();
    await expect(banner).toHaveCount(0);
    // The grid still offers to try again.
    await expect(page.getByRole('button', { name: 'Try again' })).toBeVisible();
  });

  test('when the list fails, the live channel fills the grid as soon as it connects', async ({
    page,
  }) => {
    const { name, key } = await seedGroup([{ name: 'From the socket', value: 11 }]);
    await onCounterList(page, async (route) => {
      await route.abort('connectionrefused');
    });

    await page.goto(`/${name}?key=${key}`);
    await expect(counterValue(counterCard(page, 'From the socket'))).toHaveText('11');
    await expect(page.getByRole('status').filter({ hasText: 'Live' })).toBeVisible();
    // The failure is no news anymore: its banner is gone (or never showed).
    await expect(
      page.getByRole('alert').filter({ hasText: 'Failed to load counters' }),
    ).toHaveCount(0);
  });
});
