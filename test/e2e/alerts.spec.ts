/**
 * Group alerts in the browser: Group settings → Alerts lists each rule in words with its
 * destination's state, adds rules (a webhook's signing secret shown once), sends a test to a real
 * receiver and shows the result, shows the delivery log and deletes; a view-only link has no way
 * there. "Notifications on this device" gives the browser's push subscription to the group, and
 * the service worker turns a push message into a notification that links to the group's page.
 * Both themes, 360 px to 1280 px, without sideways scrolling and with axe clean.
 * TALLY_SCREENSHOTS=1 also writes .tmp/screenshots/alerts-*.png (phone, desktop and TV sizes).
 *
 * The server must allow loopback targets (ALERTS_ALLOW_PRIVATE_TARGETS=true): the receivers here
 * listen on 127.0.0.1.
 */
import type { BrowserContext, Locator, Page } from '@playwright/test';
import { Webhook } from 'standardwebhooks';
import type { AlertList, AlertRuleInput } from '../../src/shared/alerts.js';
import { closeReceivers, startReceiver } from '../helpers/receiver.js';
import { seriousA11yFindings } from './support/a11y.js';
import { baseUrl, createViewKey, expect, openGroup, seedGroup, test } from './support/fixtures.js';
import { memberPage, type Theme } from './support/members.js';
import { SCREENSHOT_SIZES, screenshotPath, screenshotsWanted } from './support/screenshots.js';

test.afterEach(async () => {
  await closeReceivers();
});

