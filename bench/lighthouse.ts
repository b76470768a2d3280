/**
 * The front end's target (docs/benchmarks.md#front-end): Lighthouse performance score >= 95 on the
 * group screen and on the TV display, mobile and desktop.
 *
 * End to end: builds the app (`npm run build`), starts the built server on PORT (4321) with a
 * throwaway SQLite file under /tmp/lh, creates a group with a few counters through the API, then
 * runs Lighthouse (performance category only) against the landing page, the group screen
 * (`/{name}?key={key}`) and the TV display (`/{name}/display?key={key}`,
 * docs/product.md#tv-display) in Debian's chromium, and prints the score with FCP, LCP, TBT and
 * CLS.
 * Each page is measured --runs times (default 3) per form factor; the median run by score is
 * shown (Lighthouse's own advice for a noisy machine).
 *
 *   npm run bench:lighthouse [-- --runs 5] [--form mobile|desktop|both] [--lang de] [--skip-build]
 *                            [--save]
 *
 * --lang opens each page in that language (`?lang=`, docs/product.md#languages), so its catalog
 * is fetched before the first paint as a member who chose it would see; English by default.
 * --save writes every run's full report (JSON) to /tmp/lh/reports, for the details behind a score.
 *
 * Mobile is Lighthouse's default (Moto G Power emulation, simulated slow 4G, 4x CPU slowdown);
 * desktop uses its desktop preset. Not part of `npm test`: scores on a shared machine move by a
 * few points between runs, so nothing here is asserted.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { CHROMIUM_ARGS, CHROMIUM_PATH, startBuiltServer } from './browser-bench.js';
import lighthouse, { type Config, type Flags, type RunnerResult } from 'lighthouse';
import desktopConfig from 'lighthouse/core/config/desktop-config.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const WORK_DIR = '/tmp/lh';
const CHROME_PATH = CHROMIUM_PATH;
const CHROME_FLAGS = ['--headless=new', ...CHROMIUM_ARGS];
/** Server and browser must be up within this time, ms. */
const START_TIMEOUT_MS = 30_000;
const COUNTERS = [
  { name: 'Coffees', description: 'Cups since Monday', value: 12, incrementStep: 1 },
  { name: 'Push-ups', description: 'Team challenge', value: 340, incrementStep: 10 },
  { name: 'Bugs fixed', description: '', value: 7, incrementStep: 1 },
  { name: 'Days without rain', description: 'Office window count', value: -3, decrementStep: 1 },
];

type FormFactor = 'mobile' | 'desktop';

interface Measurement {
  score: number;
  fcpMs: number;
  lcpMs: number;
  tbtMs: number;
  cls: number;
  speedIndexMs: number;
}

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    form: { type: 'string', default: 'both' },
    port: { type: 'string', default: process.env.PORT ?? '4321' },
    'skip-build': { type: 'boolean', default: false },
    save: { type: 'boolean', default: false },
    lang: { type: 'string' },
  },
});
const runs = Math.max(1, Number.parseInt(values.runs, 10) || 1);
const forms: FormFactor[] =
  values.form === 'mobile'
    ? ['mobile']
    : values.form === 'desktop'
      ? ['desktop']
      : ['mobile', 'desktop'];
const port = Number.parseInt(values.port, 10);
const lang = values.lang;

/** `url` in the language asked for with --lang (as it is, without it). */
function inLanguage(url: string): string {
  if (lang === undefined) return url;
  const withLang = new URL(url);
  withLang.searchParams.set('lang', lang);
  return withLang.href;
}

async function main(): Promise<void> {
  if (!values['skip-build']) {
    console.log('building (npm run build)…');
    execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
  }
  fs.mkdirSync(WORK_DIR, { recursive: true });
  const dbFile = path.join(WORK_DIR, 't.sqlite');
  for (const suffix of ['', '-wal', '-shm']) fs.rmSync(dbFile + suffix, { force: true });

  const server = await startBuiltServer(port, dbFile);
  let chrome: ChildProcess | null = null;
  try {
    const origin = server.origin;
    const { groupUrl, displayUrl } = await seedGroup(origin);
    const userDataDir = fs.mkdtempSync(path.join(WORK_DIR, 'chrome-'));
    const started = await startChrome(userDataDir);
    chrome = started.process;

    const pages = [
      { label: 'landing /', file: 'landing', url: inLanguage(`${origin}/`) },
      { label: 'group screen /{name}?key=…', file: 'group', url: inLanguage(groupUrl) },
      { label: 'display /{name}/display?key=…', file: 'display', url: inLanguage(displayUrl) },
    ];
    const rows: { page: string; form: FormFactor; median: Measurement; scores: number[] }[] = [];
    for (const form of forms) {
      for (const page of pages) {
        const results: Measurement[] = [];
        for (let run = 0; run < runs; run += 1) {
          const report = values.save
            ? path.join(WORK_DIR, 'reports', `${form}-${page.file}-${String(run + 1)}.json`)
            : null;
          results.push(await measureWithRetries(page.url, started.port, form, report));
          const last = results.at(-1);
          if (last) {
            console.log(
              `  ${form} ${page.label} run ${String(run + 1)}/${String(runs)}: ${String(last.score)}`,
            );
          }
        }
        const sorted = [...results].sort((a, b) => a.score - b.score);
        const median = sorted[Math.floor((sorted.length - 1) / 2)];
        if (median) {
          rows.push({ page: page.label, form, median, scores: results.map((r) => r.score) });
        }
      }
    }

    console.log(
      `\nLighthouse ${lighthouseVersion()} · ${chromeVersion()} · median of ${String(runs)}` +
        (lang === undefined ? '' : ` · ?lang=${lang}`),
    );
    console.log(
      ['form', 'page', 'score', 'FCP', 'LCP', 'TBT', 'CLS', 'SI', 'all scores']
        .map((cell, i) => cell.padEnd(i === 1 ? 34 : 8))
        .join(''),
    );
    for (const { page, form, median, scores } of rows) {
      console.log(
        [
          form,
          page,
          String(median.score),
          ms(median.fcpMs),
          ms(median.lcpMs),
          ms(median.tbtMs),
          median.cls.toFixed(3),
          ms(median.speedIndexMs),
          scores.join(' '),
        ]
          .map((cell, i) => cell.padEnd(i === 1 ? 34 : 8))
          .join(''),
      );
    }
  } finally {
    chrome?.kill('SIGKILL');
    await server.stop();
  }
}

