import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import tailwindcss from '@tailwindcss/vite';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';
import { linguiCatalogs, linguiMacros } from './lingui.vite.js';

const root = path.resolve(import.meta.dirname, 'src/web');

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
        // React and ReactDOM in one long-cached chunk; each screen and dialog in its own.
        manualChunks(id) {
          if (/node_modules\/(react|react-dom|scheduler)\//.test(id)) return 'react';
          // The QR encoder, loaded only when the share dialog opens.
          if (/node_modules\/uqr\//.test(id)) return 'qr';
          return undefined;
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

/**
 * Writes dist/web/sw.js from src/web/sw.js, prefixed with `const BUILD = { version, precache }`:
 * the URLs of the app shell ('/'), every file of this build (the hashed JS and CSS) and every
 * public file (theme.js, icons, manifest). The version hashes all of them and the worker's own
 * source, so any change to what a visitor runs installs a new worker and a new cache.
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
    generateBundle(_options, bundle) {
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
      const source = fs.readFileSync(path.join(root, 'sw.js'), 'utf8');
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
