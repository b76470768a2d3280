import { Moon, Sun } from 'lucide-react';
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
      className="fixed top-3 right-3 z-40 inline-flex size-10 items-center justify-center rounded-full border border-zinc-300 bg-white/90 text-zinc-700 shadow-sm backdrop-blur transition-colors touch-manipulation hover:bg-zinc-100 hover:text-zinc-900 sm:top-4 sm:right-4 dark:border-zinc-700 dark:bg-zinc-900/90 dark:text-zinc-200 dark:hover:bg-zinc-800 dark:hover:text-white"
    >
      {theme === 'dark' ? (
        <Sun className="size-5" aria-hidden="true" />
      ) : (
        <Moon className="size-5" aria-hidden="true" />
      )}
    </button>
  );
}
