import { useLingui } from '@lingui/react/macro';
import { mutedText } from '../lib/ui.js';

/**
 * Where this server's source is, as the server says in the page's `<meta name="tally-source">`:
 * its operator's SOURCE_URL or package.json's `repository`, else '/source.tar.gz' (the archive
 * the build made of its own source); null when the server names none. Never a guessed address.
 */
function sourceHref(): string | null {
  return document.querySelector('meta[name="tally-source"]')?.getAttribute('content') || null;
}

/**
 * Copyright with the current year and a link to the source repository. A server that
 * names no source shows the copyright alone rather than a link that may lead nowhere.
 */
export function Footer() {
  const { t } = useLingui();
  const href = sourceHref();
  const source =
    href === null
      ? null
      : href.startsWith('/')
        ? { href, label: t`Source code of this server (.tar.gz)` }
        : { href, label: t`Source code` };
  return (
    <footer className={`mt-auto px-4 py-8 text-center text-sm ${mutedText}`}>
      <p>
        © {new Date().getFullYear()} Tally
        {source !== null && (
          <>
            {' · '}
            <a
              href={source.href}
              {...(source.href.startsWith('/')
                ? { download: '' }
                : { target: '_blank', rel: 'noopener noreferrer' })}
              className="footer-link"
            >
              {source.label}
            </a>
          </>
        )}
      </p>
    </footer>
  );
}
