/**
 * `npm run bench:abuse [-- --preset smoke|full] [--runs N] [--attacks 1,3] [--store postgres]`:
 * the abuse attacks (docs/benchmarks.md#abuse), one at a time, each from 127.0.0.1 (attack 4
 * from 127.0.0.3–.6), while a normal member on 127.0.0.2 taps in its own group and newcomers from
 * fresh addresses join it.
 * One table: the member's latency and errors, newcomers let in, the server's RSS and CPU, with
 * and without each attack, and what the attacker achieved. A measurement: missed targets do not
 * fail it; only a harness failure exits non-zero. Numbers go into docs/benchmarks.md by hand.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { parseArgs } from 'node:util';
import { cpuCores, sampleProcess, type ProcSample } from './proc.js';
import { ATTACKS, type Attack, type AttackResult } from './abuse/attacks.js';
import type { AttackOrder } from './abuse/attacker.js';
import { errorCount, Member, type PhaseStats } from './abuse/member.js';
import { sleep } from './abuse/net.js';
import {
  ensureBuilt,
  startServer,
  stopChild,
  type RunningServer,
  type StoreKind,
} from './abuse/server.js';

interface Preset {
  /** Each phase (the baseline and each attack) lasts this long, ms. */
  phaseMs: number;
  /** Pause after each phase so its backlog does not weigh on the next, ms. */
  settleMs: number;
  /** Counters attack 1 tries to create (and attack 8 creates when run alone). */
  counterCap: number;
  /** Connections attack 3 tries to hold (also bounded by the open-files limit). */
  connectionCap: number;
}

const PRESETS: Record<string, Preset> = {
  smoke: { phaseMs: 2_000, settleMs: 1_000, counterCap: 2_000, connectionCap: 2_000 },
  full: { phaseMs: 10_000, settleMs: 3_000, counterCap: 20_000, connectionCap: 20_000 },
};
/** An attacker's setup (attack 8 alone builds its large group) may take this long, ms. */
const PREPARE_TIMEOUT_MS = 120_000;
/** An attacker still running this long after its phase should have ended is killed, ms. */
const OVERSTAY_MS = 90_000;
/** Server RSS and CPU are sampled this often, ms. */
const SAMPLE_MS = 250;

const { values } = parseArgs({
  options: {
    preset: { type: 'string', default: 'smoke' },
    runs: { type: 'string', default: '1' },
    /** Attack numbers, comma-separated (1–8); all by default. */
    attacks: { type: 'string' },
    store: { type: 'string', default: 'sqlite' },
  },
});
const chosen = PRESETS[values.preset];
if (chosen === undefined) {
  throw new Error(`unknown preset ${values.preset}: use ${Object.keys(PRESETS).join(' or ')}`);
}
const preset: Preset = chosen;
const runCount = Number(values.runs);
if (!Number.isInteger(runCount) || runCount < 1 || runCount > 20) {
  throw new Error('--runs must be a whole number from 1 to 20');
}
if (values.store !== 'sqlite' && values.store !== 'postgres') {
  throw new Error('--store must be sqlite or postgres');
}
const store: StoreKind = values.store;
const selected =
  values.attacks === undefined
    ? ATTACKS
    : values.attacks.split(',').map((token) => {
        const attack = ATTACKS.find((candidate) => candidate.name.startsWith(`${token.trim()} `));
        if (attack === undefined) throw new Error(`unknown attack ${token}: use 1–8`);
        return attack;
      });

const BASELINE = '0 no attack (baseline)';

interface PhaseRow {
  name: string;
  stats: PhaseStats;
  rssStartBytes: number;
  rssMaxBytes: number;
  cpuCores: number;
  logLines: number;
  achieved: string;
}

function log(message: string): void {
  process.stderr.write(`· ${message}\n`);
}

/** The harness itself failed (not a missed target): the run still prints, then exits 1. */
function harnessFailure(message: string): void {
  log(`harness failure: ${message}`);
  process.exitCode = 1;
}

/** Children and servers to stop however the run ends (Ctrl-C included). */
const live = {
  attacker: undefined as ChildProcess | undefined,
  server: undefined as RunningServer | undefined,
};

async function shutdown(): Promise<void> {
  if (live.attacker) await stopChild(live.attacker, 2_000);
  live.attacker = undefined;
  const server = live.server;
  live.server = undefined;
  await server?.stop();
}

let interrupted = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (interrupted) process.exit(130);
    interrupted = true;
    log(`${signal}: stopping the attacker and the server`);
    void shutdown().finally(() => process.exit(130));
  });
}

