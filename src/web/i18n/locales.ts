/**
 * The languages Tally speaks (docs/product.md#languages): each a BCP 47 tag, its own name for the
 * language menu and its writing direction. Adding one is a catalog file in src/web/locales and a
 * line here. No import: lingui.config.ts reads this file at build time too.
 */
export interface Locale {
  code: string;
  /** The language's name in itself, as the menu lists it. */
  name: string;
}

/** English is the source: its text is in the components themselves. */
export const SOURCE_LOCALE = 'en';

/** Accented, longer English for finding clipped text; chosen only by `?lang=en-XA`. */
export const PSEUDO_LOCALE = 'en-XA';

export const LOCALES: readonly Locale[] = [
  { code: 'en', name: 'English' },
  { code: 'de', name: 'Deutsch' },
  { code: 'es', name: 'Español' },
  { code: 'fr', name: 'Français' },
  { code: 'it', name: 'Italiano' },
  { code: 'pt-BR', name: 'Português (Brasil)' },
  { code: 'ru', name: 'Русский' },
  { code: 'ar', name: 'العربية' },
  { code: 'ja', name: '日本語' },
  { code: 'zh-Hans', name: '简体中文' },
];

/** The languages written right to left. */
const RTL = ['ar'];

const CODES = [...LOCALES.map((locale) => locale.code), PSEUDO_LOCALE];

/** Whether `code` names a language Tally has (the pseudo-locale included), exactly as listed. */
export function isLocale(code: string | null | undefined): code is string {
  return code != null && CODES.includes(code);
}

export function directionOf(code: string): 'ltr' | 'rtl' {
  return RTL.includes(code) ? 'rtl' : 'ltr';
}

/**
 * The supported language closest to one tag a browser prefers, or null: the tag itself in any
 * case ("pt-br"), else its language alone ("de-AT" is German, any "pt" Brazilian Portuguese).
 * Chinese written in traditional characters (zh-Hant, or Taiwan, Hong Kong and Macau without a
 * script) finds nothing, so the browser's next preference decides.
 */
export function matchLocale(tag: string): string | null {
  const lower = tag.trim().toLowerCase();
  const exact = CODES.find((code) => code.toLowerCase() === lower);
  if (exact) return exact;
  const [language = '', ...rest] = lower.split(/[-_]/);
  if (language === 'zh') {
    return !rest.includes('hans') && rest.some((part) => /^(hant|tw|hk|mo)$/.test(part))
      ? null
      : 'zh-Hans';
  }
  return CODES.find((code) => code.startsWith(`${language}-`) || code === language) ?? null;
}

/** The first of the browser's preferred languages that Tally speaks, else English. */
export function preferredLocale(tags: readonly string[]): string {
  for (const tag of tags) {
    const found = matchLocale(tag);
    if (found !== null) return found;
  }
  return SOURCE_LOCALE;
}
