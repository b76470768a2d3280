/**
 * `npm run bench [-- --preset smoke|full] [-- --only tally]`: runs the same load against Tally
 * (with its activity log, and without it to show the log's cost) and two baselines in one run and prints one table with Tally's ratio to each. Numbers go into
 * BENCHMARKS.md by hand, with the machine described.
 */
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { idleMemory, openLoop, populate, sleep, type LoadResult } from './load.js';
import { naiveBaseline, tally, tallyWithoutLog, wsBaseline, type Target } from './targets.js';

/** G groups of M members; the first T members of each group tap, `rate` taps/s in all. */
interface OpenLoopShape {
  groups: number;
  members: number;
  tappers: number;
  rate: number;
  durationMs: number;
}

interface Preset {
  /** Pause between scenarios so one's backlog and garbage do not weigh on the next, ms. */
  settleMs: number;
  /** Also run Tally with its activity log off, to show what the log costs. */
  withoutLog: boolean;
  idle: { groups: number; members: number };
  throughput: OpenLoopShape;
  fanout: OpenLoopShape;
  latency: OpenLoopShape;
}

const PRESETS: Record<string, Preset> = {
  // Every tapper stays under the live channel's 100 messages/s per socket (security/policy.ts):
  // load is spread over many members, as it is in real groups.
  // smoke finishes in under 60 s for the three servers: CI's smoke run (no timing assertions).
  smoke: {
    settleMs: 1_000,
    withoutLog: false,
    idle: { groups: 50, members: 10 },
    throughput: { groups: 20, members: 5, tappers: 5, rate: 3_000, durationMs: 2_000 },
    fanout: { groups: 50, members: 10, tappers: 2, rate: 2_000, durationMs: 2_000 },
    latency: { groups: 20, members: 10, tappers: 1, rate: 500, durationMs: 2_000 },
  },
  full: {
    settleMs: 3_000,
    withoutLog: true,
    idle: { groups: 1_000, members: 10 },
    throughput: { groups: 400, members: 5, tappers: 5, rate: 50_000, durationMs: 10_000 },
    fanout: { groups: 500, members: 10, tappers: 2, rate: 25_000, durationMs: 10_000 },
    latency: { groups: 100, members: 10, tappers: 2, rate: 2_000, durationMs: 10_000 },
  },
};

interface TargetResult {
  target: Target;
  idle?: { connections: number; bytesPerConnection: number; rssBytes: number };
  throughput?: LoadResult;
  fanout?: LoadResult;
  latency?: LoadResult;
}

const { values } = parseArgs({
  options: {
    preset: { type: 'string', default: 'smoke' },
    /** Only the servers whose name contains this (tally, ws, original). */
    only: { type: 'string' },
    /** Only these scenarios, comma-separated (idle, throughput, fanout, latency): for profiling. */
    scenarios: { type: 'string', default: 'idle,throughput,fanout,latency' },
  },
});
const presetName = values.preset;
const chosen = PRESETS[presetName];
if (!chosen) {
  throw new Error(`unknown preset ${presetName}: use ${Object.keys(PRESETS).join(' or ')}`);
}
const preset: Preset = chosen;

type Scenario = 'idle' | 'throughput' | 'fanout' | 'latency';
const SCENARIOS: readonly Scenario[] = ['idle', 'throughput', 'fanout', 'latency'];
const selected = new Set(values.scenarios.split(',').map((name) => name.trim()));
for (const name of selected) {
  if (!SCENARIOS.includes(name as Scenario)) {
    throw new Error(`unknown scenario ${name}: use ${SCENARIOS.join(', ')}`);
  }
}
const runs = (scenario: Scenario) => selected.has(scenario);

const LABELS: Record<Exclude<Scenario, 'idle'>, string> = {
  throughput: 'durable increments',
  fanout: 'fan-out',
  latency: 'latency',
};

async function measure(target: Target): Promise<TargetResult> {
  const running = await target.start();
  try {
    const result: TargetResult = { target };
    if (runs('idle')) {
      log(`${target.name}: idle connections`);
      result.idle = await idleMemory(target, running, preset.idle.groups, preset.idle.members);
    }
    for (const scenario of ['throughput', 'fanout', 'latency'] as const) {
      if (!runs(scenario)) continue;
      const shape = preset[scenario];
      log(`${target.name}: ${LABELS[scenario]}, open loop ${shape.rate}/s offered`);
      const population = await populate(target, running, scenario, shape.groups, shape.members);
      result[scenario] = await openLoop(population, running, target, shape);
      for (const client of population.clients) client.close();
      await sleep(preset.settleMs);
    }
    return result;
  } finally {
    await running.stop();
  }
}

function log(message: string): void {
  process.stderr.write(`· ${message}\n`);
}

const ms = (micros: number) => (Number.isNaN(micros) ? '–' : (micros / 1_000).toFixed(2));
const int = (n: number) => Math.round(n).toLocaleString('en-US');
const ratio = (a: number, b: number) => (b > 0 ? `${(a / b).toFixed(2)}×` : '–');
/** A scenario's result, present for every target when the scenario ran. */
function got<T>(value: T | undefined): T {
  if (value === undefined) throw new Error('scenario result missing');
  return value;
}
const loss = (result: LoadResult) =>
  result.lost === null ? 'n/a' : `${int(result.lost)} lost, ${int(result.duplicated ?? 0)} dup`;