/** Samples the server's RSS and CPU until stopped. */
function sampler(pid: number): {
  stop(): { rssStartBytes: number; rssMaxBytes: number; cpuCores: number };
} {
  const first: ProcSample = sampleProcess(pid);
  let last = first;
  let rssMax = first.rssBytes;
  const timer = setInterval(() => {
    try {
      last = sampleProcess(pid);
      rssMax = Math.max(rssMax, last.rssBytes);
    } catch {
      // The server is gone; the phase reports it.
    }
  }, SAMPLE_MS);
  return {
    stop() {
      clearInterval(timer);
      try {
        last = sampleProcess(pid);
        rssMax = Math.max(rssMax, last.rssBytes);
      } catch {
        // Gone.
      }
      return {
        rssStartBytes: first.rssBytes,
        rssMaxBytes: rssMax,
        cpuCores: cpuCores(first, last),
      };
    },
  };
}

interface AttackerProcess {
  ready: Promise<void>;
  result: Promise<AttackResult>;
}

function launchAttacker(order: AttackOrder): AttackerProcess {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(import.meta.dirname, 'abuse/attacker.ts'), JSON.stringify(order)],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  live.attacker = child;
  const lines = readline.createInterface({ input: child.stdout });
  let readyResolve: () => void = () => undefined;
  let resultResolve: (result: AttackResult) => void = () => undefined;
  let failed: (error: Error) => void = () => undefined;
  const ready = new Promise<void>((resolve, reject) => {
    readyResolve = resolve;
    failed = reject;
  });
  const result = new Promise<AttackResult>((resolve, reject) => {
    resultResolve = resolve;
    const previous = failed;
    failed = (error) => {
      previous(error);
      reject(error);
    };
  });
  // Whichever of the two is not awaited when the child fails must not be an unhandled rejection.
  ready.catch(() => undefined);
  result.catch(() => undefined);
  lines.on('line', (line) => {
    const message = JSON.parse(line) as { ready?: boolean; result?: AttackResult };
    if (message.ready === true) readyResolve();
    if (message.result !== undefined) resultResolve(message.result);
  });
  const overstay = setTimeout(
    () => {
      failed(new Error(`attacker ${order.attack} overstayed: killed`));
      child.kill('SIGKILL');
    },
    PREPARE_TIMEOUT_MS + order.durationMs + OVERSTAY_MS,
  );
  child.on('exit', (code) => {
    clearTimeout(overstay);
    if (live.attacker === child) live.attacker = undefined;
    failed(new Error(`attacker ${order.attack} exited with code ${String(code)}`));
  });
  return { ready, result };
}

async function measurePhase(
  server: RunningServer,
  member: Member,
  name: string,
  attack: (() => Promise<string>) | undefined,
): Promise<PhaseRow> {
  const logFrom = server.logBytes();
  const stats = member.beginPhase(name);
  const sampling = sampler(server.pid);
  let achieved = '–';
  if (attack === undefined) await sleep(preset.phaseMs);
  else {
    try {
      achieved = await attack();
    } catch (error) {
      achieved = `harness failure: ${error instanceof Error ? error.message : String(error)}`;
      harnessFailure(`${name}: ${achieved}`);
    }
  }
  member.endPhase();
  const usage = sampling.stop();
  // Late answers to this phase's taps still count for it.
  await sleep(preset.settleMs);
  return { name, stats, ...usage, logLines: server.logLines(logFrom).length, achieved };
}

/**
 * One phase on a server of its own (fresh database, fresh member): no phase inherits another's
 * memory or data, so each RSS is compared with the baseline's on equal terms.
 */
async function onePhase(run: number, attack: Attack | undefined): Promise<PhaseRow | undefined> {
  const name = attack?.name ?? BASELINE;
  log(`run ${String(run)}: ${name}: starting Tally (${store})`);
  const server = await startServer(store);
  live.server = server;
  let member: Member | undefined;
  try {
    member = await Member.start(server.origin);
    await sleep(preset.settleMs);
    if (attack === undefined) return await measurePhase(server, member, name, undefined);
    const order: AttackOrder = {
      attack: attack.name,
      origin: server.origin.toString(),
      durationMs: preset.phaseMs,
      memberGroup: member.group,
      counterCap: preset.counterCap,
      connectionCap: preset.connectionCap,
    };
    const attacker = launchAttacker(order);
    try {
      await attacker.ready;
    } catch (error) {
      harnessFailure(`${name}: ${error instanceof Error ? error.message : String(error)}`);
      return undefined;
    }
    const row = await measurePhase(
      server,
      member,
      name,
      async () => (await attacker.result).achieved,
    );
    const exit = server.exited();
    return exit === null
      ? row
      : { ...row, achieved: `${row.achieved}; THE SERVER EXITED (${String(exit)})` };
  } finally {
    member?.stop();
    await shutdown();
  }
}

