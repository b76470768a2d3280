/**
 * Web Push on this device: the browser's one push subscription (one per service worker, shared by
 * every group it is given to) and which groups this browser gave it to. A group is "on" here when
 * the subscription exists and this browser posted it to that group (the server keeps the
 * subscriptions; it has no way to say whether it holds this one). Turning a group off deletes it
 * there; the subscription itself is ended only when no group uses it any more.
 *
 * Only group names are kept in localStorage, never a key.
 */
import { t } from '@lingui/core/macro';
import { noConnection } from './alerts.js';
import { ApiRequestError, groupPath, request, type GroupAuth } from './api.js';
import { i18n } from '@lingui/core';
import { SOURCE_LOCALE } from '../i18n/locales.js';
import { groupUrl } from './router.js';

/** Why notifications cannot be turned on here, in words; null when they can. */
export function pushUnsupportedReason(): string | null {
  if (!window.isSecureContext || !('serviceWorker' in navigator)) {
    return t`This browser cannot show notifications from this page: it needs a secure (https) address and service workers.`;
  }
  if (!('PushManager' in window) || !('Notification' in window)) {
    return t`This browser cannot receive notifications from websites. On iPhone and iPad, add Tally to the Home Screen first and open it from there.`;
  }
  return null;
}

export type PushPermission = 'default' | 'granted' | 'denied';

export function pushPermission(): PushPermission {
  return 'Notification' in window ? Notification.permission : 'default';
}

export const blockedMessage = () =>
  t`Notifications are blocked for this site. Allow them in the browser’s site settings (the icon beside the address), then turn them on here again.`;

// ---- Which groups this browser gave its subscription to ----------------------------------------

/**
 * storage.ts's PUSH_GROUPS_KEY, which the first load reads (hasPushGroups); a unit test holds
 * them equal. Written out here, not imported: importing storage.ts from this dialog's chunk makes
 * the build split it out of the first load's chunk, one more request on every screen.
 */
export const PUSH_GROUPS_KEY = 'tally:pushGroups';

function subscribedGroups(): string[] {
  try {
    const parsed: unknown = JSON.parse(window.localStorage.getItem(PUSH_GROUPS_KEY) ?? '[]');
    return Array.isArray(parsed)
      ? parsed.filter((slug): slug is string => typeof slug === 'string')
      : [];
  } catch {
    return [];
  }
}

function saveSubscribedGroups(slugs: readonly string[]): void {
  try {
    if (slugs.length === 0) window.localStorage.removeItem(PUSH_GROUPS_KEY);
    else window.localStorage.setItem(PUSH_GROUPS_KEY, JSON.stringify([...new Set(slugs)]));
  } catch {
    // Storage refused: the switch shows off after a reload, and turning it on again is harmless.
  }
}

// ---- The subscription --------------------------------------------------------------------------

/** How long the service worker may take to become active, ms, before the switch says so. */
const WORKER_READY_TIMEOUT_MS = 10_000;

class PushProblem extends Error {
  override name = 'PushProblem';
}

/**
 * The page's service worker, active: main.tsx registers it after load; a member quick enough to
 * get here first (or a page without it) registers it now. PushManager.subscribe needs it active.
 */
