/**
 * The screenshots in docs/screenshots (README and the docs) come from the end-to-end tests, but only
 * when a run asks for them: `TALLY_SCREENSHOTS=1 npm run test:e2e`. A plain run leaves them alone.
 */
import path from 'node:path';

export const screenshotsWanted = process.env.TALLY_SCREENSHOTS === '1';

const DIR = path.resolve(import.meta.dirname, '../../../docs/screenshots');

/** Where the docs' screenshot `file` (e.g. `focus-phone-dark.png`) is written. */
export function screenshotPath(file: string): string {
  return path.join(DIR, file);
}

/** The sizes the docs show each screen at: a phone, a desktop and a TV, px. */
export const SCREENSHOT_SIZES = {
  phone: { width: 390, height: 844 },
  desktop: { width: 1280, height: 800 },
  tv: { width: 1920, height: 1080 },
} as const;
