/**
 * The front-end budget: the JavaScript a first visit needs, gzip-compressed, per screen.
 * Reads the built app (global setup builds it): the entry script, everything it imports
 * statically, plus the screen's own chunk and its static imports. Dialog chunks and idle-time
 * prefetches are not part of the first render and are not counted.
 */
import fs from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { expect, test } from '@playwright/test';

const ROOT = path.resolve(import.meta.dirname, '../..');
const WEB = path.join(ROOT, 'dist/web');
const ASSETS = path.join(WEB, 'assets');
/**
 * React and ReactDOM are one long-cached chunk of about 66 KB (ADR 27); a screen's own code is
 * about 11 KB (landing) to 28 KB (group screen). The budget leaves each screen room to grow without
 * letting anything that the first paint does not need slip into it: dialogs, panels, charts and the
 * QR encoder load when they are opened.
 */
const BUDGET_BYTES = 100 * 1024;
/** React 19.3's react-dom client with React itself: a new major or a second copy would show here. */
const REACT_BUDGET_BYTES = 72 * 1024;

function staticImports(file: string): string[] {
  const code = fs.readFileSync(path.join(ASSETS, file), 'utf8');
  const found = new Set<string>();
  // `import … from "./x.js"` and `import "./x.js"`, not `import("./x.js")`.
  for (const match of code.matchAll(/(?:from|import)\s*["']\.\/([^"']+\.js)["']/g)) {
    if (match[1]) found.add(match[1]);
  }
  return [...found];
}

function closure(roots: string[]): Set<string> {
  const seen = new Set<string>();
  const queue = [...roots];
  while (queue.length > 0) {
    const file = queue.pop();
    if (file === undefined || seen.has(file)) continue;
    seen.add(file);
    queue.push(...staticImports(file));
  }
  return seen;
}

function gzipBytes(files: Set<string>): number {
  let total = 0;
  for (const file of files) total += gzipSync(fs.readFileSync(path.join(ASSETS, file))).length;
  return total;
}

function initialJs(screenChunk: RegExp): { bytes: number; files: string[] } {
  const html = fs.readFileSync(path.join(WEB, 'index.html'), 'utf8');
  // The entry's chunks are module scripts of their own (vite.config.ts groups them).
  const entry = [...html.matchAll(/<script type="module"[^>]*src="\/assets\/([^"]+)"/g)].map(
    (match) => match[1] ?? '',
  );
  if (entry.length === 0) throw new Error('no entry script in dist/web/index.html');
  const screen = fs.readdirSync(ASSETS).find((file) => screenChunk.test(file));
  if (!screen) throw new Error(`no chunk matching ${String(screenChunk)}`);
  const files = closure([...entry, screen]);
  return { bytes: gzipBytes(files), files: [...files].sort() };
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

test.describe('initial JavaScript (gzip)', () => {
  test('the landing page needs at most 100 KB', () => {
    const { bytes, files } = initialJs(/^Landing-.*\.js$/);
    test
      .info()
      .annotations.push({ type: 'landing', description: `${kb(bytes)}: ${files.join(', ')}` });
    console.log(`landing initial JS ${kb(bytes)} gzip`);
    expect(bytes).toBeLessThanOrEqual(BUDGET_BYTES);
  });

  test('the group screen needs at most 100 KB', () => {
    const { bytes, files } = initialJs(/^Group-.*\.js$/);
    test
      .info()
      .annotations.push({ type: 'group', description: `${kb(bytes)}: ${files.join(', ')}` });
    console.log(`group screen initial JS ${kb(bytes)} gzip`);
    expect(bytes).toBeLessThanOrEqual(BUDGET_BYTES);
  });

  test('the display needs at most 100 KB', () => {
    const { bytes, files } = initialJs(/^Display-.*\.js$/);
    test
      .info()
      .annotations.push({ type: 'display', description: `${kb(bytes)}: ${files.join(', ')}` });
    console.log(`display initial JS ${kb(bytes)} gzip`);
    expect(bytes).toBeLessThanOrEqual(BUDGET_BYTES);
  });

  test('React DOM itself renders the app, in one chunk that every screen shares', () => {
    const react = fs.readdirSync(ASSETS).filter((file) => /^react-.*\.js$/.test(file));
    expect(react).toHaveLength(1);
    const code = fs.readFileSync(path.join(ASSETS, react[0] ?? ''), 'utf8');
    // Strings only React DOM's own client carries (not a look-alike runtime behind an alias).
    expect(code).toContain('https://react.dev/errors/');
    expect(code).toMatch(/19\.\d+\.\d+/);
    const bytes = gzipBytes(new Set(react));
    console.log(`React chunk ${kb(bytes)} gzip`);
    expect(bytes).toBeLessThanOrEqual(REACT_BUDGET_BYTES);
    for (const screen of [/^Landing-.*\.js$/, /^Group-.*\.js$/, /^Display-.*\.js$/]) {
      expect(initialJs(screen).files).toContain(react[0]);
    }
    const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
    };
    const all = { ...manifest.dependencies, ...manifest.devDependencies };
    expect(Object.keys(all).filter((name) => name.includes('preact'))).toEqual([]);
    for (const name of ['react', 'react-dom']) {
      expect(Number(/\d+/.exec(manifest.dependencies[name] ?? '')?.[0])).toBeGreaterThanOrEqual(19);
    }
  });

  test("the QR encoder is in no screen's initial JavaScript", () => {
    // It loads when the share dialog opens (vite.config.ts names its chunk qr-…).
    const qr = fs.readdirSync(ASSETS).filter((file) => /^qr-.*\.js$/.test(file));
    expect(qr).toHaveLength(1);
    for (const screen of [/^Landing-.*\.js$/, /^Group-.*\.js$/, /^Display-.*\.js$/]) {
      expect(initialJs(screen).files).not.toContain(qr[0]);
    }
  });
});
