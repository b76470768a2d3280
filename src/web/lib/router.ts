/**
 * Two routes need no router library: history.pushState plus popstate, read through
 * useSyncExternalStore so every navigation re-renders the app.
 */
import { useSyncExternalStore } from 'react';

const listeners = new Set<() => void>();

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  window.addEventListener('popstate', listener);
  return () => {
    listeners.delete(listener);
    window.removeEventListener('popstate', listener);
  };
}

function snapshot(): string {
  return window.location.pathname + window.location.search;
}

export function navigate(url: string, options: { replace?: boolean } = {}): void {
  if (options.replace) window.history.replaceState(null, '', url);
  else window.history.pushState(null, '', url);
  for (const listener of listeners) listener();
}

/** The current path and query string, e.g. "/team?key=…". */
export function useLocation(): string {
  return useSyncExternalStore(subscribe, snapshot);
}

/** The group's URL: /{groupName}?key={key} (docs/product.md#screens-and-routes). */
export function groupUrl(slug: string, key: string): string {
  return `/${encodeURIComponent(slug)}?key=${encodeURIComponent(key)}`;
}

/**
 * The display link of a group: /{group}/display?key=…, with `&lang=` when a language is given (a
 * TV nobody touches then shows the language of the member who shared the link).
 */
export function displayUrl(slug: string, key: string, lang?: string): string {
  const path = `/${encodeURIComponent(slug)}/display?key=${encodeURIComponent(key)}`;
  return lang === undefined ? path : `${path}&lang=${encodeURIComponent(lang)}`;
}

/** The group name of a display path ("/team/display" → "team"), or null for any other path. */
export function displayGroupOf(pathname: string): string | null {
  const match = /^\/+([^/]+)\/display\/*$/.exec(pathname);
  if (!match?.[1]) return null;
  try {
    return decodeURIComponent(match[1]);
  } catch {
    return match[1];
  }
}
