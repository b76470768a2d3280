/* global self, caches, fetch, URL, Request, BUILD */
// Tally's service worker: the app shell works offline; the data never comes from a cache.
//
// The build (vite.config.ts, serviceWorker()) writes dist/web/sw.js from this file with
// `const BUILD = { version, precache }` in front: the shell ('/'), every hashed asset of that
// build and the public files. A new build changes BUILD, so browsers install the new worker, which
// fills a new cache and deletes the old one when it takes over (after the last old tab closes).
//
// What it never does: answer /api/ requests (counts, groups, keys) from a cache, or keep them.
// Counts must never be shown stale as if current. The live WebSocket is not a fetch and never
// passes through here. Page URLs (they carry ?key=) are never cache keys: every navigation is
// answered from the one cached '/' shell.

const CACHE_PREFIX = 'tally-shell-';
const CACHE = CACHE_PREFIX + BUILD.version;
const SHELL = '/';
const PRECACHED = new Set(BUILD.precache);

self.addEventListener('install', (event) => {
  event.waitUntil(
    // 'no-cache': revalidate with the server, never copy a stale HTTP-cache entry.
    caches
      .open(CACHE)
      .then((cache) =>
        cache.addAll(BUILD.precache.map((url) => new Request(url, { cache: 'no-cache' }))),
      ),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) {
        if (name.startsWith(CACHE_PREFIX) && name !== CACHE) await caches.delete(name);
      }
      // Navigations start their network request while the worker boots.
      await self.registration.navigationPreload?.enable();
      // The first visit's page is controlled at once, so it can start offline next time.
      await self.clients.claim();
    })(),
  );
});

self.addEventListener('fetch', (event) => {
  const { request } = event;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  // Other origins (user-supplied images) and the API go to the network untouched.
  if (url.origin !== self.location.origin || url.pathname.startsWith('/api/')) return;

  if (request.mode === 'navigate') {
    event.respondWith(navigation(event));
  } else if (url.pathname.startsWith('/assets/')) {
    event.respondWith(cacheFirst(request));
  } else if (PRECACHED.has(url.pathname)) {
    event.respondWith(networkFirst(request));
  }
});

/** Network first, so an online visit always gets the current page; offline, the cached shell. */
async function navigation(event) {
  try {
    const preloaded = await event.preloadResponse;
    return preloaded ?? (await fetch(event.request));
  } catch (error) {
    const shell = await caches.match(SHELL, { cacheName: CACHE });
    if (shell) return shell;
    throw error;
  }
}

/** Hashed assets never change under their name: the cached copy is the right one. */
async function cacheFirst(request) {
  const cached = await caches.match(request, { cacheName: CACHE });
  if (cached) return cached;
  const response = await fetch(request);
  // An asset of a newer build (lazy chunk) is kept too; the server's HTML fallback for an
  // unknown path is not.
  const type = response.headers.get('content-type') ?? '';
  if (response.ok && !type.startsWith('text/html')) {
    const cache = await caches.open(CACHE);
    await cache.put(request, response.clone());
  }
  return response;
}

/** Unhashed public files (theme.js, icons, manifest): fresh when online, cached when not. */
async function networkFirst(request) {
  try {
    return await fetch(request);
  } catch (error) {
    const cached = await caches.match(request, { cacheName: CACHE });
    if (cached) return cached;
    throw error;
  }
}
