import { defineConfig } from 'vitest/config';

export default defineConfig({
  // Web modules are written against React's API and run on Preact (ADR 6), in tests too.
  resolve: {
    alias: [
      { find: /^react-dom(\/.*)?$/, replacement: 'preact/compat' },
      { find: /^react\/jsx-(dev-)?runtime$/, replacement: 'preact/jsx-runtime' },
      { find: /^react$/, replacement: 'preact/compat' },
    ],
  },
  test: {
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