async function oneRun(run: number): Promise<PhaseRow[]> {
  const rows: PhaseRow[] = [];
  for (const attack of [undefined, ...selected]) {
    if (interrupted) break;
    const row = await onePhase(run, attack);
    if (row !== undefined) rows.push(row);
  }
  return rows;
}

const ms = (micros: number) => (Number.isNaN(micros) ? '–' : (micros / 1_000).toFixed(1));
const median = (numbers: number[]) => {
  const sorted = [...numbers].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? Number.NaN)
    : ((sorted[middle - 1] ?? Number.NaN) + (sorted[middle] ?? Number.NaN)) / 2;
};
/** One value, or the median and range of several: `12.3 (11.0–14.2)`. */
function cell(numbers: number[], format: (n: number) => string): string {
  if (numbers.length === 1) return format(numbers[0] ?? Number.NaN);
  // No sample at all in any run (e.g. no tap answered): no range to show either.
  if (numbers.every((n) => Number.isNaN(n))) return '–';
  return `${format(median(numbers))} (${format(Math.min(...numbers))}–${format(Math.max(...numbers))})`;
}

interface Column {
  title: string;
  pick: (row: PhaseRow, baseline: PhaseRow) => number;
  format: (n: number) => string;
}

const mbOf = (bytes: number) => bytes / 2 ** 20;
const COLUMNS: Column[] = [
  { title: 'member taps acked/sent', pick: (r) => r.stats.acked, format: (n) => n.toFixed(0) },
  { title: 'sent', pick: (r) => r.stats.sent, format: (n) => n.toFixed(0) },
  { title: 'tap p50 ms', pick: (r) => r.stats.taps.percentile(0.5), format: ms },
  { title: 'tap p99 ms', pick: (r) => r.stats.taps.percentile(0.99), format: ms },
  { title: 'tap max ms', pick: (r) => r.stats.taps.max, format: ms },
  { title: 'REST read p99 ms', pick: (r) => r.stats.reads.percentile(0.99), format: ms },
  { title: 'member errors', pick: (r) => errorCount(r.stats), format: (n) => n.toFixed(0) },
  {
    title: 'newcomers in/tried',
    pick: (r) => r.stats.newcomersIn,
    format: (n) => n.toFixed(0),
  },
  { title: 'tried', pick: (r) => r.stats.newcomersTried, format: (n) => n.toFixed(0) },
  { title: 'server RSS start MB', pick: (r) => mbOf(r.rssStartBytes), format: (n) => n.toFixed(0) },
  { title: 'server RSS max MB', pick: (r) => mbOf(r.rssMaxBytes), format: (n) => n.toFixed(0) },
  {
    title: 'RSS ÷ baseline',
    pick: (r, b) => r.rssMaxBytes / b.rssMaxBytes,
    format: (n) => `${n.toFixed(2)}×`,
  },
  { title: 'server CPU %', pick: (r) => r.cpuCores * 100, format: (n) => n.toFixed(0) },
  { title: 'server log lines', pick: (r) => r.logLines, format: (n) => n.toFixed(0) },
];

/**
 * The target for the member while any single attack runs (docs/benchmarks.md#abuse): p99 ≤ 50 ms,
 * no errors, every newcomer let in, and the server's RSS at most twice the no-attack phase's.
 */
const TARGET_P99_MS = 50;
const TARGET_RSS_RATIO = 2;
const TARGET_TEXT = `p99 ≤ ${String(TARGET_P99_MS)} ms, 0 errors, all newcomers in, RSS ≤ ${String(TARGET_RSS_RATIO)}×`;

/** The parts of the target a phase missed (none: met). */
function misses(row: PhaseRow, baseline: PhaseRow): string[] {
  const missed: string[] = [];
  if (!(row.stats.taps.percentile(0.99) <= TARGET_P99_MS * 1_000)) missed.push('p99');
  if (errorCount(row.stats) > 0) missed.push('errors');
  if (row.stats.newcomersIn < row.stats.newcomersTried) missed.push('newcomers');
  if (row.rssMaxBytes > TARGET_RSS_RATIO * baseline.rssMaxBytes) missed.push('RSS');
  return missed;
}

