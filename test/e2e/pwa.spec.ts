/**
 * The installable app: a web app manifest with fetchable icons, and a service worker that keeps
 * the app shell for offline starts but never answers the API from a cache (counts must never be
 * shown stale as if current).
 */
import fs from 'node:fs';
import path from 'node:path';
import { PNG } from 'pngjs';
import { counterCard, expect, openGroup, seedGroup, test } from './support/fixtures.js';

const ASSETS = path.resolve(import.meta.dirname, '../../dist/web/assets');

interface ManifestIcon {
  src: string;
  sizes: string;
  type: string;
  purpose?: string;
}

test.describe('installable app', () => {
  test('the web app manifest is served, linked from the page, and its icons load as PNGs', async ({
    page,
    request,
  }) => {
    await page.goto('/');
    const href = await page.locator('link[rel="manifest"]').getAttribute('href');
    expect(href).toBe('/manifest.webmanifest');
    const response = await request.get(href ?? '');
    expect(response.status()).toBe(200);
    expect(response.headers()['content-type']).toBe('application/manifest+json');
    expect(response.headers()['cache-control']).toBe('no-cache');
    const manifest = (await response.json()) as Record<string, unknown> & {
      icons: ManifestIcon[];
    };
    expect(manifest).toMatchObject({
      name: 'Tally',
      short_name: 'Tally',
      start_url: '/',
      display: 'standalone',
      // The dark theme's page background (zinc-950), the default theme.
      background_color: '#09090b',
      theme_color: '#09090b',
    });
    const sizes = manifest.icons.map((icon) => `${icon.sizes} ${icon.purpose ?? 'any'}`);
    expect(sizes).toEqual(
      expect.arrayContaining(['192x192 any', '512x512 any', '512x512 maskable']),
    );

    const appleIcon = await page.locator('link[rel="apple-touch-icon"]').getAttribute('href');
    const icons = [
      ...manifest.icons,
      { src: appleIcon ?? '', sizes: '180x180', type: 'image/png' },
    ];
    for (const icon of icons) {
      const file = await request.get(icon.src);
      expect(file.status(), icon.src).toBe(200);
      expect(file.headers()['content-type'], icon.src).toBe(icon.type);
      const png = PNG.sync.read(await file.body());
      expect(`${png.width}x${png.height}`, icon.src).toBe(icon.sizes);
    }
  });

  test('the service worker is served uncached and precaches the shell and every built asset', async ({
    request,
  }) => {
    const response = await request.get('/sw.js');
    expect(response.status()).toBe(200);
    expect(response.headers()['content-type']).toMatch(/^application\/javascript/);
    expect(response.headers()['cache-control']).toBe('no-cache');
    const source = await response.text();
    const build = JSON.parse(/^const BUILD = (.*);$/m.exec(source)?.[1] ?? 'null') as {
      version: string;
      precache: string[];
    } | null;
    expect(build?.version).toMatch(/^[0-9a-f]{16}$/);
    const precache = build?.precache ?? [];
    expect(precache).toContain('/');
    expect(precache).toEqual(
      expect.arrayContaining([
        '/theme.js',
        '/favicon.svg',
        '/manifest.webmanifest',
        '/icons/icon-192.png',
      ]),
    );
    // `npm run build` also writes .br and .gz copies beside each asset (scripts/precompress.mjs):
    // encodings the server picks for the same URL, not assets of their own.
    for (const file of fs.readdirSync(ASSETS).filter((name) => !/\.(br|gz)$/.test(name)))
      expect(precache).toContain(`/assets/${file}`);
    expect(precache.filter((url) => url.startsWith('/api/'))).toEqual([]);
  });

  test('once the worker controls the page, the app shell loads offline but the API does not', async ({
    page,
    context,
  }) => {
    const { name, key } = await seedGroup([{ name: 'Laps', value: 41 }]);
    // Online first: a group visit reads the API (which must not end up in any cache).
    await openGroup(page, name, key);
    await expect(counterCard(page, 'Laps')).toBeVisible();
    await page.evaluate(() => navigator.serviceWorker.ready);
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null);

    await context.setOffline(true);
    // The worker's own network is cut too: whatever it answers now comes from its cache.
    const [worker] = context.serviceWorkers();
    expect(
      await worker?.evaluate(() =>
        fetch('/theme.js', { cache: 'no-store' }).then(
          () => 'online',
          () => 'offline',
        ),
      ),
    ).toBe('offline');
    const shell = await page.goto('/');
    expect(shell?.fromServiceWorker()).toBe(true);
    await expect(page.getByRole('heading', { level: 1, name: 'Tally' })).toBeVisible();
    await expect(page.getByLabel('Unique Group Name')).toBeVisible();

    const api = await page.evaluate(async (group) => {
      try {
        const response = await fetch(`/api/groups/${group}`);
        return `answered ${String(response.status)}`;
      } catch {
        return 'failed';
      }
    }, name);
    expect(api).toBe('failed');

    // A group link opened offline gets the app, never a count from a cache.
    await page.goto(`/${name}?key=${key}`);
    await expect(page.getByRole('link', { name: 'Tally' })).toBeVisible();
    await expect(counterCard(page, 'Laps')).toHaveCount(0);

    const cached = await page.evaluate(async () => {
      const urls: string[] = [];
      for (const cacheName of await caches.keys()) {
        const cache = await caches.open(cacheName);
        for (const request of await cache.keys())
          urls.push(new URL(request.url).pathname + new URL(request.url).search);
      }
      return urls;
    });
    expect(cached).toContain('/');
    expect(cached.filter((url) => url.startsWith('/api/') || url.includes('key='))).toEqual([]);
  });
});
