/**
 * Local browser data: the guest display name, the theme and the language
 * (docs/product.md#member-names, docs/product.md#theme, docs/product.md#languages). Storage may be unavailable (disabled
 * cookies, some private modes): then values live for the page's lifetime.
 */
import { makeGuestName } from '../../shared/rules.js';

/** Must match the key read by public/theme.js before first paint. */
export const THEME_KEY = 'tally:theme';
/** The language chosen in the menu; absent until one is, so the browser's preference decides. */
export const LOCALE_KEY = 'tally:lang';
export const GUEST_NAME_KEY = 'tally:guestName';
/** This browser's presence id, shared by its tabs (not a secret, not an account). */
export const MEMBER_ID_KEY = 'tally:memberId';

/** The groups this browser gave its push subscription to (lib/push.ts): names, never keys. */
export const PUSH_GROUPS_KEY = 'tally:pushGroups';

export type Theme = 'dark' | 'light';

const memory = new Map<string, string>();

function read(key: string): string | null {
  try {
    return window.localStorage.getItem(key);
  } catch {
    return memory.get(key) ?? null;
  }
}

function write(key: string, value: string): void {
  memory.set(key, value);
  try {
    window.localStorage.setItem(key, value);
  } catch {
    // Kept in memory only.
  }
}

/** The theme in effect: theme.js has already applied the saved one (dark by default). */
export function currentTheme(): Theme {
  return document.documentElement.classList.contains('dark') ? 'dark' : 'light';
}

export function applyTheme(theme: Theme): void {
  const root = document.documentElement;
  root.classList.toggle('dark', theme === 'dark');
  root.style.colorScheme = theme;
}

export function saveTheme(theme: Theme): void {
  write(THEME_KEY, theme);
}

export function parseTheme(value: string | null): Theme {
  return value === 'light' ? 'light' : 'dark';
}

export function savedLocale(): string | null {
  return read(LOCALE_KEY);
}

export function saveLocale(code: string): void {
  write(LOCALE_KEY, code);
}

/** A guest name is created on the first visit and kept. */
export function ensureGuestName(): string {
  const saved = read(GUEST_NAME_KEY);
  if (saved !== null && saved.trim() !== '') return saved;
  const name = makeGuestName();
  write(GUEST_NAME_KEY, name);
  return name;
}

export function saveGuestName(name: string): void {
  write(GUEST_NAME_KEY, name);
}

/** The random id this browser shows up under in 'Here now' (1–64 of A-Z a-z 0-9 _ -). */
export function ensureMemberId(): string {
  const saved = read(MEMBER_ID_KEY);
  if (saved !== null && /^[A-Za-z0-9_-]{1,64}$/.test(saved)) return saved;
  const bytes = new Uint8Array(12);
  crypto.getRandomValues(bytes);
  const id = Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
  write(MEMBER_ID_KEY, id);
  return id;
}

/** Whether this browser has turned notifications on for any group. */
export function hasPushGroups(): boolean {
  const saved = read(PUSH_GROUPS_KEY);
  return saved !== null && saved !== '[]';
}