function verdict(perRun: string[][]): string {
  if (perRun.length === 1) {
    const missed = perRun[0] ?? [];
    return missed.length === 0 ? 'met' : `missed: ${missed.join(', ')}`;
  }
  const met = perRun.filter((missed) => missed.length === 0).length;
  const missed = [...new Set(perRun.flat())];
  return `met in ${String(met)}/${String(perRun.length)} runs${missed.length > 0 ? ` (missed: ${missed.join(', ')})` : ''}`;
}

function table(runs: PhaseRow[][]): string {
  const phases = runs[0]?.map((row) => row.name) ?? [];
  // Paired columns (acked/sent, in/tried) print as one cell.
  const header = [
    'phase',
    'member taps acked/sent',
    'tap p50 ms',
    'tap p99 ms',
    'tap max ms',
    'REST read p99 ms',
    'member errors',
    'newcomers in/tried',
    'server RSS start → max MB',
    'RSS max ÷ baseline max',
    'server CPU %',
    'server log lines',
    `target: ${TARGET_TEXT}`,
    'attacker achieved' + (runs.length > 1 ? ' (run 1)' : ''),
  ];
  const lines = [header, header.map(() => '---')];
  for (const name of phases) {
    const rowsOf = runs
      .map((rows) => ({ row: rows.find((r) => r.name === name), baseline: rows[0] }))
      .filter(
        (pair): pair is { row: PhaseRow; baseline: PhaseRow } =>
          pair.row !== undefined && pair.baseline !== undefined,
      );
    const values = (title: string) => {
      const column = COLUMNS.find((c) => c.title === title);
      if (column === undefined) throw new Error(title);
      return cell(
        rowsOf.map(({ row, baseline }) => column.pick(row, baseline)),
        column.format,
      );
    };
    const errorKinds = new Map<string, number>();
    for (const { row } of rowsOf) {
      for (const [kind, n] of Object.entries(row.stats.errors)) {
        errorKinds.set(kind, (errorKinds.get(kind) ?? 0) + n);
      }
    }
    const kinds =
      (rowsOf.length > 1 && errorKinds.size > 0 ? 'all runs: ' : '') +
      [...errorKinds].map(([kind, n]) => `${kind} ${String(n)}`).join('; ');
    lines.push([
      name,
      `${values('member taps acked/sent')} / ${values('sent')}`,
      values('tap p50 ms'),
      values('tap p99 ms'),
      values('tap max ms'),
      values('REST read p99 ms'),
      values('member errors') + (kinds === '' ? '' : ` (${kinds})`),
      `${values('newcomers in/tried')} / ${values('tried')}`,
      `${values('server RSS start MB')} → ${values('server RSS max MB')}`,
      values('RSS ÷ baseline'),
      values('server CPU %'),
      values('server log lines'),
      verdict(rowsOf.map(({ row, baseline }) => misses(row, baseline))),
      (rowsOf[0]?.row.achieved ?? '–').replaceAll('|', '/'),
    ]);
  }
  return lines.map((cells) => `| ${cells.join(' | ')} |`).join('\n');
}

const loadavg = () =>
  os
    .loadavg()
    .map((n) => n.toFixed(2))
    .join(', ');

async function main(): Promise<void> {
  const loadAtStart = loadavg();
  ensureBuilt(log);
  const runs: PhaseRow[][] = [];
  for (let run = 1; run <= runCount && !interrupted; run++) runs.push(await oneRun(run));
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  console.log(
    `\nTally abuse benchmark, preset "${values.preset}", ${store}, ${String(runCount)} run(s), ${String(preset.phaseMs / 1_000)} s per phase; ${String(os.cpus().length)} × ${cpu}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}`,
  );
  console.log(`load average (1, 5, 15 min): at start ${loadAtStart}; at end ${loadavg()}`);
  console.log(
    'each phase on a fresh server; member: 127.0.0.2, 20 live taps/s and 1 REST read/s in its own group; newcomers: 1/s, each from a new address, REST join + live snapshot with the right key',
  );
  if (runCount > 1) console.log('cells: median (min–max) over the runs');
  console.log(`\n${table(runs)}`);
  if (runCount > 1) {
    for (const [index, rows] of runs.entries()) {
      console.log(`\nrun ${String(index + 1)}: attacker achieved`);
      for (const row of rows.slice(1)) console.log(`- ${row.name}: ${row.achieved}`);
    }
  }
}

try {
  await main();
} catch (error) {
  process.stderr.write(
    `bench:abuse failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = 1;
} finally {
  await shutdown();
}
process.exit(process.exitCode ?? 0);
