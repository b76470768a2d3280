import { defineConfig } from '@playwright/test';

// Playwright empties its output folder when a run starts: two runs at once on one checkout (two
// developers' terminals, an editor's test runner) would delete each other's traces mid-run. Each
// run outside CI writes to a folder of its own; workers inherit the name through the environment.
process.env.TALLY_E2E_OUTPUT ??= process.env.CI
  ? 'test-results/e2e'
  : `test-results/e2e-${new Date().toISOString().replace(/\D/g, '').slice(0, 14)}-${String(process.pid)}`;

/**
 * End-to-end tests in a real Chromium against the real server (test/e2e/global-setup.ts).
 * Playwright's own browser download cannot work here: Debian's chromium is used instead.
 */
export default defineConfig({
  testDir: 'test/e2e',
  globalSetup: './test/e2e/global-setup.ts',
  fullyParallel: true,
  workers: 2,
  retries: 0,
  // A CI machine may be several times slower than a developer's: a test that needs two browser
  // contexts and dozens of clicks took 30 s there. A hang still fails, later.
  timeout: process.env.CI ? 60_000 : 30_000,
  expect: { timeout: 5_000 },
  forbidOnly: Boolean(process.env.CI),
  reporter: process.env.CI ? [['list'], ['github']] : [['list']],
  outputDir: process.env.TALLY_E2E_OUTPUT,
  use: {
    browserName: 'chromium',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
    // A trace records every action's screenshots and DOM (about twice the CPU per click): kept
    // for failures on a developer's machine, off in CI, whose folder nobody opens.
    trace: process.env.CI ? 'off' : 'retain-on-failure',
    screenshot: 'only-on-failure',
  },
});
