import { i18n } from '@lingui/core';

/**
 * Numbers as the member's language writes them (docs/product.md#languages): digit grouping and
 * the locale's digits, through Intl, one formatter per language.
 */
const numberFormats = new Map<string, Intl.NumberFormat>();

/** 12345 → "12,345" in English, "12.345" in German, "١٢٬٣٤٥" in Arabic. */
export function formatNumber(value: number): string {
  const locale = i18n.locale;
  let format = numberFormats.get(locale);
  if (!format) {
    format = new Intl.NumberFormat(locale);
    numberFormats.set(locale, format);
  }
  return format.format(value);
}

/**
 * The locale dates and times are written in: the language's own, and for English the British
 * order the app has always used ("27 Nov 2026, 14:05").
 */
export function dateLocale(): string {
  return i18n.locale === 'en' ? 'en-GB' : i18n.locale;
}
