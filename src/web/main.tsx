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

const root = document.getElementById('root');
if (root) {
  createRoot(root).render(
    <StrictMode>
      <App />
    </StrictMode>,
  );
}
