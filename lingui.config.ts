import { defineConfig } from '@lingui/conf';
import { formatter } from '@lingui/format-po';
import { LOCALES, PSEUDO_LOCALE, SOURCE_LOCALE } from './src/web/i18n/locales.js';

/**
 * Lingui's catalogs (ADR 35): one .po file per language in src/web/locales, extracted from the
 * web app's macros by `npx lingui extract` and compiled by Vite when a language is chosen.
 * English is the source: its text stays in the components, so it needs no catalog at run time.
 */
export default defineConfig({
  sourceLocale: SOURCE_LOCALE,
  locales: [...LOCALES.map((locale) => locale.code), PSEUDO_LOCALE],
  pseudoLocale: PSEUDO_LOCALE,
  fallbackLocales: { default: SOURCE_LOCALE },
  catalogs: [{ path: '<rootDir>/src/web/locales/{locale}', include: ['<rootDir>/src/web'] }],
  orderBy: 'message',
  // Files without line numbers: a catalog changes when its messages do, not when code moves.
  format: formatter({ lineNumbers: false }),
});