function table(results: TargetResult[]): string {
  const [ours, ...baselines] = results;
  const header = [
    'metric',
    ...results.map((r) => r.target.name),
    ...baselines.map((b) => `Tally ÷ ${b.target.name}`),
  ];
  const rows: string[][] = [];
  const row = (
    name: string,
    pick: (r: TargetResult) => number,
    format: (n: number) => string,
    ratios = true,
  ) => {
    rows.push([
      name,
      ...results.map((r) => format(pick(r))),
      ...baselines.map((b) => (ratios && ours ? ratio(pick(ours), pick(b)) : '')),
    ]);
  };
  const text = (name: string, pick: (r: TargetResult) => string) => {
    rows.push([name, ...results.map(pick), ...baselines.map(() => '')]);
  };
  const t = preset.throughput;
  const f = preset.fanout;
  const l = preset.latency;
  if (runs('idle')) {
    row(
      `idle: KB per connection (${int(preset.idle.groups * preset.idle.members)} clients)`,
      (r) => got(r.idle).bytesPerConnection / 1024,
      (n) => n.toFixed(1),
    );
    row(
      'idle: server RSS MB',
      (r) => got(r.idle).rssBytes / 2 ** 20,
      (n) => n.toFixed(0),
      false,
    );
  }
  if (runs('throughput')) {
    row(
      `throughput: increments/s acked (offered ${int(t.rate)}/s by ${int(t.groups * t.tappers)} tappers)`,
      (r) => got(r.throughput).incrementsPerSecond,
      int,
    );
    row('throughput: member-deliveries/s', (r) => got(r.throughput).deliveriesPerSecond, int);
    row(
      'throughput: server CPU (cores)',
      (r) => got(r.throughput).serverCpuCores,
      (n) => n.toFixed(2),
      false,
    );
    text('throughput: correctness', (r) => loss(got(r.throughput)));
  }
  if (runs('fanout')) {
    row(
      `fan-out: increments/s acked (offered ${int(f.rate)}/s, ${int(f.groups * f.members)} clients)`,
      (r) => got(r.fanout).incrementsPerSecond,
      int,
    );
    row('fan-out: member-deliveries/s', (r) => got(r.fanout).deliveriesPerSecond, int);
    row('fan-out: latency p50 ms', (r) => got(r.fanout).latency.percentile(0.5), ms);
    row('fan-out: latency p99 ms', (r) => got(r.fanout).latency.percentile(0.99), ms);
    row(
      'fan-out: server CPU (cores)',
      (r) => got(r.fanout).serverCpuCores,
      (n) => n.toFixed(2),
      false,
    );
    row(
      'fan-out: server RSS MB',
      (r) => got(r.fanout).serverRssBytes / 2 ** 20,
      (n) => n.toFixed(0),
      false,
    );
    text('fan-out: correctness', (r) => loss(got(r.fanout)));
  }
  if (runs('latency')) {
    row(
      `latency: p50 ms (${int(l.groups * l.members)} clients, ${int(l.rate)}/s)`,
      (r) => got(r.latency).latency.percentile(0.5),
      ms,
    );
    row('latency: p95 ms', (r) => got(r.latency).latency.percentile(0.95), ms);
    row('latency: p99 ms', (r) => got(r.latency).latency.percentile(0.99), ms);
    row('latency: max ms', (r) => got(r.latency).latency.max, ms);
    row('latency: member-deliveries/s', (r) => got(r.latency).deliveriesPerSecond, int);
    text('latency: correctness', (r) => loss(got(r.latency)));
  }
  const lines = [header, header.map(() => '---'), ...rows].map(
    (cells) => `| ${cells.join(' | ')} |`,
  );
  return lines.join('\n');
}

async function main(): Promise<void> {
  log('building the server (tsc)');
  execFileSync(
    process.execPath,
    [path.resolve('node_modules/typescript/bin/tsc'), '-p', 'tsconfig.server.json'],
    {
      stdio: 'inherit',
    },
  );
  const candidates = preset.withoutLog
    ? [tally, tallyWithoutLog, wsBaseline, naiveBaseline]
    : [tally, wsBaseline, naiveBaseline];
  const targets = candidates.filter(
    (target) =>
      values.only === undefined || target.name.toLowerCase().includes(values.only.toLowerCase()),
  );
  const results: TargetResult[] = [];
  for (const target of targets) results.push(await measure(target));
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  console.log(
    `\nTally benchmark, preset "${presetName}", ${os.cpus().length} × ${cpu}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}\n`,
  );
  console.log(table(results));
  const loads = (r: TargetResult) =>
    [r.throughput, r.fanout, r.latency].filter((load): load is LoadResult => load !== undefined);
  const errors = results.flatMap(loads).reduce((sum, load) => sum + load.errors, 0);
  if (errors > 0) console.log(`\n${errors} client errors`);
  const tallyResults = results.filter((r) => r.target === tally || r.target === tallyWithoutLog);
  if (tallyResults.length > 0) {
    const lost = tallyResults
      .flatMap(loads)
      .reduce((sum, r) => sum + (r.lost ?? 0) + (r.duplicated ?? 0), 0);
    console.log(
      `\nTally correctness: ${lost === 0 ? 'every counter ends at exactly the increments sent' : `${lost} increments lost or duplicated`}`,
    );
    if (lost > 0) process.exitCode = 1;
  }
}

await main();
process.exit(process.exitCode ?? 0);
