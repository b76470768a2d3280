/**
 * The bar at the top of every screen: Tally's mark on the left (a link home), the language menu
 * and the dark/light toggle on the right, and between them whatever the screen adds (the display puts its group's
 * name and connection there). It sticks to the top with an opaque background, so the toggle stays
 * in one place and visible while the page scrolls beneath the bar, never over a counter's buttons.
 */
import { useLingui } from '@lingui/react/macro';
import type { ReactNode } from 'react';
import { navigate } from '../lib/router.js';
import { LanguageMenu } from './LanguageMenu.js';
import { Logo } from './Logo.js';
import { ThemeToggle } from './ThemeToggle.js';

export function TopBar({
  children,
  wide = false,
  label = true,
}: {
  children?: ReactNode;
  /** As wide as the screen (the display), rather than the page's column. */
  wide?: boolean;
  /** Write "Tally" beside the mark (the display shows the mark alone). */
  label?: boolean;
}) {
  const { t } = useLingui();
  return (
    <header className="app-bar" data-testid="app-bar">
      <div className={`top-bar ${wide ? 'max-w-none' : ''}`}>
        <a
          href="/"
          aria-label={label ? undefined : t`Tally home`}
          onClick={(event) => {
            if (event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0) return;
            event.preventDefault();
            navigate('/');
          }}
          className="brand"
        >
          <Logo size={28} />
          {label && 'Tally'}
        </a>
        <div className="flex min-w-0 flex-1 items-center gap-3">{children}</div>
        <LanguageMenu />
        <ThemeToggle />
      </div>
    </header>
  );
}
