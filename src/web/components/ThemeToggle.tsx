import { useLingui } from '@lingui/react/macro';
import { Moon, Sun } from './icons/index.js';
import { useEffect, useState } from 'react';
import {
  THEME_KEY,
  applyTheme,
  currentTheme,
  parseTheme,
  saveTheme,
  type Theme,
} from '../lib/storage.js';

/**
 * The dark/light toggle, in the top bar of every screen (TopBar.tsx); the choice is kept in
 * localStorage and followed by the other tabs.
 */
export function ThemeToggle() {
  const { t } = useLingui();
  const [theme, setTheme] = useState<Theme>(currentTheme);

  useEffect(() => {
    // Another tab changed the theme: follow it.
    const onStorage = (event: StorageEvent) => {
      if (event.key !== THEME_KEY) return;
      const next = parseTheme(event.newValue);
      applyTheme(next);
      setTheme(next);
    };
    window.addEventListener('storage', onStorage);
    return () => {
      window.removeEventListener('storage', onStorage);
    };
  }, []);

  const next: Theme = theme === 'dark' ? 'light' : 'dark';
  const label = next === 'light' ? t`Switch to light mode` : t`Switch to dark mode`;
  return (
    <button
      type="button"
      onClick={() => {
        applyTheme(next);
        saveTheme(next);
        setTheme(next);
      }}
      aria-label={label}
      title={label}
      className="theme-toggle"
    >
      {theme === 'dark' ? <Sun className="size-5" /> : <Moon className="size-5" />}
    </button>
  );
}
