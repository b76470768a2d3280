/**
 * Offline taps (docs/product.md#offline-queue, ADR 11): while the connection is down, taps and
 * edits are queued in the browser (kept across a reload and a closed tab), shown as waiting, and
 * sent when the connection returns, each with its operation id so the server applies every one
 * exactly once.
 */
import type { Page } from '@playwright/test';
import { MESSAGES } from '../../src/shared/messages.js';
import {
  api,
  baseUrl,
  counterCard,
  counterValue,
  expect,
  newKey,
  openGroup,
  seedGroup,
} from './support/fixtures.js';
import { goOffline, goOnline, test, waitForServiceWorker } from './support/network.js';
import { seriousA11yFindings } from './support/a11y.js';

const waiting = (page: Page) => page.getByTestId('changes-waiting');
const serverValue = async (name: string, key: string) => (await api.counters(name, key))[0]?.value;
/** Long enough for a second, duplicate delivery to have landed if there were one, ms. */
const SETTLE_MS = 1_500;

test.describe('offline taps', () => {
  test('five taps made offline show as waiting and reach the server exactly once on reconnect', async ({
    page,
    context,
    network,
  }) => {
    const { name, key } = await seedGroup([{ name: 'Laps' }]);
    await openGroup(page, name, key);
    const card = counterCard(page, 'Laps');

    await goOffline(page, network);
    for (let i = 0; i < 5; i += 1) {
      await card.getByRole('button', { name: 'Increment by 1' }).click();
    }
    await expect(counterValue(card)).toHaveText('5');
    await expect(waiting(page)).toHaveText('5 changes waiting');
    await expect(card.getByText('Not sent yet')).toBeVisible();
    expect(await seriousA11yFindings(page)).toEqual([]);
    expect(await serverValue(name, key)).toBe(0);

    await goOnline(context, network);
    await expect.poll(() => serverValue(name, key), { timeout: 15_000 }).toBe(5);
    await expect(waiting(page)).toBeHidden();
    await expect(card.getByText('Not sent yet')).toBeHidden();
    await page.waitForTimeout(SETTLE_MS);
    expect(await serverValue(name, key)).toBe(5);
    await expect(counterValue(card)).toHaveText('5');
  });

  test('edits made offline are queued with the taps and applied in order on reconnect', async ({
    page,
    context,
    network,
  }) => {
    const { name, key } = await seedGroup([{ name: 'Cups', value: 10 }]);
    await openGroup(page, name, key);
    const card = counterCard(page, 'Cups');

    await goOffline(page, network);
    await card.getByRole('button', { name: /^Counter name: / }).click();
    await card.getByRole('textbox', { name: 'Counter name' }).fill('Teacups');
    await card.getByRole('textbox', { name: 'Counter name' }).press('Enter');
    const renamed = counterCard(page, 'Teacups');
    await renamed.getByRole('button', { name: /^Increment Step: / }).click();
    await renamed.getByRole('textbox', { name: 'Increment Step' }).fill('3');
    await renamed.getByRole('textbox', { name: 'Increment Step' }).press('Enter');
    await renamed.getByRole('button', { name: 'Increment by 3' }).click();
    await renamed.getByRole('button', { name: 'Decrement by 1' }).click();
    await expect(counterValue(renamed)).toHaveText('12');
    await expect(waiting(page)).toHaveText('4 changes waiting');

    await goOnline(context, network);
    await expect
      .poll(async () => (await api.counters(name, key))[0], { timeout: 15_000 })
      .toMatchObject({ name: 'Teacups', incrementStep: 3, value: 12 });
    await expect(waiting(page)).toBeHidden();
  });

  test('taps made offline survive a reload while offline and are sent once the network is back', async ({
    page,
    context,
    network,
  }) => {
    const { name, key } = await seedGroup([{ name: 'Steps' }]);
    await openGroup(page, name, key);
    await waitForServiceWorker(page);
    const card = counterCard(page, 'Steps');

    await goOffline(page, network);
    for (let i = 0; i < 3; i += 1) {
      await card.getByRole('button', { name: 'Increment by 1' }).click();
    }
    await expect(waiting(page)).toHaveText('3 changes waiting');

    // The app shell comes from the service worker; the group itself cannot be opened yet.
    await page.reload();
    await expect(page.getByRole('heading', { name: 'Offline' })).toBeVisible();
    await expect(page.getByText('3 changes waiting')).toBeVisible();
    expect(await seriousA11yFindings(page)).toEqual([]);
    expect(await serverValue(name, key)).toBe(0);

    await goOnline(context, network);
    await expect(page.getByRole('status').filter({ hasText: 'Live' })).toBeVisible({
      timeout: 15_000,
    });
    await expect.poll(() => serverValue(name, key), { timeout: 15_000 }).toBe(3);
    await expect(counterValue(counterCard(page, 'Steps'))).toHaveText('3');
    await expect(waiting(page)).toBeHidden();
    await page.waitForTimeout(SETTLE_MS);
    expect(await serverValue(name, key)).toBe(3);
  });

  test('a tap whose answer was lost is resent after a reload and still counted once', async ({
    page,
  }) => {
    const { name, key } = await seedGroup([{ name: 'Votes' }]);
    // The live channel passes through, except while the test drops what the server says.
    let dropLive = false;
    await page.routeWebSocket(/\/api\/groups\/[^/]+\/live/, (socket) => {
      const server = socket.connectToServer();
      server.onMessage((message) => {
        if (!dropLive) socket.send(message);
      });
    });
    await openGroup(page, name, key);
    const card = counterCard(page, 'Votes');

    // The server applies the tap, but neither its answer (nor any retry's) nor the live change
    // that carries its operation id reaches the page.
    dropLive = true;
    const sentIds: string[] = [];
    // Answers are lost until the reload: a retry of the old page that got through before it
    // would confirm the tap and leave nothing for the reloaded page to resend.
    let reloading = false;
    await page.route('**/increment', async (route) => {
      if (reloading) {
        await route.continue();
        return;
      }
      sentIds.push((await route.request().headerValue('idempotency-key')) ?? '');
      await route.fetch();
      await route.abort('connectionreset');
    });
    await card.getByRole('button', { name: 'Increment by 1' }).click();
    await expect.poll(() => serverValue(name, key)).toBe(1);
    await expect(waiting(page)).toHaveText('1 change waiting', { timeout: 10_000 });

    dropLive = false;
    reloading = true;
    const resent = page.waitForRequest(
      (request) =>
        request.url().endsWith('/increment') && request.headers()['idempotency-key'] === sentIds[0],
    );
    await page.reload();
    // The kept tap goes out again under the same operation id; the server recognises it.
    await resent;
    await expect(page.getByRole('status').filter({ hasText: 'Live' })).toBeVisible({
      timeout: 15_000,
    });
    await expect(counterValue(counterCard(page, 'Votes'))).toHaveText('1');
    await expect
      .poll(() =>
        page.evaluate(() =>
          Object.keys(localStorage).filter((entry) => entry.startsWith('tally:outbox:')),
        ),
      )
      .toEqual([]);
    await page.waitForTimeout(SETTLE_MS);
    expect(await serverValue(name, key)).toBe(1);
  });

  test('changes left by a tab closed while offline are sent by the next tab that opens the group', async ({
    context,
    network,
  }) => {
    const { name, key } = await seedGroup([{ name: 'Jumps' }]);
    const first = await context.newPage();
    await openGroup(first, name, key);
    await goOffline(first, network);
    const card = counterCard(first, 'Jumps');
    await card.getByRole('button', { name: 'Increment by 1' }).click();
    await card.getByRole('button', { name: 'Increment by 1' }).click();
    await expect(waiting(first)).toHaveText('2 changes waiting');
    await first.close();

    await goOnline(context, network);
    const second = await context.newPage();
    await openGroup(second, name, key);
    await expect.poll(() => serverValue(name, key), { timeout: 15_000 }).toBe(2);
    await expect(counterValue(counterCard(second, 'Jumps'))).toHaveText('2');
    await second.waitForTimeout(SETTLE_MS);
    expect(await serverValue(name, key)).toBe(2);
  });

  test('an open tab keeps its own waiting changes: another tab of the group does not take them', async ({
    context,
  }) => {
    const { name, key } = await seedGroup([{ name: 'Rounds' }]);
    const first = await context.newPage();
    await openGroup(first, name, key);
    // Only this page's requests fail: it stays open with its tap waiting.
    await first.route('**/increment', (route) => route.abort('internetdisconnected'));
    await counterCard(first, 'Rounds').getByRole('button', { name: 'Increment by 1' }).click();
    await expect(waiting(first)).toHaveText('1 change waiting');

    const second = await context.newPage();
    await openGroup(second, name, key);
    await second.waitForTimeout(SETTLE_MS);
    expect(await serverValue(name, key)).toBe(0);
    await expect(waiting(second)).toBeHidden();

    await first.unrouteAll({ behavior: 'ignoreErrors' });
    await first.evaluate(() => window.dispatchEvent(new Event('online')));
    await expect.poll(() => serverValue(name, key), { timeout: 15_000 }).toBe(1);
    await expect(counterValue(counterCard(second, 'Rounds'))).toHaveText('1');
  });

  test('changes waiting when another member replaces the key are kept and go out from the new link', async ({
    page,
    network,
  }) => {
    const { name, key } = await seedGroup([{ name: 'Goals' }]);
    await openGroup(page, name, key);
    await goOffline(page, network);
    const card = counterCard(page, 'Goals');
    await card.getByRole('button', { name: 'Increment by 1' }).click();
    await card.getByRole('button', { name: 'Increment by 1' }).click();
    await expect(waiting(page)).toHaveText('2 changes waiting');

    // Meanwhile, another member replaces the group's key.
    const next = newKey();
    const rotated = await fetch(`${baseUrl()}/api/groups/${name}/key`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ key: next }),
    });
    expect(rotated.ok).toBe(true);

    await goOnline(page.context(), network);
    await expect(page.getByText(MESSAGES.keyChanged)).toBeVisible({ timeout: 15_000 });
    await page.waitForTimeout(SETTLE_MS);
    expect(await serverValue(name, next)).toBe(0);

    // The member gets the new link and opens it in the same tab: the kept taps go out with it.
    await page.goto(`/${name}?key=${next}`);
    await expect.poll(() => serverValue(name, next), { timeout: 15_000 }).toBe(2);
    await expect(counterValue(counterCard(page, 'Goals'))).toHaveText('2');
  });
});