async function alertsCall(
  method: string,
  path: string,
  key: string,
  body?: unknown,
): Promise<{ status: number; json: unknown }> {
  const response = await fetch(`${baseUrl()}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? null : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, json: text === '' ? undefined : (JSON.parse(text) as unknown) };
}

/** The group's rules as the server holds them. */
async function alertsOf(name: string, key: string): Promise<AlertList> {
  const { status, json } = await alertsCall('GET', `/api/groups/${name}/alerts`, key);
  expect(status).toBe(200);
  return json as AlertList;
}

async function addRule(name: string, key: string, rule: AlertRuleInput): Promise<void> {
  const { status, json } = await alertsCall('POST', `/api/groups/${name}/alerts`, key, rule);
  expect(status, JSON.stringify(json)).toBe(201);
}

/** Opens Group settings, then its Alerts, and waits for the rules to be listed. */
async function openAlerts(page: Page): Promise<Locator> {
  await page.getByRole('button', { name: 'Group settings' }).click();
  await page
    .getByRole('dialog', { name: 'Group settings' })
    .getByRole('button', { name: 'Alerts' })
    .click();
  const dialog = page.getByRole('dialog', { name: 'Alerts' });
  await expect(dialog.getByTestId('alert-limits')).toBeVisible({ timeout: 10_000 });
  return dialog;
}

/** The rule whose sentence matches. */
function ruleItem(dialog: Locator, words: string | RegExp): Locator {
  return dialog.getByRole('listitem').filter({ hasText: words });
}

/** Sideways overflow of the page and of every open dialog. */
function overflow(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const problems: string[] = [];
    const width = window.innerWidth;
    if (document.documentElement.scrollWidth > width) {
      problems.push(`the page is ${String(document.documentElement.scrollWidth)} px wide`);
    }
    for (const box of document.querySelectorAll<HTMLElement>('dialog[open]')) {
      const rect = box.getBoundingClientRect();
      if (rect.left < -1 || rect.right > width + 1 || box.scrollWidth > box.clientWidth + 1) {
        problems.push(
          `${box.getAttribute('aria-labelledby') ?? 'dialog'} spans ${String(Math.round(rect.left))}–${String(Math.round(rect.right))} px (content ${String(box.scrollWidth)} px)`,
        );
      }
    }
    return problems;
  });
}

test.describe('alerts dialog', () => {
  test('a webhook alert added in the dialog is listed in words, shows its secret once, delivers a signed test and is deleted', async ({
    page,
  }) => {
    // Two dialogs, two axe runs and a real delivery on a shared two-core machine.
    test.setTimeout(60_000);
    const receiver = await startReceiver();
    const { name, key } = await seedGroup([{ name: 'Visitors' }, { name: 'Coffees' }]);
    await openGroup(page, name, key);
    let dialog = await openAlerts(page);
    await expect(dialog.getByText('No alerts yet.')).toBeVisible();
    await expect(dialog.getByTestId('alert-limits')).toHaveText(
      '0 of 20 alerts · sent to 0 of 10 places',
    );

    await dialog.getByRole('button', { name: 'Add alert' }).click();
    const form = dialog.getByRole('form', { name: 'Add alert' });
    await form.getByLabel('Counters').selectOption({ label: 'Visitors' });
    await form.getByLabel('When it').selectOption({ label: 'Reaches a number' });
    await form.getByLabel('Number').fill('200');
    await form.getByLabel('Webhook URL').fill(`${receiver.origin}/hooks/visitors`);
    await expect(form.getByLabel('Format')).toHaveValue('standard');
    await form.getByRole('button', { name: 'Add alert' }).click();

    const rule = ruleItem(dialog, /^When Visitors reaches 200 → Webhook \(127\.0\.0\.1/);
    await expect(rule).toBeVisible();
    await expect(rule.getByText('New', { exact: true })).toBeVisible();
    await expect(dialog.getByTestId('alert-limits')).toHaveText(
      '1 of 20 alerts · sent to 1 of 10 places',
    );
    // The secret, once, with what to do about it.
    const secretBox = dialog.getByRole('region', { name: 'Signing secret' });
    await expect(secretBox).toBeFocused();
    await expect(secretBox).toContainText('it will not be shown again');
    await expect(secretBox.getByRole('button', { name: 'Copy secret' })).toBeVisible();
    const secret = (await dialog.getByTestId('alert-secret').textContent()) ?? '';
    expect(secret).toMatch(/^whsec_/);
    const stored = await alertsOf(name, key);
    expect(JSON.stringify(stored)).not.toContain(secret);
    expect(stored.rules).toHaveLength(1);
    expect(stored.rules[0]).toMatchObject({
      counterId: expect.any(String),
      section: null,
      when: { kind: 'reaches', value: 200 },
      to: { kind: 'webhook', format: 'standard' },
    });
    expect(await seriousA11yFindings(page)).toEqual([]);

    // Send test: one real request, signed with that secret, and its result on screen.
    await rule.getByRole('button', { name: 'Send test' }).click();
    await expect(rule.getByRole('status')).toContainText('Test: Delivered · HTTP 204', {
      timeout: 10_000,
    });
    expect(receiver.requests).toHaveLength(1);
    const [delivered] = receiver.requests;
    expect(delivered?.url).toBe('/hooks/visitors');
    const headers = Object.fromEntries(
      Object.entries(delivered?.headers ?? {}).map(([header, value]) => [header, String(value)]),
    );
    const body = new Webhook(secret).verify(delivered?.text ?? '', headers);
    expect(body).toMatchObject({ type: 'counter.reached', test: true, group: name });

    await rule.getByRole('button', { name: 'Deliveries' }).click();
    const log = rule.getByRole('list', { name: 'Deliveries, newest first' });
    await expect(log.getByRole('listitem')).toHaveCount(1);
    await expect(log.getByRole('listitem').first()).toContainText('Delivered');
    await expect(log.getByRole('listitem').first()).toContainText('Test');
    await expect(log.getByRole('listitem').first()).toContainText('HTTP 204');

    // Reopened, the dialog has no secret to show any more.
    await dialog.getByRole('button', { name: 'Done' }).click();
    await expect(dialog).toBeHidden();
    await page
      .getByRole('dialog', { name: 'Group settings' })
      .getByRole('button', { name: 'Alerts' })
      .click();
    dialog = page.getByRole('dialog', { name: 'Alerts' });
    await expect(ruleItem(dialog, /^When Visitors reaches 200/)).toBeVisible();
    await expect(dialog.getByRole('region', { name: 'Signing secret' })).toHaveCount(0);
    await expect(dialog.getByText(secret)).toHaveCount(0);

    // Delete asks first; Cancel keeps the rule.
    const listed = ruleItem(dialog, /^When Visitors reaches 200/);
    await listed.getByRole('button', { name: /^Delete alert: When Visitors reaches 200/ }).click();
    const confirm = page.getByRole('alertdialog', { name: 'Delete this alert?' });
    await expect(confirm).toContainText('When Visitors reaches 200');
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await expect(listed).toBeVisible();
    await listed.getByRole('button', { name: /^Delete alert:/ }).click();
    await confirm.getByRole('button', { name: 'Delete' }).click();
    await expect(dialog.getByText('No alerts yet.')).toBeVisible();
    await expect(dialog.getByRole('button', { name: 'Add alert' })).toBeFocused();
    expect((await alertsOf(name, key)).rules).toEqual([]);
  });

  test('the form says what is missing, and shows the server’s own refusal', async ({ page }) => {
    const { name, key } = await seedGroup([{ name: 'Laps' }]);
    await openGroup(page, name, key);
    const dialog = await openAlerts(page);
    await dialog.getByRole('button', { name: 'Add alert' }).click();
    const form = dialog.getByRole('form', { name: 'Add alert' });
    await form.getByRole('button', { name: 'Add alert' }).click();
    await expect(form.getByText('Enter a number.')).toBeVisible();
    await expect(form.getByText('Enter the webhook’s URL.')).toBeVisible();
    await expect(form.getByLabel('Number')).toBeFocused();
    await expect(form.getByLabel('Number')).toHaveAttribute('aria-invalid', 'true');

    // Every 0 is the server's to refuse, in its words.
    await form.getByLabel('When it').selectOption({ label: 'Every so many' });
    await form.getByLabel('Every').fill('0');
    await form.getByLabel('Webhook URL').fill('https://hooks.slack.com/services/T0/B0/X');
    // The host says which service it is.
    await expect(form.getByLabel('Format')).toHaveValue('slack');
    await form.getByRole('button', { name: 'Add alert' }).click();
    await expect(form.getByRole('alert')).toContainText('An alert every N needs N of at least 1.');
    expect((await alertsOf(name, key)).rules).toEqual([]);
  });

  test('a view-only link has no way to the alerts, and the API refuses it', async ({ browser }) => {
    const { name, key } = await seedGroup([{ name: 'Laps' }]);
    const viewKey = await createViewKey(name, key);
    const viewer = await (await browser.newContext()).newPage();
    await openGroup(viewer, name, viewKey);
    await expect(viewer.getByText('View only', { exact: true })).toBeVisible();
    await expect(viewer.getByRole('button', { name: 'Group settings' })).toHaveCount(0);
    await expect(viewer.getByRole('button', { name: 'Alerts' })).toHaveCount(0);
    const { status, json } = await alertsCall('GET', `/api/groups/${name}/alerts`, viewKey);
    expect(status).toBe(403);
    expect(json).toMatchObject({ error: { code: 'read_only' } });
    await viewer.context().close();
  });
});

/**
 * Stands in for the browser's push service. Headless Chromium cannot subscribe: without Google's
 * push service (no network here, and none in headless mode) PushManager.subscribe() rejects with
 * "AbortError: Registration failed - permission denied" even with the notifications permission
 * granted (tried first, with the real service worker and the server's real VAPID key). So
 * subscribe() and getSubscription() are replaced by ones that answer as a push service would: a
 * subscription whose endpoint is `endpoint`, with a real P-256 public key and a random 16-byte
 * auth secret, so everything the page and the server do with it is real. The key the page
 * subscribed with is kept in `window.subscribedWithKey`, base64url.
 */
async function fakePushService(context: BrowserContext, endpoint: string): Promise<void> {
  await context.addInitScript((endpointUrl) => {
    const base64url = (bytes: Uint8Array) =>
      btoa(String.fromCharCode(...bytes))
        .replace(/\+/g, '-')
        .replace(/\//g, '_')
        .replace(/=+$/, '');
    const state = window as unknown as {
      subscribedWithKey?: string;
      unsubscribed?: number;
    };
    let current: PushSubscription | null = null;
    PushManager.prototype.subscribe = async function subscribe(
      options?: PushSubscriptionOptionsInit,
    ) {
      const given = options?.applicationServerKey;
      const serverKey =
        typeof given === 'string'
          ? Uint8Array.from(atob(given.replace(/-/g, '+').replace(/_/g, '/')), (c) =>
              c.charCodeAt(0),
            )
          : given instanceof ArrayBuffer
            ? new Uint8Array(given)
            : new Uint8Array(given?.buffer ?? new ArrayBuffer(0));
      state.subscribedWithKey = base64url(serverKey);
      const pair = await crypto.subtle.generateKey({ name: 'ECDH', namedCurve: 'P-256' }, true, [
        'deriveBits',
      ]);
      const p256dh = new Uint8Array(await crypto.subtle.exportKey('raw', pair.publicKey));
      const auth = crypto.getRandomValues(new Uint8Array(16));
      const json = {
        endpoint: endpointUrl,
        expirationTime: null,
        keys: { p256dh: base64url(p256dh), auth: base64url(auth) },
      };
      const subscription = {
        endpoint: endpointUrl,
        expirationTime: null,
        options: { userVisibleOnly: true, applicationServerKey: serverKey.slice().buffer },
        getKey: (name: string) => (name === 'p256dh' ? p256dh.slice().buffer : auth.slice().buffer),
        toJSON: () => json,
        unsubscribe: () => {
          current = null;
          state.unsubscribed = (state.unsubscribed ?? 0) + 1;
          return Promise.resolve(true);
        },
      };
      current = subscription;
      return current;
    };
    PushManager.prototype.getSubscription = function getSubscription() {
      return Promise.resolve(current);
    };
  }, endpoint);
}

test.describe('notifications on this device', () => {
  test('turning them on gives this browser’s subscription to the group; turning off takes it back', async ({
    browser,
  }) => {
    const receiver = await startReceiver();
    const { name, key } = await seedGroup([{ name: 'Laps' }]);
    const context = await browser.newContext();
    await context.grantPermissions(['notifications'], { origin: baseUrl() });
    await fakePushService(context, `https://127.0.0.1:${String(receiver.port)}/push/this-browser`);
    const page = await context.newPage();
    await openGroup(page, name, key);
    const dialog = await openAlerts(page);

    // A rule to members' devices, through the form.
    await dialog.getByRole('button', { name: 'Add alert' }).click();
    const form = dialog.getByRole('form', { name: 'Add alert' });
    await form.getByLabel('When it').selectOption({ label: 'Every so many' });
    await form.getByLabel('Every').fill('100');
    await form
      .getByRole('radio', { name: 'This browser & other members who turn on notifications' })
      .check();
    await form.getByRole('button', { name: 'Add alert' }).click();
    const rule = ruleItem(dialog, 'Every 100 on any counter → Web Push (no browser yet)');
    await expect(rule).toBeVisible();
    await expect(dialog.getByRole('region', { name: 'Signing secret' })).toHaveCount(0);

    const toggle = dialog.getByRole('switch', { name: 'Notifications on this device' });
    await expect(toggle).toHaveAttribute('aria-checked', 'false');
    await toggle.click();
    await expect(toggle).toHaveAttribute('aria-checked', 'true');
    await expect(dialog.getByText(/^On: this device shows this group’s alerts/)).toBeVisible();
    await expect(ruleItem(dialog, 'Every 100 on any counter → Web Push (1 browser)')).toBeVisible();
    const { publicKey } = (await (await fetch(`${baseUrl()}/api/push/key`)).json()) as {
      publicKey: string;
    };
    expect(
      await page.evaluate(() => (window as { subscribedWithKey?: string }).subscribedWithKey),
    ).toBe(publicKey.replace(/=+$/, ''));
    const [pushRule] = (await alertsOf(name, key)).rules;
    expect(pushRule?.destination).toMatchObject({ kind: 'push', subscribers: 1 });
    // The group's link is kept on this device for its notifications (they carry no key).
    const keptLink = () =>
      page.evaluate(async (slug) => {
        const cache = await caches.open('tally-notification-links');
        const kept = await cache.match(`/notification-link/${encodeURIComponent(slug)}`);
        return kept ? kept.text() : null;
      }, name.toLowerCase());
    expect(await keptLink()).toBe(`/${name.toLowerCase()}?key=${key}`);

    // Reopened, the dialog knows this browser is on.
    await dialog.getByRole('button', { name: 'Done' }).click();
    await page
      .getByRole('dialog', { name: 'Group settings' })
      .getByRole('button', { name: 'Alerts' })
      .click();
    await expect(toggle).toHaveAttribute('aria-checked', 'true');

    await toggle.click();
    await expect(toggle).toHaveAttribute('aria-checked', 'false');
    await expect(ruleItem(dialog, 'Web Push (no browser yet)')).toBeVisible();
    expect((await alertsOf(name, key)).rules[0]?.destination.subscribers).toBe(0);
    expect(await keptLink()).toBeNull();
    // No other group of this browser uses the subscription: it is ended too.
    expect(await page.evaluate(() => (window as { unsubscribed?: number }).unsubscribed)).toBe(1);
    await context.close();
  });

  test('a browser that blocks notifications, or has no Push API, says so on screen', async ({
    browser,
  }) => {
    const { name, key } = await seedGroup([{ name: 'Laps' }]);

    const blocked = await browser.newContext();
    await blocked.addInitScript(() => {
      // What a member who once chose Block has: the browser answers "denied" without asking.
      Object.defineProperty(Notification, 'permission', { get: () => 'denied' });
      Notification.requestPermission = () => Promise.resolve('denied');
    });
    const page = await blocked.newPage();
    await openGroup(page, name, key);
    let dialog = await openAlerts(page);
    const toggle = dialog.getByRole('switch', { name: 'Notifications on this device' });
    await expect(dialog.getByText(/^Notifications are blocked for this site/)).toBeVisible();
    await toggle.click();
    await expect(toggle).toHaveAttribute('aria-checked', 'false');
    await expect(dialog.getByText(/^Notifications are blocked for this site/)).toBeVisible();
    await blocked.close();

    const unsupported = await browser.newContext();
    await unsupported.addInitScript(() => {
      Reflect.deleteProperty(window, 'PushManager');
    });
    const other = await unsupported.newPage();
    await openGroup(other, name, key);
    dialog = await openAlerts(other);
    await expect(
      dialog.getByText(/^This browser cannot receive notifications from websites/),
    ).toBeVisible();
    await expect(
      dialog.getByRole('switch', { name: 'Notifications on this device' }),
    ).toBeDisabled();
    await unsupported.close();
  });

  test('the service worker shows a push message as a notification linking to the group page', async ({
    browser,
  }) => {
    const context = await browser.newContext();
    await context.grantPermissions(['notifications'], { origin: baseUrl() });
    const { page, push } = await pageWithWorker(context);

    // What the server sends, as the push service hands it to the worker (decrypted).
    await push({
      title: 'Visitors reached 200',
      body: 'Ada made it 200 at the door.',
      url: '/door-count',
    });
    // The browser starts the stopped worker for a push: seconds on a busy two-core machine.
    const shown = () =>
      page.evaluate(async () => {
        const worker = await navigator.serviceWorker.ready;
        return (await worker.getNotifications()).map((notification) => ({
          title: notification.title,
          body: notification.body,
          data: notification.data as unknown,
          icon: notification.icon,
        }));
      });
    await expect.poll(shown, { timeout: 20_000 }).toEqual([
      {
        title: 'Visitors reached 200',
        body: 'Ada made it 200 at the door.',
        data: { url: `${baseUrl()}/door-count` },
        icon: `${baseUrl()}/icons/icon-192.png`,
      },
    ]);

    // A newer alert of the same group replaces it rather than piling up; a payload that is not
    // Tally's JSON, or that links elsewhere, still notifies, linking to this site.
    // In no particular order: a replaced notification may count as the newest.
    const byTitle = async () =>
      (await shown())
        .map((entry) => [entry.title, entry.data])
        .sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    await push({ title: 'Visitors reached 300', body: '', url: '/door-count' });
    // One push at a time, each shown before the next: the worker handles a push while the
    // browser may stop and restart it, and two at once made this test depend on the machine.
    await expect
      .poll(byTitle, { timeout: 20_000 })
      .toEqual([['Visitors reached 300', { url: `${baseUrl()}/door-count` }]]);
    await push({ title: 'Elsewhere', body: 'x', url: 'https://example.com/phish' });
    await expect.poll(byTitle, { timeout: 20_000 }).toEqual([
      ['Elsewhere', { url: `${baseUrl()}/` }],
      ['Visitors reached 300', { url: `${baseUrl()}/door-count` }],
    ]);
    await context.close();
  });
});

