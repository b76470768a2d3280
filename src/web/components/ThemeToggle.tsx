import { Moon, Sun } from './icons.js';
import { useEffect, useState } from 'react';
import {
  THEME_KEY,
  applyTheme,
  currentTheme,
  parseTheme,
  saveTheme,
  type Theme,
} from '../lib/storage.js';

/** SPEC §2: a fixed dark/light toggle on every screen; the choice is kept. */
export function ThemeToggle() {
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
  return (
    <button
      type="button"
      onClick={() => {
        applyTheme(next);
        saveTheme(next);
        setTheme(next);
      }}
      aria-label={`Switch to ${next} mode`}
      title={`Switch to ${next} mode`}
      className="theme-toggle"
    >
      {theme === 'dark' ? <Sun className="size-5" /> : <Moon className="size-5" />}
    </button>
  );
}
