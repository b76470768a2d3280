/**
 * The offline queue (ADR 11, docs/benchmarks.md#offline-queue): how long after the network comes
 * back the queued changes are sent and confirmed.
 *
 * End to end in Debian's Chromium (Playwright) against the built server (`npm run build` first,
 * or --skip-build) on a throwaway SQLite file. Each round opens a fresh group with --counters
 * counters, takes the page offline, taps --taps times spread over the counters and renames one,
 * then brings the network back and measures, inside the page (performance.now()):
 *   - online → live: the browser's 'online' event until the live channel shows 'Live';
 *   - online → flushed: until the outbox is empty, i.e. every queued change was confirmed by the
 *     server (the page removes its localStorage entry when nothing waits).
 * With --reload, the page is reloaded while offline before coming back (the queue is read back
 * from localStorage and the group opened again first). Every round checks the server holds
 * exactly the taps made (none lost, none applied twice).
 *
 *   npm run bench:offline [-- --rounds 10] [--taps 100] [--counters 4] [--reload] [--skip-build]
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { chromium, type Page } from '@playwright/test';
import type { Counter } from '../src/shared/api.js';
import { CHROMIUM_ARGS, CHROMIUM_PATH, startBuiltServer } from './browser-bench.js';

const ROOT = path.resolve(import.meta.dirname, '..');
/** A round that has not flushed within this time failed, ms. */
const FLUSH_TIMEOUT_MS = 30_000;

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '10' },
    taps: { type: 'string', default: '100' },
    counters: { type: 'string', default: '4' },
    reload: { type: 'boolean', default: false },
    'skip-build': { type: 'boolean', default: false },
  },
});
const rounds = Math.max(1, Number.parseInt(values.rounds, 10) || 1);
const taps = Math.max(1, Number.parseInt(values.taps, 10) || 1);
const counterCount = Math.max(1, Number.parseInt(values.counters, 10) || 1);