test('a push notification speaks the language the member last chose, English as the server says it', async ({
  browser,
}) => {
  const context = await browser.newContext();
  await context.grantPermissions(['notifications'], { origin: baseUrl() });
  // A browser that turned a group's notifications on, its member having chosen German.
  await context.addInitScript(() => {
    window.localStorage.setItem('tally:pushGroups', JSON.stringify(['door-count']));
    window.localStorage.setItem('tally:lang', 'de');
  });
  const { page, push } = await pageWithWorker(context);
  const keptLocale = () =>
    page.evaluate(async () => {
      const cache = await caches.open('tally-notification-words');
      const kept = await cache.match('/notification-words');
      return kept ? ((await kept.json()) as { locale: string }).locale : null;
    });
  await expect.poll(keptLocale).toBe('de');

  // What the server sends for "Visitors reached 2,000 (now 2,005)", folded with three more.
  const message = {
    title: 'Game night',
    body: 'Visitors reached 2,000 (now 2,005) in Game night (by Ada) (and 3 more alerts of this group)',
    url: '/door-count',
    words: {
      sentence: 'reachedNow',
      counter: 'Visitors',
      group: 'Game night',
      by: 'Ada',
      numbers: { threshold: 2000, value: 2005 },
      test: false,
      folded: 3,
    },
  };
  const shown = () =>
    page.evaluate(async () => {
      const worker = await navigator.serviceWorker.ready;
      return (await worker.getNotifications()).map(({ title, body }) => ({ title, body }));
    });
  await push(message);
  await expect.poll(shown, { timeout: 20_000 }).toEqual([
    {
      title: 'Game night',
      body: 'Visitors hat 2.000 erreicht (jetzt 2.005) in Game night (von Ada) (und 3 weitere Alarme dieser Gruppe)',
    },
  ]);

  // Back to English in the menu: the next notification is the server's English, word for word.
  await page.getByTestId('app-bar').getByRole('combobox').selectOption('en');
  await expect.poll(keptLocale).toBe('en');
  await push(message);
  await expect
    .poll(shown, { timeout: 20_000 })
    .toEqual([{ title: message.title, body: message.body }]);
  await context.close();
});

