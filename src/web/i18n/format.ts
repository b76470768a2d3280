import { i18n } from '@lingui/core';
import { directionOf } from './locales.js';

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
 * "6 / 8" kept in that order where text runs right to left, which would otherwise read the two
 * numbers around the spaced slash as "8 / 6"; in a left-to-right language, the text as it is.
 */
export function numbersInOrder(text: string): string {
  return directionOf(i18n.locale) === 'rtl' ? `\u2066${text}\u2069` : text;
}

/**
 * The locale dates and times are written in: the language's own, and for English the British
 * order the app has always used ("27 Nov 2026, 14:05").
 */
export function dateLocale(): string {
  return i18n.locale === 'en' ? 'en-GB' : i18n.locale;
}