async function main(): Promise<void> {
  if (!values['skip-build']) {
    console.log('building (npm run build)…');
    execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
  }
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tally-offline-'));
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const server = await startBuiltServer(port, path.join(dataDir, 'tally.sqlite'));
  const { origin } = server;
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  try {
    const live: number[] = [];
    const flushed: number[] = [];
    for (let round = 1; round <= rounds; round += 1) {
      const result = await runRound(origin, browser);
      live.push(result.liveMs);
      flushed.push(result.flushedMs);
      console.log(
        `round ${String(round)}/${String(rounds)}: online → live ${ms(result.liveMs)}, ` +
          `online → flushed ${ms(result.flushedMs)}, server exact: yes`,
      );
    }
    console.log(
      `\n${String(taps)} taps on ${String(counterCount)} counters + 1 rename, offline` +
        `${values.reload ? ', page reloaded while offline' : ''}; ${String(rounds)} rounds`,
    );
    console.log(`online → live:    median ${summary(live)}`);
    console.log(`online → flushed: median ${summary(flushed)}`);
  } finally {
    await browser.close();
    await server.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

async function runRound(
  origin: string,
  browser: Awaited<ReturnType<typeof chromium.launch>>,
): Promise<{ liveMs: number; flushedMs: number }> {
  const name = `offline-${randomBytes(4).toString('hex')}`;
  const key = randomBytes(32).toString('hex');
  await call(origin, 'POST', `/api/groups/${name}/join`, undefined, { key });
  const counters: Counter[] = [];
  for (let i = 0; i < counterCount; i += 1) {
    counters.push(
      await call<Counter>(origin, 'POST', `/api/groups/${name}/counters`, key, {
        name: `Counter ${String(i + 1)}`,
      }),
    );
  }
  const context = await browser.newContext({ baseURL: origin });
  try {
    const page = await context.newPage();
    await page.goto(`/${name}?key=${key}`);
    await waitForLive(page);
    if (values.reload) {
      await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
    }

    await context.setOffline(true);
    await page.getByRole('status').filter({ hasText: 'Offline' }).waitFor();
    const expected = new Map<string, number>();
    for (let i = 0; i < taps; i += 1) {
      const counter = counters[i % counters.length] as Counter;
      await page
        .getByRole('article', { name: counter.name, exact: true })
        .getByRole('button', { name: 'Increment by 1' })
        .click();
      expected.set(counter.id, (expected.get(counter.id) ?? 0) + 1);
    }
    const first = page.getByRole('article', { name: 'Counter 1', exact: true });
    await first.getByRole('button', { name: /^Counter name: / }).click();
    await first.getByRole('textbox', { name: 'Counter name' }).fill('Renamed offline');
    await first.getByRole('textbox', { name: 'Counter name' }).press('Enter');
    await page
      .getByTestId('changes-waiting')
      .getByText(`${String(taps + 1)} changes`)
      .waitFor();

    if (values.reload) {
      await page.reload();
      await page.getByRole('heading', { name: 'Offline' }).waitFor();
    }
    // Timed inside the page, from the browser's own 'online' event. A string, not a function:
    // tsx's helpers for named functions do not exist in the page.
    await page.evaluate(MARK_ONLINE_TO_FLUSHED);
    await context.setOffline(false);
    const marks = await page
      .waitForFunction(
        () => {
          const m = (window as unknown as { offlineBench?: Record<string, number> }).offlineBench;
          return m?.live && m.flushed ? m : null;
        },
        undefined,
        { timeout: FLUSH_TIMEOUT_MS, polling: 50 },
      )
      .then((handle) => handle.jsonValue() as Promise<Record<string, number>>);

    const held = await call<Counter[]>(origin, 'GET', `/api/groups/${name}/counters`, key);
    for (const counter of held) {
      const want = expected.get(counter.id) ?? 0;
      if (counter.value !== want) {
        throw new Error(
          `${counter.name}: server has ${String(counter.value)}, taps ${String(want)}`,
        );
      }
    }
    if (!held.some((counter) => counter.name === 'Renamed offline')) {
      throw new Error('the rename made offline did not reach the server');
    }
    const online = marks.online ?? 0;
    return { liveMs: (marks.live ?? 0) - online, flushedMs: (marks.flushed ?? 0) - online };
  } finally {
    await context.close();
  }
}

/** Records in window.offlineBench when the network came back, the page went live, the outbox emptied. */
const MARK_ONLINE_TO_FLUSHED = `(() => {
  const marks = { online: 0, live: 0, flushed: 0 };
  window.offlineBench = marks;
  const waiting = () => Object.keys(localStorage).some((k) => k.startsWith('tally:outbox:'));
  const live = () =>
    [...document.querySelectorAll('[role="status"]')].some((e) => e.textContent.trim() === 'Live');
  window.addEventListener('online', () => {
    marks.online = performance.now();
    const poll = () => {
      const now = performance.now();
      if (!marks.live && live()) marks.live = now;
      if (!marks.flushed && !waiting()) marks.flushed = now;
      if (!marks.live || !marks.flushed) setTimeout(poll, 1);
    };
    poll();
  });
})()`;

async function waitForLive(page: Page): Promise<void> {
  await page.getByRole('status').filter({ hasText: 'Live' }).waitFor({ timeout: 15_000 });
}

async function call<T>(
  origin: string,
  method: string,
  route: string,
  key?: string,
  body?: unknown,
): Promise<T> {
  const headers: Record<string, string> = {};
  if (key) headers.authorization = `Bearer ${key}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(origin + route, {
    method,
    headers,
    body: body === undefined ? null : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${method} ${route}: ${String(response.status)}`);
  return (await response.json()) as T;
}

const ms = (value: number) => `${value.toFixed(0)} ms`;

function summary(samples: number[]): string {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  return `${ms(at(0.5))}, p90 ${ms(at(0.9))}, min ${ms(sorted[0] ?? 0)}, max ${ms(sorted.at(-1) ?? 0)}`;
}

await main();
