import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import tailwindcss from '@tailwindcss/vite';
import react from '@vitejs/plugin-react';
import { rolldown } from 'rolldown';
import { defineConfig, type Plugin } from 'vite';
import { linguiCatalogs, linguiMacros } from './lingui.vite.js';

const root = path.resolve(import.meta.dirname, 'src/web');

const REACT = /node_modules[\\/](react|react-dom|scheduler)[\\/]/;
/** The entry, then each screen that App.tsx loads lazily (the chunk names bundle.spec.ts reads). */
const ENTRY = path.join(root, 'main.tsx');
const SCREENS = ['Landing', 'Group', 'Display'];

export default defineConfig({
  root,
  // React 19 itself (ADR 27): the official plugin compiles JSX and gives Fast Refresh in `vite`.
  // Lingui (ADR 35): its macros word each message, and a language's .po compiles when imported.
  plugins: [linguiMacros(), linguiCatalogs(), react(), tailwindcss(), serviceWorker()],
  build: {
    outDir: path.resolve(import.meta.dirname, 'dist/web'),
    emptyOutDir: true,
    target: 'es2022',
    // The server's CSP has no 'unsafe-inline' for scripts: never inline a module preload polyfill.
    modulePreload: { polyfill: false },
    rollupOptions: {
      output: {
        // React and ReactDOM in one long-cached chunk; what each screen's first render needs in
        // as few files as the screens' sharing allows (firstRenderChunk, ADR 39); each dialog in
        // its own. A higher priority captures a module first.
        codeSplitting: {
          groups: [
            { name: 'react', test: REACT, priority: 3 },
            // The QR encoder, loaded only when the share dialog opens.
            { name: 'qr', test: /node_modules[\\/]uqr[\\/]/, priority: 3 },
            {
              name: (id, chunking) =>
                firstRenderChunk(id, (other) => chunking.getModuleInfo(other)),
              priority: 1,
              // Every static import of a first render's module has its own chunk here already.
              includeDependenciesRecursively: false,
            },
          ],
        },
      },
    },
  },
  server: {
    proxy: {
      // `npm run dev` serves the API on :3000; Vite's dev server forwards the API and the live socket.
      '/api': { target: 'http://localhost:3000', ws: true },
    },
  },
});

/** Per build: keyed by the entry's module info, which a chunking pass shares among its calls. */
const firstRenders = new WeakMap<object, Map<string, string>>();

/**
 * The chunk of a module that a screen's first render needs: `index` (with the entry) for what the
 * entry script imports, else the screen's own chunk, else one chunk per set of screens that share
 * it (`screens-display-group`); a module no first render needs is left to Rolldown (dialogs,
 * panels, catalogs). Left to itself, Rolldown cut the entry's imports into eleven files and the
 * group screen's into eight, each one more request before the first paint (ADR 39).
 */
function firstRenderChunk(
  id: string,
  getModuleInfo: (id: string) => { importedIds: readonly string[] } | null,
): string | null {
  const entry = getModuleInfo(ENTRY);
  if (entry === null) return null;
  let chunks = firstRenders.get(entry);
  if (chunks === undefined) {
    chunks = firstRenderChunks(getModuleInfo);
    firstRenders.set(entry, chunks);
  }
  return chunks.get(id) ?? null;
}

function firstRenderChunks(
  getModuleInfo: (id: string) => { importedIds: readonly string[] } | null,
): Map<string, string> {
  const staticClosure = (start: string): Set<string> => {
    const seen = new Set<string>();
    const queue = [start];
    for (let next = queue.pop(); next !== undefined; next = queue.pop()) {
      if (seen.has(next)) continue;
      seen.add(next);
      queue.push(...(getModuleInfo(next)?.importedIds ?? []));
    }
    return seen;
  };
  const chunks = new Map<string, string>();
  const entry = staticClosure(ENTRY);
  for (const id of entry) if (!REACT.test(id)) chunks.set(id, 'index');
  const users = new Map<string, string[]>();
  for (const screen of SCREENS) {
    for (const id of staticClosure(path.join(root, 'routes', `${screen}.tsx`))) {
      if (entry.has(id) || REACT.test(id)) continue;
      users.set(id, [...(users.get(id) ?? []), screen]);
    }
  }
  for (const [id, screens] of users) {
    // What every screen needs is needed by every page: it goes with the entry, one file less.
    const chunk =
      screens.length === SCREENS.length
        ? 'index'
        : screens.length === 1
          ? (screens[0] ?? '')
          : `screens-${screens.join('-').toLowerCase()}`;
    chunks.set(id, chunk);
  }
  return chunks;
}

/**
 * Writes dist/web/sw.js from src/web/sw.js, prefixed with `const BUILD = { version, precache }`:
 * the URLs of the app shell ('/'), every file of this build (the hashed JS and CSS) and every
 * public file (theme.js, icons, manifest). The version hashes all of them and the worker's own
 * source, so any change to what a visitor runs installs a new worker and a new cache.
 * The worker words alerts with the server's own composition (src/shared/notification-words.ts),
 * bundled in front of it as `NotificationWords`.
 * A dozen lines instead of vite-plugin-pwa: that would bring workbox-build (Babel, a second
 * Rollup, about 30 packages) to precache a list we already have here.
 */
function serviceWorker(): Plugin {
  let publicDir = '';
  return {
    name: 'tally:service-worker',
    apply: 'build',
    // After Vite's own generateBundle has added index.html to the bundle.
    enforce: 'post',
    configResolved(config) {
      publicDir = config.publicDir;
    },
    async generateBundle(_options, bundle) {
      const version = createHash('sha256');
      const precache = ['/'];
      for (const [fileName, output] of Object.entries(bundle).sort(([a], [b]) =>
        a.localeCompare(b),
      )) {
        if (fileName.endsWith('.map')) continue;
        version.update(fileName).update(output.type === 'chunk' ? output.code : output.source);
        if (fileName !== 'index.html') precache.push(`/${fileName}`);
      }
      if (!('index.html' in bundle)) {
        this.error('index.html is not in the bundle: the worker would have no shell to serve');
      }
      const publicFiles = fs
        .readdirSync(publicDir, { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isFile())
        .map((entry) => path.relative(publicDir, path.join(entry.parentPath, entry.name)))
        .map((file) => file.split(path.sep).join('/'))
        .sort();
      for (const file of publicFiles) {
        version.update(file).update(fs.readFileSync(path.join(publicDir, file)));
        precache.push(`/${file}`);
      }
      const words = await notificationWordsScript();
      const source = `${words}\n${fs.readFileSync(path.join(root, 'sw.js'), 'utf8')}`;
      version.update(source);
      const build = { version: version.digest('hex').slice(0, 16), precache };
      this.emitFile({
        type: 'asset',
        fileName: 'sw.js',
        source: `const BUILD = ${JSON.stringify(build)};\n${source}`,
      });
    },
  };
}

/** src/shared/notification-words.ts as a classic script defining `NotificationWords`. */
async function notificationWordsScript(): Promise<string> {
  const bundle = await rolldown({
    input: path.resolve(import.meta.dirname, 'src/shared/notification-words.ts'),
    platform: 'browser',
  });
  try {
    const { output } = await bundle.generate({
      format: 'iife',
      name: 'NotificationWords',
      minify: true,
    });
    return output[0].code;
  } finally {
    await bundle.close();
  }
}