/**
 * The start page in `context` with its service worker active, and `push`, which hands the worker
 * a message as a push service would (decrypted), through the DevTools protocol.
 */
async function pageWithWorker(
  context: BrowserContext,
): Promise<{ page: Page; push: (message: unknown) => Promise<void> }> {
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  const registrations: { registrationId: string; scopeURL: string }[] = [];
  cdp.on('ServiceWorker.workerRegistrationUpdated', (event) => {
    registrations.push(...event.registrations);
  });
  // Each version's latest status, by version id.
  const versions = new Map<string, { registrationId: string; status: string }>();
  cdp.on('ServiceWorker.workerVersionUpdated', (event) => {
    for (const version of event.versions) versions.set(version.versionId, version);
  });
  await cdp.send('ServiceWorker.enable');
  await page.goto('/');
  await page.evaluate(() => navigator.serviceWorker.ready);
  const registrationOfSite = () =>
    registrations.find((entry) => entry.scopeURL === `${baseUrl()}/`)?.registrationId ?? '';
  await expect.poll(registrationOfSite).not.toBe('');
  const registrationId = registrationOfSite();
  // `ready` resolves while the worker may still be activating; a push delivered then can be
  // dropped, so the pushes wait until the browser reports it activated.
  await expect
    .poll(() =>
      [...versions.values()].some(
        (version) => version.registrationId === registrationId && version.status === 'activated',
      ),
    )
    .toBe(true);
  const push = async (message: unknown) => {
    await cdp.send('ServiceWorker.deliverPushMessage', {
      origin: baseUrl(),
      registrationId,
      data: JSON.stringify(message),
    });
  };
  return { page, push };
}

