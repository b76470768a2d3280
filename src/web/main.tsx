import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App.js';
import { member } from './lib/api.js';
import { ensureGuestName } from './lib/storage.js';
import './styles.css';

// SPEC §3: the guest name is created on the first visit, whichever page it is.
ensureGuestName();
member.name = ensureGuestName;

const root = document.getElementById('root');
if (root) {
  createRoot(root).render(
    <StrictMode>
      <App />
    </StrictMode>,
  );
}
