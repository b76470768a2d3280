/**
 * `npm run bench:restart [-- --runs 5]`: how long a restart takes, from `kill -9` of a running
 * server to the first 200 from `/api/health` of the new one, on the same SQLite file with a few
 * groups in it. Measured three ways, each run in turn: through `npm start` (README's command:
 * npm itself, the build check, then the server), `node scripts/ensure-build.mjs && node …` without
 * npm, and the server alone (`node --max-semi-space-size=32 dist/server/main.js`, how a process
 * manager runs it). Prints median (min–max) of each, with the load average.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadAverage, median } from './stats.js';
import { freePort, startFlags } from './targets.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const { values: args } = parseArgs({ options: { runs: { type: 'string', default: '5' } } });
const RUNS = Number(args.runs);

interface Way {
  name: string;
  command: string;
  args: string[];
}

const WAYS: Way[] = [
  { name: 'npm start', command: 'npm', args: ['start', '--silent'] },
  {
    name: 'build check + node (no npm)',
    command: 'sh',
    args: [
      '-c',
      `node scripts/ensure-build.mjs && exec node ${startFlags().join(' ')} dist/server/main.js`,
    ],
  },
  {
    name: 'server alone',
    command: process.execPath,
    args: [...startFlags(), 'dist/server/main.js'],
  },
];

function launch(way: Way, port: number, databaseUrl: string): ChildProcess {
  return spawn(way.command, way.args, {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: databaseUrl,
      LOG_LEVEL: 'warn',
    },
    stdio: 'ignore',
    // Its own process group, so kill -9 reaches npm's child too.
    detached: true,
  });
}

async function healthyAfter(port: number, since: number, deadlineMs = 30_000): Promise<number> {
  for (;;) {
    try {
      const response = await fetch(`http://127.0.0.1:${port}/api/health`);
      if (response.status === 200) return performance.now() - since;
    } catch {
      // Not listening yet.
    }
    if (performance.now() - since > deadlineMs) throw new Error('no healthy answer within 30 s');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

function killGroup(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) {
      resolve();
      return;
    }
    child.once('exit', () => {
      resolve();
    });
    process.kill(-(child.pid ?? 0), 'SIGKILL');
  });
}

async function main(): Promise<void> {
  if (!fs.existsSync(path.join(ROOT, 'dist/.build-stamp')))
    throw new Error('no finished build: run `npm run build` (or `npm start` once) first');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tally-restart-'));
  const databaseUrl = `file:${path.join(dir, 'tally.sqlite')}`;
  const port = await freePort();
  console.log(
    `bench:restart — ${RUNS} runs, Node ${process.version}, load average ${loadAverage()}`,
  );
  const times = new Map<string, number[]>(WAYS.map((way) => [way.name, []]));
  try {
    // A server that has been running, with data, is what gets killed.
    let running = launch(WAYS[2] as Way, port, databaseUrl);
    await healthyAfter(port, performance.now());
    for (let index = 0; index < 5; index++) {
      await fetch(`http://127.0.0.1:${port}/api/groups/restart-${index}/join`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ key: `restart-key-${index}-0123456789` }),
      });
    }
    for (let run = 1; run <= RUNS; run++) {
      for (const way of WAYS) {
        await killGroup(running);
        const start = performance.now();
        running = launch(way, port, databaseUrl);
        const ms = await healthyAfter(port, start);
        times.get(way.name)?.push(ms);
        console.log(`run ${run} ${way.name}: ${ms.toFixed(0)} ms`);
      }
    }
    await killGroup(running);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  console.log(`\nload average at end: ${loadAverage()}`);
  console.log('\n| restart (kill -9 → first 200 /api/health) | median ms | range ms |');
  console.log('|---|---|---|');
  for (const [name, values] of times) {
    console.log(
      `| ${name} | ${median(values).toFixed(0)} | ${Math.min(...values).toFixed(0)}–${Math.max(...values).toFixed(0)} |`,
    );
  }
}

await main();
