import path from 'node:path';
import tailwindcss from '@tailwindcss/vite';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const root = path.resolve(import.meta.dirname, 'src/web');

export default defineConfig({
  root,
  plugins: [react(), tailwindcss()],
  build: {
    outDir: path.resolve(import.meta.dirname, 'dist/web'),
    emptyOutDir: true,
    target: 'es2022',
    // The server's CSP has no 'unsafe-inline' for scripts: never inline a module preload polyfill.
    modulePreload: { polyfill: false },
    rollupOptions: {
      output: {
        // React in one long-cached chunk; each screen and dialog in its own.
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