/** Rules of every kind, so the list shows every sentence and state the layout must hold. */
async function seedAlerts(): Promise<{ name: string; key: string }> {
  const receiver = await startReceiver();
  const { name, key, counters } = await seedGroup([
    { name: 'Visitors', max: 200, section: 'Main hall entrances' },
    { name: 'Temporary workers on site, signed in at the north gate by the agency' },
    { name: 'Push-ups', goal: 100, reset: 'daily' },
  ]);
  const [visitors, workers, pushUps] = counters;
  const hook = (path: string) => `${receiver.origin}/${path}`;
  await addRule(name, key, {
    counterId: visitors?.id ?? null,
    section: null,
    when: { kind: 'reaches', value: 200 },
    to: { kind: 'webhook', url: hook('slack'), format: 'slack' },
  });
  await addRule(name, key, {
    counterId: null,
    section: null,
    when: { kind: 'every', value: 1000 },
    to: { kind: 'push' },
  });
  await addRule(name, key, {
    counterId: null,
    section: 'Main hall entrances',
    when: { kind: 'capacity', state: 'nearlyFull' },
    to: { kind: 'webhook', url: hook('discord'), format: 'discord' },
  });
  await addRule(name, key, {
    counterId: workers?.id ?? null,
    section: null,
    when: { kind: 'fallsTo', value: 0 },
    to: { kind: 'webhook', url: hook('standard'), format: 'standard' },
  });
  await addRule(name, key, {
    counterId: pushUps?.id ?? null,
    section: null,
    when: { kind: 'goal' },
    to: { kind: 'webhook', url: hook('ntfy'), format: 'ntfy' },
  });
  await addRule(name, key, {
    counterId: pushUps?.id ?? null,
    section: null,
    when: { kind: 'periodEnd' },
    to: { kind: 'push' },
  });
  return { name, key };
}

