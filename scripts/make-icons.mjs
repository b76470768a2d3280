/* global console, process */
// Draws the app's PNG icons (web app manifest, iOS home screen) from the favicon's artwork, in
// Chromium, so they match src/web/public/favicon.svg exactly. Run once after changing the artwork
// and commit the PNGs: `node scripts/make-icons.mjs`. Uses Debian's chromium like the e2e tests.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { chromium } from '@playwright/test';

const OUT = path.resolve(import.meta.dirname, '../src/web/public/icons');

// favicon.svg's gradient and tally marks, on a 64-unit grid centred on (32, 32).
const GRADIENT =
  '<defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#6366f1"/><stop offset="1" stop-color="#8b5cf6"/></linearGradient></defs>';
const MARKS =
  '<g stroke="#fff" stroke-width="5" stroke-linecap="round"><path d="M19 18v28M28 18v28M37 18v28M46 18v28"/><path d="M13 40 52 24"/></g>';

/**
 * rounded: the favicon's rounded square on transparency ("any" icons).
 * fullBleed: the gradient to every edge, for platforms that cut their own shape. scale shrinks
 * the marks about the centre: maskable icons keep them inside the central 80 % circle that
 * every mask shape leaves visible.
 */
function svg({ rounded, scale }) {
  const background = rounded
    ? '<rect width="64" height="64" rx="16" fill="url(#g)"/>'
    : '<rect width="64" height="64" fill="url(#g)"/>';
  const marks = `<g transform="translate(32 32) scale(${scale}) translate(-32 -32)">${MARKS}</g>`;
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64">${GRADIENT}${background}${marks}</svg>`;
}

const ICONS = [
  { file: 'icon-192.png', size: 192, rounded: true, scale: 1 },
  { file: 'icon-512.png', size: 512, rounded: true, scale: 1 },
  // The marks span about 44 × 33 units: at 0.75 their corners sit 21 units from the centre,
  // inside the safe circle's 25.6.
  { file: 'maskable-512.png', size: 512, rounded: false, scale: 0.75 },
  // iOS rounds the corners itself and fills transparency with black.
  { file: 'apple-touch-icon.png', size: 180, rounded: false, scale: 0.85 },
];

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
});
try {
  fs.mkdirSync(OUT, { recursive: true });
  for (const icon of ICONS) {
    const page = await browser.newPage({
      viewport: { width: icon.size, height: icon.size },
      deviceScaleFactor: 1,
    });
    await page.setContent(
      `<html><body style="margin:0;background:transparent">${svg(icon).replace('<svg ', `<svg width="${icon.size}" height="${icon.size}" style="display:block" `)}</body></html>`,
    );
    await page.screenshot({ path: path.join(OUT, icon.file), omitBackground: true });
    await page.close();
    console.log(`wrote src/web/public/icons/${icon.file} (${icon.size}×${icon.size})`);
  }
} finally {
  await browser.close();
}

// Chromium writes plain deflate; optipng (Debian: apt-get install optipng) shrinks the gradients
// losslessly, and every install precaches the icons (docs/benchmarks.md#front-end has the sizes).
const files = ICONS.map((icon) => path.join(OUT, icon.file));
const optimised = spawnSync('optipng', ['-quiet', '-o5', '-strip', 'all', ...files], {
  stdio: 'inherit',
});
if (optimised.error)
  console.warn(`optipng not run (${optimised.error.message}): icons left larger`);
