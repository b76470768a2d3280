/* global self, caches, fetch, URL, Request, BUILD, NotificationWords */
// Tally's service worker: the app shell works offline; the data never comes from a cache. It also
// shows a group's alerts sent to Web Push (src/server/alerts/push.ts) as notifications.
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

// ---- Alerts by Web Push --------------------------------------------------------------------------
//
// The server sends `{ title, body, url, words }`, encrypted for this browser. The url is the group's
// page without its key (a notification can show on a locked screen): a tab that has the group open
// already holds the key, so a click brings that tab forward rather than opening a page without it.
// The title and body are English; `words` are the same as parts, worded here in the language the
// member last used, with the sentences the page kept for it (lib/notification-words.ts).

const NOTIFICATION_ICON = '/icons/icon-192.png';

self.addEventListener('push', (event) => {
  event.waitUntil(showAlert(event.data));
});

/** The message's fields, each checked: a payload that is not Tally's JSON still notifies. */
function alertOf(data) {
  let message = null;
  try {
    message = data ? data.json() : null;
  } catch {
    message = { body: data ? data.text() : '' };
  }
  const text = (value) => (typeof value === 'string' ? value : '');
  return {
    title: text(message?.title) || 'Tally',
    body: text(message?.body),
    url: pageOf(message?.url).href,
    words: message?.words ?? null,
  };
}

const NOTIFICATION_WORDS_CACHE = 'tally-notification-words';
const NOTIFICATION_WORDS_REQUEST = '/notification-words';

/**
 * The alert's title and body in the language the page kept sentences for; null when it kept
 * none, kept English (the server's words are those), or anything does not fit together (then the
 * English shows).
 */
async function inMemberLanguage(words) {
  if (words === null || typeof words !== 'object') return null;
  try {
    const cache = await caches.open(NOTIFICATION_WORDS_CACHE);
    const response = await cache.match(NOTIFICATION_WORDS_REQUEST);
    if (!response) return null;
    const { locale, templates } = await response.json();
    if (typeof locale !== 'string' || templates === null || typeof templates !== 'object') {
      return null;
    }
    if (typeof templates.sentences?.[words.sentence] !== 'string') return null;
    const numbers = new Intl.NumberFormat(locale);
    const plurals = new Intl.PluralRules(locale);
    const worded = NotificationWords.wordNotification(words, templates, {
      number: (value) => numbers.format(value),
      plural: (count) => plurals.select(count),
    });
    if (typeof worded.title !== 'string' || typeof worded.body !== 'string') return null;
    return worded;
  } catch {
    return null;
  }
}

/** A page of this site: another origin's address or anything unreadable opens the start page. */
function pageOf(raw) {
  try {
    const url = new URL(typeof raw === 'string' ? raw : '/', self.location.origin);
    if (url.origin === self.location.origin) return url;
  } catch {
    // Not a URL: the start page below.
  }
  return new URL('/', self.location.origin);
}

async function showAlert(data) {
  const alert = alertOf(data);
  const { title, body } = (await inMemberLanguage(alert.words)) ?? alert;
  return self.registration.showNotification(title, {
    body,
    data: { url: alert.url },
    // One notification per group page: a newer alert replaces the older one instead of stacking
    // up, and renotify makes the replacement sound and show again.
    tag: `tally-alert:${new URL(alert.url).pathname}`,
    renotify: true,
    icon: NOTIFICATION_ICON,
  });
}

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  event.waitUntil(openAlertPage(pageOf(event.notification.data?.url)));
});

/** The same page whatever its query (`?key=…`) and letter case: group names ignore case. */
function samePage(a, b) {
  const path = (url) => {
    let pathname = url.pathname.replace(/\/+$/, '') || '/';
    try {
      pathname = decodeURIComponent(pathname);
    } catch {
      // Left as it is.
    }
    return pathname.toLowerCase();
  };
  return a.origin === b.origin && path(a) === path(b);
}

/**
 * The group's link as the page kept it when its notifications were turned on (lib/push.ts): the
 * notification carries no key, and the group's page cannot open without one.
 */
async function keptLink(target) {
  if (target.pathname === '/') return null;
  const slug = decodeURIComponent(target.pathname.slice(1)).toLowerCase();
  const cache = await caches.open('tally-notification-links');
  const kept = await cache.match(`/notification-link/${encodeURIComponent(slug)}`);
  if (!kept) return null;
  const link = pageOf(await kept.text());
  return samePage(link, target) ? link : null;
}

async function openAlertPage(target) {
  const windows = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
  const open = windows.find((client) => samePage(new URL(client.url), target));
  if (open) return open.focus();
  const link = await keptLink(target).catch(() => null);
  return self.clients.openWindow((link ?? target).href);
}
