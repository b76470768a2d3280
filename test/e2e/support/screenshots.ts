/**
 * Screenshots come from the end-to-end tests, but only when a run asks for them:
 * `TALLY_SCREENSHOTS=1 npm run test:e2e`. A plain run writes none.
 *
 * Most are for a person to look at locally after a change (every screen, size and theme), so they
 * go to the git-ignored `.tmp/screenshots/`: kept in the repository they would go stale and weigh
 * on every clone. Only a picture the docs link is written into `docs/screenshots/`
 * (`docsScreenshotPath`), so the docs keep just the images they show.
 */
import fs from 'node:fs';
import path from 'node:path';

export const screenshotsWanted = process.env.TALLY_SCREENSHOTS === '1';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const LOCAL_DIR = path.join(ROOT, '.tmp/screenshots');
const DOCS_DIR = path.join(ROOT, 'docs/screenshots');

/** Where the screenshot `file` (e.g. `focus-phone-dark.png`) to look at locally is written. */
export function screenshotPath(file: string): string {
  fs.mkdirSync(LOCAL_DIR, { recursive: true });
  return path.join(LOCAL_DIR, file);
}

/** Where the screenshot `file` that a doc links (README's picture) is written. */
export function docsScreenshotPath(file: string): string {
  fs.mkdirSync(DOCS_DIR, { recursive: true });
  return path.join(DOCS_DIR, file);
}

/** The sizes each screen is shot at: a phone, a desktop and a TV, px. */
export const SCREENSHOT_SIZES = {
  phone: { width: 390, height: 844 },
  desktop: { width: 1280, height: 800 },
  tv: { width: 1920, height: 1080 },
} as const;
