import { defineConfig } from 'vitest/config';
import { linguiCatalogs, linguiMacros } from './lingui.vite.js';

export default defineConfig({
  // The web app's modules under test carry Lingui's macros and catalogs, compiled as the build
  // compiles them.
  plugins: [linguiMacros(), linguiCatalogs()],
  test: {
    setupFiles: ['test/setup/english.ts'],
    include: [
      'test/unit/**/*.test.ts',
      'test/integration/**/*.test.ts',
      'test/hardening/**/*.test.ts',
    ],
    pool: 'forks',
    testTimeout: 20_000,
    hookTimeout: 30_000,
    reporters: ['default'],
  },
});