async function activeRegistration(): Promise<ServiceWorkerRegistration> {
  const existing = await navigator.serviceWorker.getRegistration();
  if (existing === undefined) await navigator.serviceWorker.register('/sw.js');
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(
        new PushProblem(
          t`The app’s service worker did not start, so notifications cannot be set up. Reload the page and try again.`,
        ),
      );
    }, WORKER_READY_TIMEOUT_MS);
  });
  try {
    return await Promise.race([navigator.serviceWorker.ready, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function currentSubscription(): Promise<PushSubscription | null> {
  const registration = await navigator.serviceWorker.getRegistration();
  return (await registration?.pushManager.getSubscription()) ?? null;
}

/**
 * Where a notification of each group opens, kept on this device for the groups whose
 * notifications the member turned on (and only those: turning them off forgets it). The app
 * never keeps a key otherwise; without it, a notification clicked with no tab of the group open
 * would land on a page that cannot open the group. The service worker reads it (sw.js).
 */
const NOTIFICATION_LINKS = 'tally-notification-links';
const linkRequest = (slug: string) =>
  `/notification-link/${encodeURIComponent(slug.toLowerCase())}`;

/** Keeps (or renews, after the key changed) the group's link for its notifications. */
export async function rememberNotificationLink(auth: GroupAuth): Promise<void> {
  if (typeof caches === 'undefined') return;
  const cache = await caches.open(NOTIFICATION_LINKS);
  await cache.put(linkRequest(auth.slug), new Response(groupUrl(auth.slug, auth.key)));
}

async function forgetNotificationLink(slug: string): Promise<void> {
  if (typeof caches === 'undefined') return;
  const cache = await caches.open(NOTIFICATION_LINKS);
  await cache.delete(linkRequest(slug));
}

/** Keeps the sentences of the page's language for its notifications (notification-words.ts). */
async function keepNotificationWordsNow(): Promise<void> {
  const words = await import('./notification-words.js');
  await words.keepNotificationWords(i18n.locale === SOURCE_LOCALE);
}

/** Whether this browser receives the group's notifications now. */
export async function isPushOn(slug: string): Promise<boolean> {
  if (pushUnsupportedReason() !== null || pushPermission() !== 'granted') return false;
  if (!subscribedGroups().includes(slug)) return false;
  // Not registered yet (the page has only just loaded): nothing to say the subscription is gone.
  const registration = await navigator.serviceWorker.getRegistration();
  if (registration === undefined) return false;
  if ((await registration.pushManager.getSubscription()) !== null) return true;
  // The browser ended the subscription (site data cleared, permission reset): forget the groups.
  saveSubscribedGroups([]);
  return false;
}

/** base64url (the server's VAPID key) → bytes, as PushManager.subscribe takes it. */
function base64urlBytes(text: string): Uint8Array<ArrayBuffer> {
  const base64 = text.replace(/-/g, '+').replace(/_/g, '/');
  const binary = atob(base64 + '='.repeat((4 - (base64.length % 4)) % 4));
  const bytes = new Uint8Array(new ArrayBuffer(binary.length));
  for (let index = 0; index < binary.length; index += 1) bytes[index] = binary.charCodeAt(index);
  return bytes;
}

function sameBytes(a: ArrayBuffer | null, b: Uint8Array): boolean {
  if (a === null || a.byteLength !== b.byteLength) return false;
  const view = new Uint8Array(a);
  return view.every((byte, index) => byte === b[index]);
}

/**
 * Turns the group's notifications on here: asks for permission (first, while the click still
 * counts as the member's gesture), subscribes with the server's VAPID key and gives the
 * subscription to the group. Throws with what to tell the member.
 */
export async function turnPushOn(auth: GroupAuth): Promise<void> {
  const permission = await Notification.requestPermission();
  if (permission === 'denied') throw new PushProblem(blockedMessage());
  if (permission !== 'granted') {
    throw new PushProblem(
      t`Notifications stay off: the browser’s question was closed without allowing them.`,
    );
  }
  const [registration, { publicKey }] = await Promise.all([
    activeRegistration(),
    request<{ publicKey: string }>('GET', '/api/push/key'),
  ]);
  const serverKey = base64urlBytes(publicKey);
  let subscription = await registration.pushManager.getSubscription();
  // Made with another key (the server's keys were replaced): no push service would accept the
  // server's messages for it, and subscribing again with the new key would be refused while it
  // exists.
  if (subscription !== null && !sameBytes(subscription.options.applicationServerKey, serverKey)) {
    await subscription.unsubscribe();
    saveSubscribedGroups([]);
    subscription = null;
  }
  subscription ??= await registration.pushManager.subscribe({
    userVisibleOnly: true,
    applicationServerKey: serverKey,
  });
  await request<unknown>('POST', `${groupPath(auth.slug)}/push`, {
    key: auth.key,
    body: subscription.toJSON(),
  });
  saveSubscribedGroups([...subscribedGroups(), auth.slug]);
  await Promise.all([rememberNotificationLink(auth), keepNotificationWordsNow()]);
}

/**
 * Turns the group's notifications off here: the group forgets this browser, and the browser's
 * subscription ends once no group of this browser uses it.
 */
export async function turnPushOff(auth: GroupAuth): Promise<void> {
  const subscription = await currentSubscription();
  if (subscription !== null) {
    await request<undefined>('DELETE', `${groupPath(auth.slug)}/push`, {
      key: auth.key,
      body: { endpoint: subscription.endpoint },
    });
  }
  const rest = subscribedGroups().filter((slug) => slug !== auth.slug);
  saveSubscribedGroups(rest);
  await forgetNotificationLink(auth.slug);
  if (subscription !== null && rest.length === 0) await subscription.unsubscribe();
}

/** What went wrong while switching, in words for the member. */
export function pushProblemWords(error: unknown): string {
  if (error instanceof PushProblem) return error.message;
  if (error instanceof DOMException) {
    if (error.name === 'NotAllowedError') return blockedMessage();
    const reason = error.message;
    return t`The browser could not set up notifications: ${reason}`;
  }
  if (error instanceof ApiRequestError) {
    if (error.code === 'network_error') return noConnection();
    return error.serverMessage ?? error.message;
  }
  return error instanceof Error ? error.message : String(error);
}
