import { mutedText } from '../lib/ui.js';

export const SOURCE_URL = 'https://github.com/tally-app/tally';

/** SPEC §1: copyright with the current year and a link to the public source repository. */
export function Footer() {
  return (
    <footer className={`mt-auto px-4 py-8 text-center text-sm ${mutedText}`}>
      <p>
        © {new Date().getFullYear()} Tally ·{' '}
        <a
          href={SOURCE_URL}
          target="_blank"
          rel="noopener noreferrer"
          className="font-medium text-zinc-800 underline decoration-zinc-400 underline-offset-4 hover:decoration-indigo-500 dark:text-zinc-200 dark:decoration-zinc-600"
        >
          Source code on GitHub
        </a>
      </p>
    </footer>
  );
}
