import path from 'node:path';
import tailwindcss from '@tailwindcss/vite';
import preact from '@preact/preset-vite';
import { defineConfig } from 'vite';

const root = path.resolve(import.meta.dirname, 'src/web');

export default defineConfig({
  root,
  // Preact via preact/compat: the app keeps importing 'react' and 'react-dom' (the preset aliases
  // them and compiles JSX for Preact); ADR 6 has the measurements.
  plugins: [preact(), tailwindcss()],
  build: {
    outDir: path.resolve(import.meta.dirname, 'dist/web'),
    emptyOutDir: true,
    target: 'es2022',
    // The server's CSP has no 'unsafe-inline' for scripts: never inline a module preload polyfill.
    modulePreload: { polyfill: false },
    rollupOptions: {
      output: {
        // Preact in one long-cached chunk; each screen and dialog in its own.
        manualChunks(id) {
          if (/node_modules\/preact\//.test(id)) return 'preact';
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
