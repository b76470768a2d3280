import { useLingui } from '@lingui/react/macro';
import { useEffect } from 'react';
import { chooseLocale, followOtherTabs } from '../i18n/i18n.js';
import { LOCALES } from '../i18n/locales.js';
import { Languages } from './icons/index.js';

/**
 * The language menu, beside the theme toggle in the top bar of every screen: the browser's own
 * picker, each language named in itself. It shows as a round button with the language's code, so
 * it takes no more room on a phone than the toggle; the choice switches the page at once and is
 * remembered, and the other tabs follow.
 */
export function LanguageMenu() {
  const { i18n, t } = useLingui();
  useEffect(followOtherTabs, []);
  const current = i18n.locale;
  // The pseudo-locale is reached only by its link; the menu still shows where the page is.
  const listed = LOCALES.some((locale) => locale.code === current);
  return (
    <label className="language-menu" title={t`Language`}>
      <Languages className="size-4 shrink-0" />
      <span aria-hidden="true" className="text-xs font-semibold uppercase">
        {current.split('-')[0]}
      </span>
      <select
        aria-label={t`Language`}
        value={current}
        onChange={(event) => {
          void chooseLocale(event.target.value);
        }}
      >
        {!listed && <option value={current}>{current}</option>}
        {LOCALES.map((locale) => (
          <option key={locale.code} value={locale.code} lang={locale.code}>
            {locale.name}
          </option>
        ))}
      </select>
    </label>
  );
}