/** The dialog as a member sees it most: rules listed, one test sent, its log open. */
async function showBusyDialog(page: Page): Promise<Locator> {
  const dialog = await openAlerts(page);
  const first = ruleItem(dialog, /^When Visitors reaches 200/);
  await first.getByRole('button', { name: 'Send test' }).click();
  await expect(first.getByRole('status')).toContainText('Test: Delivered', { timeout: 10_000 });
  await first.getByRole('button', { name: 'Deliveries' }).click();
  await expect(first.getByRole('list', { name: 'Deliveries, newest first' })).toBeVisible();
  return dialog;
}

test.describe('alerts layout', () => {
  for (const theme of ['light', 'dark'] as Theme[]) {
    test(`fits 360 px and 1280 px without sideways scrolling, axe clean (${theme})`, async ({
      browser,
    }) => {
      test.setTimeout(60_000);
      const { name, key } = await seedAlerts();
      const page = await memberPage(browser, 'Ada', {
        theme,
        viewport: { width: 360, height: 740 },
      });
      await openGroup(page, name, key);
      const dialog = await showBusyDialog(page);
      await expect(dialog.getByRole('listitem').filter({ hasText: /→/ })).toHaveCount(6);
      for (const words of [
        'When Visitors reaches 200 → Slack (127.0.0.1',
        'Every 1,000 on any counter → Web Push (no browser yet)',
        'When any counter in Main hall entrances gets nearly full, and when it has room again → Discord (127.0.0.1',
        'When Temporary workers on site, signed in at the north gate by the agency falls to 0 → Webhook (127.0.0.1',
        'When Push-ups reaches its goal → ntfy (127.0.0.1',
        'When a period of Push-ups ends → Web Push (no browser yet)',
      ]) {
        await expect(ruleItem(dialog, words)).toHaveCount(1);
      }
      const problems: string[] = [];
      problems.push(...(await overflow(page)).map((problem) => `360 px, list: ${problem}`));
      await dialog.getByRole('button', { name: 'Add alert' }).click();
      await dialog.getByRole('form', { name: 'Add alert' }).scrollIntoViewIfNeeded();
      problems.push(...(await overflow(page)).map((problem) => `360 px, form: ${problem}`));
      expect(await seriousA11yFindings(page)).toEqual([]);

      await page.setViewportSize({ width: 1280, height: 800 });
      problems.push(...(await overflow(page)).map((problem) => `1280 px: ${problem}`));
      expect(problems).toEqual([]);
      expect(await seriousA11yFindings(page)).toEqual([]);
      await page.context().close();
    });
  }
});

test.describe('alerts screenshots', () => {
  test.skip(!screenshotsWanted, 'set TALLY_SCREENSHOTS=1 to write .tmp/screenshots/alerts-*.png');
  for (const theme of ['light', 'dark'] as Theme[]) {
    for (const size of ['phone', 'desktop', 'tv'] as const) {
      test(`alerts dialog (${theme}, ${size})`, async ({ browser }) => {
        const { name, key } = await seedAlerts();
        const page = await memberPage(browser, 'Ada', {
          theme,
          viewport: SCREENSHOT_SIZES[size],
        });
        await openGroup(page, name, key);
        await showBusyDialog(page);
        await page.screenshot({ path: screenshotPath(`alerts-${size}-${theme}.png`) });
        await page.context().close();
      });
    }
  }
});