const ms = (value: number) => `${String(Math.round(value))} ms`;

/**
 * A group with a few counters, created through the API (docs/api.md); returns the addresses of
 * its group screen and its display.
 */
async function seedGroup(origin: string): Promise<{ groupUrl: string; displayUrl: string }> {
  const name = `lighthouse-${Date.now().toString(36)}`;
  const key = [...crypto.getRandomValues(new Uint8Array(32))]
    .map((byte) => byte.toString(16).padStart(2, '0'))
    .join('');
  const call = async (method: string, url: string, body: unknown, auth: boolean) => {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (auth) headers.authorization = `Bearer ${key}`;
    const response = await fetch(`${origin}/api/groups/${name}${url}`, {
      method,
      headers,
      body: JSON.stringify(body),
    });
    if (!response.ok) {
      throw new Error(`${method} ${url}: ${String(response.status)} ${await response.text()}`);
    }
  };
  await call('POST', '/join', { key }, false);
  await call('PATCH', '', { displayName: 'Lighthouse Crew' }, true);
  for (const counter of COUNTERS) await call('POST', '/counters', counter, true);
  return {
    groupUrl: `${origin}/${name}?key=${key}`,
    displayUrl: `${origin}/${name}/display?key=${key}`,
  };
}

/** Debian's chromium with a DevTools port Lighthouse can drive (no chrome-launcher needed). */
function startChrome(userDataDir: string): Promise<{ process: ChildProcess; port: number }> {
  const chrome = spawn(
    CHROME_PATH,
    [...CHROME_FLAGS, '--remote-debugging-port=0', `--user-data-dir=${userDataDir}`, 'about:blank'],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      chrome.kill('SIGKILL');
      reject(new Error(`${CHROME_PATH} did not open its DevTools port in time`));
    }, START_TIMEOUT_MS);
    const lines = createInterface({ input: chrome.stderr });
    lines.on('line', (line) => {
      const match = /DevTools listening on ws:\/\/[^:]+:(\d+)\//.exec(line);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve({ process: chrome, port: Number(match[1]) });
      }
    });
    chrome.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${CHROME_PATH} exited with code ${String(code)}`));
    });
  });
}

/** Runs that Lighthouse itself could not trace (NO_NAVSTART on a busy machine) are run again. */
const TRACE_RETRIES = 2;

async function measureWithRetries(
  url: string,
  chromePort: number,
  form: FormFactor,
  reportFile: string | null,
): Promise<Measurement> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await measure(url, chromePort, form, reportFile);
    } catch (error) {
      const untraced = error instanceof Error && error.message.includes('NO_NAVSTART');
      if (!untraced || attempt >= TRACE_RETRIES) throw error;
      console.log(`  (Lighthouse could not trace the load; running it again)`);
    }
  }
}

async function measure(
  url: string,
  chromePort: number,
  form: FormFactor,
  reportFile: string | null,
): Promise<Measurement> {
  const flags: Flags = {
    port: chromePort,
    output: 'json',
    logLevel: 'error',
    onlyCategories: ['performance'],
  };
  const config: Config | undefined = form === 'desktop' ? desktopConfig : undefined;
  const result: RunnerResult | undefined = await lighthouse(url, flags, config);
  if (!result) throw new Error(`Lighthouse returned no result for ${url}`);
  const { lhr } = result;
  if (lhr.runtimeError) throw new Error(`Lighthouse: ${lhr.runtimeError.message}`);
  if (reportFile !== null) {
    fs.mkdirSync(path.dirname(reportFile), { recursive: true });
    fs.writeFileSync(reportFile, JSON.stringify(lhr));
  }
  const numeric = (id: string) => lhr.audits[id]?.numericValue ?? Number.NaN;
  return {
    score: Math.round((lhr.categories.performance?.score ?? 0) * 100),
    fcpMs: numeric('first-contentful-paint'),
    lcpMs: numeric('largest-contentful-paint'),
    tbtMs: numeric('total-blocking-time'),
    cls: numeric('cumulative-layout-shift'),
    speedIndexMs: numeric('speed-index'),
  };
}

function lighthouseVersion(): string {
  const manifest = JSON.parse(
    fs.readFileSync(path.join(ROOT, 'node_modules/lighthouse/package.json'), 'utf8'),
  ) as { version: string };
  return manifest.version;
}

function chromeVersion(): string {
  try {
    return execFileSync(CHROME_PATH, ['--version'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    return CHROME_PATH;
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
