import { mutedText } from '../lib/ui.js';

export const SOURCE_URL = 'https://github.com/tally-app/tally';

/** SPEC §1: copyright with the current year and a link to the public source repository. */
export function Footer() {
  return (
    <footer className={`mt-auto px-4 py-8 text-center text-sm ${mutedText}`}>
      <p>
        © {new Date().getFullYear()} Tally ·{' '}
        <a href={SOURCE_URL} target="_blank" rel="noopener noreferrer" className="footer-link">
          Source code on GitHub
        </a>
      </p>
    </footer>
  );
}
