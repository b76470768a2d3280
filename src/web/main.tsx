// First: English is active before any other module of the app runs.
import { activateLocale, i18n, initialLocale, localeOfLink } from './i18n/i18n.js';
import { SOURCE_LOCALE } from './i18n/locales.js';
import { I18nProvider } from '@lingui/react';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App.js';
import { member } from './lib/api.js';
import { ensureGuestName } from './lib/storage.js';
import './styles.css';

// The guest name is created on the first visit, whichever page it is
// (docs/product.md#member-names).
ensureGuestName();
member.name = ensureGuestName;

// The service worker (sw.js, written at build time) keeps the app shell for offline starts and
// installs. Registered after load, so it never competes with the first paint; production only,
// since the dev server's modules are not hashed files it could precache. It never caches /api/.
if (import.meta.env.PROD && 'serviceWorker' in navigator) {
  window.addEventListener('load', () => {
    navigator.serviceWorker.register('/sw.js').catch(() => {
      // No worker (private mode, a policy): the app works as before, online only.
    });
  });
}

// The page renders in its language from the first frame, so nobody sees English flash by. English
// is at hand at once; another language waits for its catalog (a few KB, cached by the service
// worker), and when that cannot load (offline before it was ever fetched) the page opens in English.
function render() {
  const root = document.getElementById('root');
  if (!root) return;
  createRoot(root).render(
    <StrictMode>
      <I18nProvider i18n={i18n}>
        <App />
      </I18nProvider>
    </StrictMode>,
  );
}

const initial = initialLocale(window.location.search, navigator.languages);
activateLocale(initial, localeOfLink(window.location.search) === initial)
  .catch(() => activateLocale(SOURCE_LOCALE))
  .finally(render);
