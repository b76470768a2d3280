/**
 * The language in effect (ADR 35): Lingui's single i18n instance, the `<html lang dir>` that
 * follows it, and each non-English catalog loaded as its own chunk when it is chosen. English needs
 * no catalog: the components carry its text, compiled at build time (vite.config.ts).
 */
import { i18n, type Messages } from '@lingui/core';
import { LOCALE_KEY, hasPushGroups, saveLocale, savedLocale } from '../lib/storage.js';
import { compilePlaceholders } from './placeholders.js';
import { errorWords } from '../lib/api.js';
import { SOURCE_LOCALE, directionOf, isLocale, preferredLocale } from './locales.js';

// One chunk per language, fetched the first time it is chosen; en.po only lists the source text.
const catalogs = import.meta.glob<{ messages: Messages }>(['../locales/*.po', '!../locales/en.po']);

/** A language's compiled catalog: fetched the first time, then from the module cache. */
export async function catalogOf(code: string): Promise<Messages> {
  const load = catalogs[`../locales/${code}.po`];
  return code === SOURCE_LOCALE || !load ? {} : (await load()).messages;
}

/**
 * The language of this page: `?lang=` on its link (a TV display nobody will touch), else the one
 * chosen in the menu, else the browser's first preference that Tally speaks, else English.
 * A `lang` of the link is not remembered: it sets that page only.
 */
export function initialLocale(search: string, languages: readonly string[]): string {
  const fromLink = localeOfLink(search);
  if (fromLink !== null) return fromLink;
  const saved = savedLocale();
  if (isLocale(saved)) return saved;
  return preferredLocale(languages);
}

/** The language a page's link sets (`?lang=`), if it names one Tally speaks. */
export function localeOfLink(search: string): string | null {
  const fromLink = new URLSearchParams(search).get('lang');
  return isLocale(fromLink) ? fromLink : null;
}

// Every message arrives compiled (lingui.vite.ts) but one whose English is plain text with
// `{name}` placeholders: the build leaves its English key alone, compiled here by splitting it at
// them. The ICU parser stays out of the browser.
i18n.setMessagesCompiler(compilePlaceholders);
// English from the start: code that runs as modules load (the early opening of a group link)
// already words its refusals through Lingui. main.tsx imports this module first.
i18n.loadAndActivate({ locale: SOURCE_LOCALE, messages: {} });

let wanted = '';

/**
 * Makes `code` the language of the page: loads its catalog if needed, then switches every
 * component at once (no reload) and sets `<html lang dir>`. When choices overlap, the last one wins.
 * It becomes the language of this browser's notifications too, unless it is only this page's
 * (`forPageOnly`: set by the link, for a TV display).
 */
export async function activateLocale(code: string, forPageOnly = false): Promise<void> {
  wanted = code;
  const language = await loadLanguage(code);
  if (wanted !== code) return;
  language();
  const root = document.documentElement;
  root.lang = code;
  root.dir = directionOf(code);
  if (!forPageOnly && hasPushGroups()) {
    // Fetched only by a browser that has turned notifications on for a group.
    void import('../lib/notification-words.js')
      .then((words) => words.keepNotificationWords(code === SOURCE_LOCALE))
      .catch(() => undefined);
  }
}

/**
 * Fetches what `code` needs (its catalog, and the words for the server's error codes), then gives
 * back what switches Lingui to it.
 */
export async function loadLanguage(code: string): Promise<() => void> {
  const [messages, errors] = await Promise.all([
    catalogOf(code),
    code === SOURCE_LOCALE ? null : import('./errors.js'),
  ]);
  return () => {
    errorWords.of = errors?.errorText ?? null;
    i18n.loadAndActivate({ locale: code, messages });
  };
}

/** The menu's choice: applied now and remembered, like the theme. */
export async function chooseLocale(code: string): Promise<void> {
  saveLocale(code);
  await activateLocale(code);
}

/** Another tab chose a language: this one follows. */
export function followOtherTabs(): () => void {
  const onStorage = (event: StorageEvent) => {
    if (event.key === LOCALE_KEY && isLocale(event.newValue)) void activateLocale(event.newValue);
  };
  window.addEventListener('storage', onStorage);
  return () => {
    window.removeEventListener('storage', onStorage);
  };
}

export { i18n };
