/**
 * `npm run bench [-- --preset smoke|full] [-- --only tally]`: runs the same load against Tally
 * (with its activity log, and without it to show the log's cost) and two baselines in one run and
 * prints one table with Tally's ratio to each. Numbers go into docs/benchmarks.md by hand, with the
 * machine described. The overload scenario (Tally only, ADR 13) ramps the offered rate to find
 * the peak, then offers twice the peak, and prints the curve.
 *
 * `npm run bench -- --scenarios hotpath [--preset full] [--runs 3]`: the hot path (ADR 20,
 * docs/benchmarks.md#hot-path), many groups of 5 (1 taps, 4 watch) at a few rates, Tally on
 * SQLite against a bare `ws` server speaking the same message pattern, server CPU per tap and
 * latency (hotpath.ts).
 *
 * `npm run bench -- --scenarios alerts,alert-latency [--preset full] [--runs 3]`: alerts
 * (alerts.ts), the hot path with a webhook rule `every 10` in every group against the same server
 * with no rules, in the same run; and the delivery latency from a tap's ack to a loopback
 * receiver, on SQLite and, when DATABASE_URL is a postgres:// URL, on PostgreSQL.
 * `--alerts-warm-up 60` taps a minute before the first window, so the alert code is warm.
 *
 * `npm run bench -- --scenarios hotroom [--preset full] [--runs 3] [--before DIR]`: the hot room
 * (hotroom.ts, ADR 33), one large group on SQLite: hundreds of tappers and thousands of watchers
 * on one counter, then on 20, clients spread over 200 loopback addresses; watcher delivery
 * latency, every tap acknowledged and counted, sockets closed, server CPU and memory per socket.
 *
 * `npm run bench -- --store postgres --instances 2 [--runs 3]`: the store comparison (stores.ts),
 * Tally on PostgreSQL with tappers and watchers on different instances against Tally on SQLite,
 * one instance, in the same run. `--store postgres` with `--scenarios …` runs those scenarios with
 * Tally on PostgreSQL instead of SQLite.
 */
import { execFileSync } from 'node:child_process';
import { int, ms } from './stats.js';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { idleMemory, openLoop, populate, sleep, type LoadResult } from './load.js';
import {
  hotpathBusyStarts,
  hotpathCurve,
  hotpathFailures,
  hotpathGeneratorPeak,
  hotpathTable,
  type HotpathCurve,
  type HotpathShape,
} from './hotpath.js';
import {
  hotroomFailures,
  hotroomRoom,
  hotroomTable,
  type HotroomShape,
  type HotroomStep,
} from './hotroom.js';
import { DEFAULT_POSTGRES_URL, describePostgres, tallyOnPostgres } from './postgres-target.js';
import {
  ALERTS_ENV,
  alertFailures,
  alertLatency,
  alertsCurve,
  alertsTable,
  describeAlerts,
  latencyTable,
  startReceiver,
  sumAlerts,
  withEveryRule,
  type AlertsCurve,
  type LatencyRun,
  type LatencyShape,
  type Receiver,
} from './alerts.js';
import { beforeCheckout } from './checkout.js';
import { benchFault, faultName } from './faults/report.js';
import { storeCurve, type StoresShape } from './stores.js';
import { storeFailures, storesTable, type StoreRuns } from './stores-report.js';
import {
  floorTargets,
  naiveBaseline,
  patternBaseline,
  tally,
  tallyOnSqlite,
  tallyTarget,
  tallyWithoutLog,
  wsBaseline,
  type RunningTarget,
  type Target,
} from './targets.js';

/** G groups of M members; the first T members of each group tap, `rate` taps/s in all. */
interface OpenLoopShape {
  groups: number;
  members: number;
  tappers: number;
  rate: number;
  durationMs: number;
}

/**
 * Overload: a ramp of offered rates finds the peak acknowledged rate, then twice the peak is
 * offered. Each tapper stays under the live channel's per-socket budget.
 */
interface OverloadShape {
  groups: number;
  members: number;
  tappers: number;
  /** Offered rates of the ramp, taps/s, ascending. */
  ramp: number[];
  stepMs: number;
  /** How long twice the peak is offered, ms. */
  overloadMs: number;
}

/** Most taps/s one tapper offers: under the live channel's 100 messages/s (security/policy.ts). */
const MAX_TAPS_PER_TAPPER = 90;
/** A ramp step acknowledging less than this share of what it offered is past the peak. */
const SATURATED = 0.9;

interface Preset {
  /** Pause between scenarios so one's backlog and garbage do not weigh on the next, ms. */
  settleMs: number;
  /** Also run Tally with its activity log off, to show what the log costs. */
  withoutLog: boolean;
  idle: { groups: number; members: number };
  throughput: OpenLoopShape;
  fanout: OpenLoopShape;
  latency: OpenLoopShape;
  overload: OverloadShape;
  /** Store comparison (Tally on PostgreSQL, several instances, against SQLite, one instance). */
  stores: StoresShape;
  /** Hot path (ADR 20): Tally on SQLite against the bare `ws` server of the same pattern. */
  hotpath: HotpathShape;
  /**
   * Alerts (alerts.ts): the hot path's shape with a webhook rule `every` N taps in each group
   * against no rules, and the delivery latency's groups.
   */
  alerts: {
    every: number;
    latency: LatencyShape;
    /**
     * A second server without rules beside the two: its ratio to the first is the run's noise,
     * the band a ratio "within noise" falls in.
     */
    noise: boolean;
    /**
     * The least time every server taps before the first window, ms (alerts.ts also waits for
     * every group's first alert): longer shows a server whose alert code V8 has optimised.
     */
    warmUpMs?: number;
  };
  /** Hot room (hotroom.ts): one large group, its crowd of watchers and tappers. */
  hotroom: HotroomShape;
}

const PRESETS: Record<string, Preset> = {
  // Every tapper stays under the live channel's 100 messages/s per socket (security/policy.ts):
  // load is spread over many members, as it is in real groups.
  // smoke finishes in about a minute for the three servers and the hot path: CI's smoke run (no
  // timing assertions). Its loads are small and drained before each check, so 0.5 s pauses do.
  smoke: {
    settleMs: 500,
    withoutLog: false,
    idle: { groups: 50, members: 10 },
    throughput: { groups: 20, members: 5, tappers: 5, rate: 3_000, durationMs: 2_000 },
    fanout: { groups: 50, members: 10, tappers: 2, rate: 2_000, durationMs: 2_000 },
    latency: { groups: 20, members: 10, tappers: 1, rate: 500, durationMs: 2_000 },
    overload: {
      groups: 40,
      members: 5,
      tappers: 5,
      ramp: [2_000, 4_000, 8_000],
      stepMs: 1_500,
      overloadMs: 3_000,
    },
    // Not in CI's run (the store comparison runs only when asked for): the short curve, 2 s a step.
    stores: {
      members: 5,
      tappers: 2,
      tapsPerTapper: 50,
      ramp: [500, 2_000, 5_000, 10_000, 20_000, 30_000],
      stepMs: 2_000,
    },
    // In CI's run: the same shape, fewer groups, two rates and short windows (about 15 s in all).
    hotpath: {
      groups: 40,
      members: 5,
      tappers: 1,
      rates: [500, 2_000],
      durationMs: 1_000,
      warmUpMs: 300,
    },
    // In CI's run: the hot path's shape above with and without rules, then 50 groups tapping 4/s
    // for 3 s (60 alerts) on SQLite and, with DATABASE_URL=postgres://… (as CI sets), PostgreSQL:
    // about 25 s in all.
    alerts: {
      every: 10,
      latency: { groups: 50, tapsPerSecond: 4, durationMs: 3_000 },
      noise: false,
    },
    // In CI's run: a room of 300 (20 tap) on one counter, then on 5 counters, 2 s a rate; past
    // 100 members, so its changes go through the large group's windows (about 15 s in all).
    hotroom: {
      rooms: [
        { counters: 1, tappers: 20, watchers: 280, rates: [500, 1_000] },
        { counters: 5, tappers: 20, watchers: 280, rates: [1_000] },
      ],
      durationMs: 2_000,
      warmUpMs: 500,
      // As in the full preset, so CI's run goes through the crowd's merging of reports.
      watcherProcesses: 2,
      tapperProcesses: 1,
    },
  },
  full: {
    settleMs: 3_000,
    withoutLog: true,
    idle: { groups: 1_000, members: 10 },
    throughput: { groups: 400, members: 5, tappers: 5, rate: 50_000, durationMs: 10_000 },
    fanout: { groups: 500, members: 10, tappers: 2, rate: 25_000, durationMs: 10_000 },
    latency: { groups: 100, members: 10, tappers: 2, rate: 2_000, durationMs: 10_000 },
    overload: {
      groups: 400,
      members: 5,
      tappers: 5,
      ramp: [10_000, 20_000, 30_000, 40_000, 50_000, 60_000],
      stepMs: 4_000,
      overloadMs: 10_000,
    },
    stores: {
      members: 5,
      tappers: 2,
      tapsPerTapper: 50,
      ramp: [500, 2_000, 5_000, 10_000, 20_000, 30_000],
      stepMs: 5_000,
    },
    // The hot path's shape (ADR 20): 400 groups of 5, 1 tapper each (25 taps/s at 10,000/s),
    // 8 s per rate.
    hotpath: {
      groups: 400,
      members: 5,
      tappers: 1,
      rates: [1_000, 5_000, 10_000],
      durationMs: 8_000,
      warmUpMs: 1_000,
    },
    // 200 groups tapping 4/s: 800 taps/s, 80 alerts/s, 24 a minute per group (the sender's bound
    // is 60, past which it folds), 2,400 alerts in 30 s.
    alerts: {
      every: 10,
      latency: { groups: 200, tapsPerSecond: 4, durationMs: 30_000 },
      noise: true,
    },
    // A stadium: 500 tappers (20 taps/s each at 10,000/s) and 5,000 watchers on one counter,
    // then 10,000 watchers at 2,000/s, then the first crowd on 20 counters; 8 s per rate.
    hotroom: {
      rooms: [
        { counters: 1, tappers: 500, watchers: 5_000, rates: [5_000, 10_000] },
        { counters: 1, tappers: 500, watchers: 10_000, rates: [2_000] },
        { counters: 20, tappers: 500, watchers: 5_000, rates: [5_000, 10_000] },
      ],
      durationMs: 8_000,
      warmUpMs: 1_000,
      watcherProcesses: 2,
      tapperProcesses: 1,
    },
  },
};

interface TargetResult {
  target: Target;
  idle?: { connections: number; bytesPerConnection: number; rssBytes: number };
  throughput?: LoadResult;
  fanout?: LoadResult;
  latency?: LoadResult;
  overload?: OverloadResult;
}

interface OverloadResult {
  curve: { offered: number; result: LoadResult }[];
  peak: number;
  offered: number;
  result: LoadResult;
}

const { values } = parseArgs({
  options: {
    preset: { type: 'string', default: 'smoke' },
    /** Only the servers whose name contains this (tally, ws, original). */
    only: { type: 'string' },
    /**
     * Only these scenarios, comma-separated (idle, throughput, fanout, latency, overload, hotpath,
     * alerts, alert-latency, hotroom, stores). Default: all but stores; with --store postgres, stores alone.
     */
    scenarios: { type: 'string' },
    /** Tally's store in the scenarios other than stores: sqlite (default) or postgres. */
    store: { type: 'string', default: 'sqlite' },
    /** Tally instances on PostgreSQL (default 2): tappers on the others than the first. */
    instances: { type: 'string' },
    /** The PostgreSQL database; each run uses a fresh schema in it and drops it. */
    postgres: { type: 'string', default: DEFAULT_POSTGRES_URL },
    /**
     * Offered rates, taps/s, comma-separated, instead of the preset's: the store comparison's
     * ramp, the hot path's rates and every hot room's rates.
     */
    rates: { type: 'string' },
    /** Only these rooms of the hot room scenario, 1-based, comma-separated (1,3). */
    rooms: { type: 'string' },
    /** Processes the hot room's watchers are spread over. */
    'watcher-processes': { type: 'string' },
    /** Processes the hot room's tappers are spread over. */
    'tapper-processes': { type: 'string' },
    /**
     * Taps a second of each group of the alert latency scenario, instead of the preset's 4 (an
     * alert every 10 taps: × 6 = alerts a minute per group; the sender folds past 60).
     */
    'alert-taps': { type: 'string' },
    /** The hot path's and the hot room's tapping window per rate, seconds, instead of the preset's (8 s in full). */
    window: { type: 'string' },
    /**
     * The alerts scenario's warm-up, seconds, at least (by default the hot path's, or as long as
     * every group takes to fire once). 60 measures servers whose alert code is warm.
     */
    'alerts-warm-up': { type: 'string' },
    /**
     * Runs of the store comparison, the hot path or alerts (median and range; targets count at
     * ≥ 3).
     */
    runs: { type: 'string', default: '1' },
    /**
     * Another checkout of Tally, built (`npm run build` there): the hot path also runs its server,
     * in the same run, as "Tally before" (a change's before and after on the same machine state).
     */
    before: { type: 'string' },
    /**
     * How the --before server's clients name operations: opaque (default: a build from before
     * numbered ids, ADR 24, refuses them) or numbered.
     */
    'before-ids': { type: 'string', default: 'opaque' },
    /** The hot path also runs this build with opaque operation ids ("Tally, opaque ids"). */
    opaque: { type: 'boolean', default: false },
    /**
     * The hot path also runs this build on SQLite in memory (no file, no WAL: nothing durable),
     * with and without the activity log: what a tap costs above the bare server before durability.
     */
    floors: { type: 'boolean', default: false },
    /** The hot path also runs this build with COMMIT_LINGER_MS at each of these values (ms). */
    linger: { type: 'string' },
    /**
     * A database fault under taps on PostgreSQL instances of a database of the benchmark's own:
     * restart, terminate, blackhole or failover (bench/faults/report.ts). Needs --store postgres.
     */
    fault: { type: 'string' },
  },
});
const before = beforeCheckout(values.before);

/** `--linger 1,4`: this build again with batches that linger that long (ADR 20), one per value. */
function lingerTargets(list: string | undefined): Target[] {
  if (list === undefined) return [];
  return list.split(',').map((raw) => {
    const ms = wholeNumber('linger', raw.trim(), 0);
    return tallyTarget(`Tally, lingering ${ms} ms`, { COMMIT_LINGER_MS: String(ms) });
  });
}
const presetName = values.preset;
const chosen = PRESETS[presetName];
if (!chosen) {
  throw new Error(`unknown preset ${presetName}: use ${Object.keys(PRESETS).join(' or ')}`);
}
const rates = values.rates?.split(',').map((rate) => wholeNumber('rates', rate.trim(), 1));
const windowMs =
  values.window === undefined ? undefined : wholeNumber('window', values.window, 1) * 1_000;
const preset: Preset = {
  ...chosen,
  stores: { ...chosen.stores, ramp: rates ?? chosen.stores.ramp },
  hotpath: {
    ...chosen.hotpath,
    rates: rates ?? chosen.hotpath.rates,
    durationMs: windowMs ?? chosen.hotpath.durationMs,
  },
  hotroom: {
    ...chosen.hotroom,
    watcherProcesses:
      values['watcher-processes'] === undefined
        ? chosen.hotroom.watcherProcesses
        : wholeNumber('watcher-processes', values['watcher-processes'], 1),
    tapperProcesses:
      values['tapper-processes'] === undefined
        ? chosen.hotroom.tapperProcesses
        : wholeNumber('tapper-processes', values['tapper-processes'], 1),
    durationMs: windowMs ?? chosen.hotroom.durationMs,
    rooms: (values.rooms === undefined
      ? chosen.hotroom.rooms
      : values.rooms.split(',').map((raw) => {
          const room = chosen.hotroom.rooms[wholeNumber('rooms', raw.trim(), 1) - 1];
          if (!room) throw new Error(`--rooms: the preset has ${chosen.hotroom.rooms.length}`);
          return room;
        })
    ).map((room) => ({ ...room, rates: rates ?? room.rates })),
  },
  alerts: {
    ...chosen.alerts,
    latency: {
      ...chosen.alerts.latency,
      tapsPerSecond:
        values['alert-taps'] === undefined
          ? chosen.alerts.latency.tapsPerSecond
          : wholeNumber('alert-taps', values['alert-taps'], 1),
    },
    ...(values['alerts-warm-up'] === undefined
      ? {}
      : { warmUpMs: wholeNumber('alerts-warm-up', values['alerts-warm-up'], 0) * 1_000 }),
  },
};

/** A whole number from `min`, from a command-line option. */
function wholeNumber(option: string, raw: string, min: number): number {
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < min) {
    throw new Error(`--${option} must be a whole number from ${min} (got "${raw}")`);
  }
  return value;
}

const store = values.store;
if (store !== 'sqlite' && store !== 'postgres') {
  throw new Error(`--store must be sqlite or postgres (got "${store}")`);
}
const instances = wholeNumber('instances', values.instances ?? '2', 1);
if (store === 'sqlite' && values.instances !== undefined && instances !== 1) {
  throw new Error(
    '--store sqlite runs one instance (one server holds the database file): use --store postgres',
  );
}
const repeats = wholeNumber('runs', values.runs, 1);

type Scenario =
  | 'idle'
  | 'throughput'
  | 'fanout'
  | 'latency'
  | 'overload'
  | 'hotpath'
  | 'alerts'
  | 'alert-latency'
  | 'hotroom'
  | 'stores';
const SCENARIOS: readonly Scenario[] = [
  'idle',
  'throughput',
  'fanout',
  'latency',
  'overload',
  'hotpath',
  'alerts',
  'alert-latency',
  'hotroom',
  'stores',
];
const defaultScenarios =
  store === 'postgres'
    ? 'stores'
    : 'idle,throughput,fanout,latency,overload,hotpath,alerts,alert-latency,hotroom';
const selected = new Set(
  (values.scenarios ?? defaultScenarios).split(',').map((name) => name.trim()),
);
for (const name of selected) {
  if (!SCENARIOS.includes(name as Scenario)) {
    throw new Error(`unknown scenario ${name}: use ${SCENARIOS.join(', ')}`);
  }
}
const runs = (scenario: Scenario) => selected.has(scenario);
/** The scenarios run by measure(), one server after the other. */
const serverScenarios = SCENARIOS.filter(
  (scenario) =>
    !['stores', 'hotpath', 'alerts', 'alert-latency', 'hotroom'].includes(scenario) &&
    runs(scenario),
);
if (repeats > 1 && serverScenarios.length > 0) {
  throw new Error(
    `--runs repeats the stores, hotpath, alerts and alert-latency scenarios only (not ${serverScenarios.join(', ')})`,
  );
}
if (runs('hotroom') && store !== 'sqlite') {
  throw new Error('the hotroom scenario runs Tally on SQLite: leave out --store postgres');
}
if (runs('hotpath') && store !== 'sqlite') {
  throw new Error('the hotpath scenario runs Tally on SQLite: leave out --store postgres');
}
/** Where the alert-latency scenario also runs on PostgreSQL: DATABASE_URL's database. */
const alertsPostgres = /^postgres(ql)?:\/\//.test(process.env.DATABASE_URL ?? '')
  ? process.env.DATABASE_URL
  : undefined;
const alertScenarios = runs('alerts') || runs('alert-latency');
if (alertScenarios && store !== 'sqlite') {
  throw new Error(
    'the alerts scenarios run Tally on SQLite, alert-latency also on PostgreSQL when DATABASE_URL=postgres://… is set: leave out --store postgres',
  );
}

/** Tally as the scenarios other than stores measure it: on SQLite, or on PostgreSQL. */
const tallyMain = store === 'postgres' ? tallyOnPostgres(instances, values.postgres) : tally;
const tallyTargets = new Set<Target>([tallyMain, tallyWithoutLog]);

const LABELS: Record<
  Exclude<
    Scenario,
    'idle' | 'overload' | 'hotpath' | 'alerts' | 'alert-latency' | 'stores' | 'hotroom'
  >,
  string
> = {
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
      const population = await populate(target, running, scenario, shape.groups, shape.members, {
        tappers: shape.tappers,
      });
      result[scenario] = await openLoop(population, running, target, shape);
      for (const client of population.clients) client.close();
      await sleep(preset.settleMs);
    }
    // Overload is Tally's own behaviour (busy answers, backpressure): the baselines have none.
    if (runs('overload') && tallyTargets.has(target)) {
      result.overload = await overload(target, running, preset.overload);
    }
    return result;
  } finally {
    await running.stop();
  }
}

async function overload(
  target: Target,
  running: RunningTarget,
  shape: OverloadShape,
): Promise<OverloadResult> {
  const population = await populate(target, running, 'overload', shape.groups, shape.members, {
    tappers: shape.tappers,
  });
  const cap = shape.groups * shape.tappers * MAX_TAPS_PER_TAPPER;
  const step = async (rate: number, durationMs: number) => {
    log(`${target.name}: overload, open loop ${int(rate)}/s offered`);
    const result = await openLoop(population, running, target, { ...shape, rate, durationMs });
    await sleep(preset.settleMs);
    return result;
  };
  try {
    const curve: OverloadResult['curve'] = [];
    let saturatedSteps = 0;
    for (const rate of shape.ramp) {
      const result = await step(Math.min(rate, cap), shape.stepMs);
      curve.push({ offered: Math.min(rate, cap), result });
      // Two steps past the peak show the plateau (or the collapse); more would only add time.
      if (result.incrementsPerSecond < SATURATED * rate && ++saturatedSteps >= 2) break;
    }
    const peak = Math.max(...curve.map((point) => point.result.incrementsPerSecond));
    const offered = Math.min(Math.round(2 * peak), cap);
    if (offered < 2 * peak) log(`overload capped at ${int(cap)}/s by the tappers' budget`);
    const result = await step(offered, shape.overloadMs);
    return { curve, peak, offered, result };
  } finally {
    for (const client of population.clients) client.close();
  }
}

function log(message: string): void {
  process.stderr.write(`· ${message}\n`);
}

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

/** The overload curve of each Tally target: the ramp, then twice its peak. */
function overloadTable(results: TargetResult[]): string {
  const lines: string[] = [];
  const o = preset.overload;
  for (const r of results) {
    const run = r.overload;
    if (!run) continue;
    lines.push(
      `\n${r.target.name}, overload (${int(o.groups)} groups of ${o.members}, ${int(o.groups * o.tappers)} tappers, open loop)\n`,
    );
    lines.push(
      '| offered/s | acked/s | busy/s | answer p50 ms | answer p99 ms | answer max ms | server peak RSS MB | server CPU (cores) | correctness |',
      '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    );
    const point = (label: string, load: LoadResult) =>
      `| ${label} | ${int(load.incrementsPerSecond)} | ${int(load.busyPerSecond)} | ${ms(load.answerLatency.percentile(0.5))} | ${ms(load.answerLatency.percentile(0.99))} | ${ms(load.answerLatency.max)} | ${(load.serverPeakRssBytes / 2 ** 20).toFixed(0)} | ${load.serverCpuCores.toFixed(2)} | ${loss(load)}${load.unanswered > 0 ? `, ${int(load.unanswered)} unanswered` : ''} |`;
    for (const { offered, result } of run.curve) lines.push(point(int(offered), result));
    lines.push(point(`**${int(run.offered)} (2× peak)**`, run.result));
    lines.push(
      `\npeak ${int(run.peak)}/s; at ${int(run.offered)}/s offered: ${int(run.result.incrementsPerSecond)}/s acked = ${(run.result.incrementsPerSecond / run.peak).toFixed(2)}× peak`,
    );
  }
  return lines.join('\n');
}

/** The 1, 5 and 15 minute load averages: the machine is shared, so a run says how busy it was. */
const loadAverage = () =>
  os
    .loadavg()
    .map((n) => n.toFixed(2))
    .join(' ');

interface StoresOutcome {
  candidate: StoreRuns;
  baseline: StoreRuns;
  /** Load averages at the start and end of each run. */
  loads: { start: string; end: string }[];
}

/**
 * The store comparison, `repeats` times: Tally on PostgreSQL (tallyOnPostgres) and on SQLite, one
 * after the other, each on a fresh server; the order alternates from run to run so that drift
 * in the machine's load does not always favour the same one.
 */
async function compareStores(): Promise<StoresOutcome> {
  const candidateTarget = tallyOnPostgres(instances, values.postgres);
  const candidate: StoreRuns = { name: candidateTarget.name, runs: [] };
  const baseline: StoreRuns = { name: tallyOnSqlite.name, runs: [] };
  const loads: StoresOutcome['loads'] = [];
  for (let run = 0; run < repeats; run++) {
    const start = loadAverage();
    log(`store comparison, run ${run + 1} of ${repeats}, load average ${start}`);
    const order =
      run % 2 === 0
        ? ([
            [candidateTarget, candidate],
            [tallyOnSqlite, baseline],
          ] as const)
        : ([
            [tallyOnSqlite, baseline],
            [candidateTarget, candidate],
          ] as const);
    for (const [target, into] of order) {
      into.runs.push(await storeCurve(target, preset.stores, preset.settleMs, log));
      await sleep(preset.settleMs);
    }
    loads.push({ start, end: loadAverage() });
  }
  return { candidate, baseline, loads };
}

interface HotpathOutcome {
  targets: Target[];
  runs: HotpathCurve[][];
  /** Load averages at the start and end of each run. */
  loads: { start: string; end: string }[];
}

/**
 * The hot path, `repeats` times: each target on a fresh server, one after the other, the order
 * alternating from run to run (as the store comparison's).
 */
async function compareHotpath(targets: Target[]): Promise<HotpathOutcome> {
  const outcome: HotpathOutcome = { targets, runs: [], loads: [] };
  for (let run = 0; run < repeats; run++) {
    const start = loadAverage();
    log(`hot path, run ${run + 1} of ${repeats}, load average ${start}`);
    const order = run % 2 === 0 ? targets : [...targets].reverse();
    const curves: HotpathCurve[] = [];
    // No pause between targets: each is a fresh process, and each window waits for an idle server.
    for (const target of order) curves.push(await hotpathCurve(target, preset.hotpath, log));
    outcome.runs.push(targets.flatMap((target) => curves.filter((c) => c.target === target)));
    outcome.loads.push({ start, end: loadAverage() });
  }
  return outcome;
}

function printHotpath(outcome: HotpathOutcome): void {
  const shape = preset.hotpath;
  console.log(
    `\nHot path (ADR 20): ${int(shape.groups)} groups of ${shape.members} (${shape.tappers} taps, ${shape.members - shape.tappers} watch), live taps open loop, ${shape.durationMs / 1_000} s per rate, rates ascending on one fresh server per target and run, server idle again before each window. CPU µs/tap = server CPU time during the tapping window ÷ taps acknowledged in it; ÷ bare = that ratio to ${patternBaseline.name} (baselines/ws-pattern.ts), run by run. answer = tap sent → the tapper's ack; delivery = tap sent → the change at each watcher. ${repeats > 1 ? `Median (range) of ${repeats} runs; lost / dup / unanswered summed over the runs.` : 'One run.'}\n`,
  );
  outcome.loads.forEach((load, run) => {
    console.log(
      `run ${run + 1}: load average (1, 5, 15 min) ${load.start} at start, ${load.end} at end`,
    );
  });
  console.log('');
  const bare = outcome.targets.includes(patternBaseline) ? patternBaseline : undefined;
  console.log(hotpathTable(outcome.runs, shape.rates, bare));
  const generator = hotpathGeneratorPeak(outcome.runs);
  console.log(
    `\nload generator (one Node thread): at most ${generator.cores.toFixed(2)} cores, event-loop delay p99 at most ${(generator.delayMicros / 1_000).toFixed(1)} ms${generator.cores > 0.9 ? ': near one core, it may itself be the limit (latency includes its own queueing)' : ''}`,
  );
  for (const warning of hotpathBusyStarts(outcome.runs)) console.log(`warning: ${warning}`);
}

interface HotroomOutcome {
  /** Each target's runs, each run its steps (rooms and rates in order). */
  runs: Map<Target, HotroomStep[][]>;
  loads: { start: string; end: string }[];
}

/** The hot room, `repeats` times: each target on fresh servers, the order alternating. */
async function compareHotroom(targets: Target[]): Promise<HotroomOutcome> {
  const outcome: HotroomOutcome = { runs: new Map(targets.map((t) => [t, []])), loads: [] };
  for (let run = 0; run < repeats; run++) {
    const start = loadAverage();
    log(`hot room, run ${run + 1} of ${repeats}, load average ${start}`);
    const order = run % 2 === 0 ? targets : [...targets].reverse();
    for (const target of order) {
      const steps: HotroomStep[] = [];
      for (const room of preset.hotroom.rooms)
        steps.push(...(await hotroomRoom(target, room, preset.hotroom, log)));
      outcome.runs.get(target)?.push(steps);
    }
    outcome.loads.push({ start, end: loadAverage() });
  }
  return outcome;
}

function printHotroom(outcome: HotroomOutcome): void {
  const shape = preset.hotroom;
  console.log(
    `\nHot room (ADR 33): one group on one fresh server per room, target and run; its tappers and watchers connect from 200 loopback addresses; live taps open loop, ${shape.durationMs / 1_000} s per rate. The crowd runs in ${shape.tapperProcesses + shape.watcherProcesses} processes (the tappers over ${shape.tapperProcesses}, the watchers over ${shape.watcherProcesses}), every time on one monotonic clock. delivery = tap sent → the first frame at a watcher that covers its change number (every 10th watcher measures); answer = tap sent → its ack; generator CPU = the crowd's processes and the coordinator together, its loop delay the worst p99 of them. ${repeats > 1 ? `Median (range) of ${repeats} runs; counts summed over the runs.` : 'One run.'}\n`,
  );
  outcome.loads.forEach((load, run) => {
    console.log(
      `run ${run + 1}: load average (1, 5, 15 min) ${load.start} at start, ${load.end} at end`,
    );
  });
  console.log('');
  console.log(hotroomTable(outcome.runs));
}

interface AlertsOutcome {
  /** The two targets of the comparison: no rules (the baseline), then rules. */
  targets: Target[];
  /** The comparison's runs (none unless the alerts scenario ran). */
  runs: AlertsCurve[][];
  /** The latency's runs, each store once a run (none unless alert-latency ran). */
  latency: LatencyRun[];
  /** Load averages at the start and end of each run of the comparison. */
  loads: { start: string; end: string }[];
}

/**
 * Alerts, `repeats` times, against one loopback receiver: the hot path with and without rules
 * (alerts; each on a fresh server, the order alternating from run to run), then the delivery
 * latency on SQLite and, with DATABASE_URL=postgres://…, on PostgreSQL (alert-latency).
 */
async function compareAlerts(): Promise<AlertsOutcome> {
  const { every, latency } = preset.alerts;
  const receiver: Receiver = await startReceiver();
  try {
    const none = tallyTarget('Tally, no alert rules', ALERTS_ENV);
    const rules = withEveryRule(
      tallyTarget('Tally', ALERTS_ENV),
      `Tally, webhook every ${every}`,
      receiver,
      every,
    );
    const latencyTargets = [
      withEveryRule(tallyTarget('Tally', ALERTS_ENV), 'Tally, SQLite', receiver, every),
      ...(alertsPostgres === undefined
        ? []
        : [
            withEveryRule(
              tallyOnPostgres(1, alertsPostgres, ALERTS_ENV),
              'Tally, PostgreSQL ×1',
              receiver,
              every,
            ),
          ]),
    ];
    const again = tallyTarget('Tally, no alert rules again (the noise)', ALERTS_ENV);
    const targets = preset.alerts.noise ? [none, rules, again] : [none, rules];
    const outcome: AlertsOutcome = { targets, runs: [], latency: [], loads: [] };
    for (let run = 0; run < repeats; run++) {
      if (runs('alerts')) {
        const start = loadAverage();
        log(`alerts on the hot path, run ${run + 1} of ${repeats}, load average ${start}`);
        // Each target takes each place in turn from run to run.
        const order = targets.map((_, index) => targets[(index + run) % targets.length] ?? none);
        const curves: AlertsCurve[] = [];
        for (const target of order) {
          curves.push(
            await alertsCurve(
              target,
              { ...preset.hotpath, warmUpMs: preset.alerts.warmUpMs ?? preset.hotpath.warmUpMs },
              every,
              receiver,
              log,
            ),
          );
        }
        outcome.runs.push(outcome.targets.flatMap((t) => curves.filter((c) => c.target === t)));
        outcome.loads.push({ start, end: loadAverage() });
      }
      if (runs('alert-latency')) {
        const stores = run % 2 === 0 ? latencyTargets : [...latencyTargets].reverse();
        for (const target of stores) {
          outcome.latency.push(
            await alertLatency(target, latency, every, receiver, loadAverage, log),
          );
        }
      }
    }
    return outcome;
  } finally {
    await receiver.stop();
  }
}

function printAlerts(outcome: AlertsOutcome): void {
  const shape = preset.hotpath;
  const { every, latency } = preset.alerts;
  const [none] = outcome.targets;
  const summary =
    repeats > 1 ? `Median (range) of ${repeats} runs; alerts summed over the runs.` : 'One run.';
  if (none && outcome.runs.length > 0) {
    console.log(
      `\nAlerts on the hot path: ${int(shape.groups)} groups of ${shape.members} (${shape.tappers} taps, ${shape.members - shape.tappers} watch), ${shape.durationMs / 1_000} s per rate, as the hot path; with rules, each group has a \`standard\` webhook rule \`every ${every}\` on its counter, delivered to a node:http receiver on loopback (204). Every server runs with ALERTS_ALLOW_PRIVATE_TARGETS=true.${preset.alerts.noise ? ' A second server without rules (the noise) runs in each run too: its ratio to the first is how far two identical servers differ here, the band a ratio within noise falls in.' : ''} CPU µs/tap, window = server CPU in the tapping window ÷ taps acknowledged in it (the sender's work only as far as it kept up); to idle = server CPU from the window's start until every alert fired so far has arrived and the server is idle again ÷ the step's taps; ÷ no rules = the ratio to the no-rules server, run by run. ${summary}\n`,
    );
    outcome.loads.forEach((load, run) => {
      console.log(
        `run ${run + 1}: load average (1, 5, 15 min) ${load.start} at start, ${load.end} at end`,
      );
    });
    console.log('');
    console.log(alertsTable(outcome.runs, shape.rates, none));
    const curves = outcome.runs.flat();
    console.log(`\nalerts with rules: ${describeAlerts(sumAlerts(curves.map((c) => c.alerts)))}`);
  }
  if (outcome.latency.length === 0) return;
  const perMinute = (latency.tapsPerSecond * 60) / every;
  console.log(
    `\nAlert delivery latency: ${int(latency.groups)} groups of 1 member tapping ${latency.tapsPerSecond}/s each for ${latency.durationMs / 1_000} s (${int(latency.groups * latency.tapsPerSecond)} taps/s, ${int((latency.groups * latency.tapsPerSecond) / every)} alerts/s, ${int(perMinute)} a minute per group${perMinute > 50 ? ": near or past the sender's 60, so some are folded" : ''}), a \`standard\` webhook rule \`every ${every}\` per group. ack → receiver = the tap's acknowledgement at the load generator → the request's headers at the receiver (an alert that arrives before the generator reads the ack counts 0: a busy generator reads late); change → receiver = the alert's \`at\` (the change's time on the server's clock, whole ms, just before the commit) → the receiver, on the same machine's clock; send → receiver = from the tap's sending. ${summary}\n`,
  );
  const stores = Math.max(1, outcome.latency.length / repeats);
  outcome.latency.forEach((run, index) => {
    const p = (histogram: LatencyRun['fromAck'], q: number) => ms(histogram.percentile(q));
    console.log(
      `${run.target.name}, run ${Math.floor(index / stores) + 1}: load average ${run.load.start} at start, ${run.load.end} at end; ${int(run.ackedPerSecond)} taps/s acked, ${int(run.refused)} refused busy; ${int(run.fromAck.count)} alerts measured, ${int(run.unmeasured)} not; ack → receiver p50/p99 ${p(run.fromAck, 0.5)}/${p(run.fromAck, 0.99)} ms, change → receiver ${p(run.fromChange, 0.5)}/${p(run.fromChange, 0.99)} ms`,
    );
  });
  console.log('');
  console.log(latencyTable(outcome.latency));
}

function printStores(outcome: StoresOutcome): void {
  const shape = preset.stores;
  const watchers = shape.members - shape.tappers;
  const where =
    instances > 1
      ? `tappers on ${instances > 2 ? `instances B to ${String.fromCharCode(64 + instances)}` : 'instance B'}, watchers on instance A, so latency crosses instances`
      : 'tappers and watchers on the one instance';
  console.log(
    `\nStore comparison: groups of ${shape.members} (${shape.tappers} tap, ${watchers} watch), ${shape.tapsPerTapper} taps/s per tapper, ${shape.stepMs / 1_000} s per step, open loop; ${outcome.candidate.name}: ${where}; ${outcome.baseline.name}: the same groups on one instance. p50/p99 = tap sent → change seen by a watcher; ack = tap sent → the tapper's answer. ${repeats > 1 ? `Median (range) of ${repeats} runs; lost / dup / unanswered summed over the runs.` : 'One run.'}\n`,
  );
  outcome.loads.forEach((load, run) => {
    console.log(
      `run ${run + 1}: load average (1, 5, 15 min) ${load.start} at start, ${load.end} at end`,
    );
  });
  console.log('');
  console.log(storesTable(outcome.candidate, outcome.baseline, shape));
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
  if (values.fault !== undefined) {
    if (store !== 'postgres' || instances !== 2) {
      throw new Error(
        '--fault runs two instances on PostgreSQL: add --store postgres --instances 2',
      );
    }
    const failures = await benchFault(faultName(values.fault), repeats, log);
    console.log(
      `\nload average (1, 5, 15 min): ${loadAverage()}\nTally correctness: ${failures === 0 ? 'every tap answered; every counter stores at least the acknowledged taps and at most those sent; no instance exited' : `${failures} failures`}`,
    );
    if (failures > 0) process.exitCode = 1;
    return;
  }
  const usesPostgres =
    runs('stores') ||
    store === 'postgres' ||
    (runs('alert-latency') && alertsPostgres !== undefined);
  // Said before any load, and fails fast when the database cannot be reached.
  const database = usesPostgres
    ? await describePostgres(
        runs('alert-latency') &&
          alertsPostgres !== undefined &&
          !runs('stores') &&
          store !== 'postgres'
          ? alertsPostgres
          : values.postgres,
      )
    : undefined;
  const candidates = [
    tallyMain,
    ...(preset.withoutLog && store === 'sqlite' ? [tallyWithoutLog] : []),
    wsBaseline,
    naiveBaseline,
  ];
  // A name given in full picks that server alone ("tally" is not also "Tally, activity log off").
  const only = values.only?.toLowerCase();
  const exact = candidates.filter((target) => target.name.toLowerCase() === only);
  const targets =
    serverScenarios.length === 0
      ? []
      : exact.length > 0
        ? exact
        : candidates.filter(
            (target) => only === undefined || target.name.toLowerCase().includes(only),
          );
  const startLoad = loadAverage();
  const results: TargetResult[] = [];
  for (const target of targets) results.push(await measure(target));
  const endLoad = loadAverage();
  // --before DIR: the same scenario on another checkout's build, in the same run, so a change's
  // before and after share the machine's state (bench/checkout.ts).
  const beforeIds = values['before-ids'];
  if (beforeIds !== 'opaque' && beforeIds !== 'numbered') {
    throw new Error(`--before-ids is opaque or numbered, not ${beforeIds}`);
  }
  const hotpathTargets = [
    ...(before === undefined
      ? []
      : [tallyTarget(`Tally before (${before.label})`, {}, before.root, beforeIds)]),
    tally,
    ...(values.opaque ? [tallyTarget('Tally, opaque ids', {}, undefined, 'opaque')] : []),
    ...(values.floors ? floorTargets : []),
    ...lingerTargets(values.linger),
    patternBaseline,
  ];
  const hotpathExact = hotpathTargets.filter((target) => target.name.toLowerCase() === only);
  const hotpathChosen =
    hotpathExact.length > 0
      ? hotpathExact
      : hotpathTargets.filter(
          (target) => only === undefined || target.name.toLowerCase().includes(only),
        );
  const hot =
    runs('hotpath') && hotpathChosen.length > 0 ? await compareHotpath(hotpathChosen) : undefined;
  // Tally alone: `--only` naming another server leaves it out.
  const alerts =
    alertScenarios && (only === undefined || 'tally'.includes(only))
      ? await compareAlerts()
      : undefined;
  const room = runs('hotroom')
    ? await compareHotroom(
        [
          ...(before === undefined
            ? []
            : [tallyTarget(`Tally before (${before.label})`, {}, before.root, beforeIds)]),
          tally,
        ].filter((target) => only === undefined || target.name.toLowerCase().includes(only)),
      )
    : undefined;
  const stores = runs('stores') ? await compareStores() : undefined;
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  console.log(
    `\nTally benchmark, preset "${presetName}", ${os.cpus().length} × ${cpu}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}${database ? `, ${database}` : ''}\n`,
  );
  if (targets.length > 0) {
    console.log(`load average (1, 5, 15 min): ${startLoad} at start, ${endLoad} at end\n`);
  }
  if (
    targets.length > 0 &&
    (runs('idle') || runs('throughput') || runs('fanout') || runs('latency'))
  )
    console.log(table(results));
  if (targets.length > 0 && runs('overload')) console.log(overloadTable(results));
  if (hot) printHotpath(hot);
  if (alerts) printAlerts(alerts);
  if (stores) printStores(stores);
  if (room) printHotroom(room);
  const loads = (r: TargetResult) =>
    [
      r.throughput,
      r.fanout,
      r.latency,
      ...(r.overload ? [...r.overload.curve.map((point) => point.result), r.overload.result] : []),
    ].filter((load): load is LoadResult => load !== undefined);
  const storeLoads = stores
    ? [stores.candidate, stores.baseline].flatMap((target) =>
        target.runs.flat().map((step) => step.result),
      )
    : [];
  const hotLoads = hot ? hot.runs.flat().flatMap((curve) => curve.steps.map((s) => s.result)) : [];
  const alertLoads = alerts
    ? alerts.runs.flat().flatMap((curve) => curve.steps.map((s) => s.result))
    : [];
  const errors =
    [...results.flatMap(loads), ...storeLoads, ...hotLoads, ...alertLoads].reduce(
      (sum, load) => sum + load.errors,
      0,
    ) + (alerts ? alerts.latency.reduce((sum, run) => sum + run.errors, 0) : 0);
  if (errors > 0) console.log(`\n${errors} client errors`);
  const tallyResults = results.filter((r) => tallyTargets.has(r.target));
  const tallyHot = hot?.targets.includes(tally) === true;
  const tallyRoom = room?.runs.get(tally);
  if (tallyResults.length > 0 || stores || tallyHot || alerts || tallyRoom) {
    const lost =
      tallyResults
        .flatMap(loads)
        .reduce((sum, r) => sum + (r.lost ?? 0) + (r.duplicated ?? 0) + r.unanswered, 0) +
      (stores ? storeFailures([stores.candidate, stores.baseline]) : 0) +
      (hot ? hotpathFailures(hot.runs, tally) : 0) +
      (tallyRoom ? hotroomFailures(tallyRoom) : 0) +
      (alerts
        ? alerts.runs.flat().reduce((sum, curve) => sum + curve.tapFailures, 0) +
          alerts.latency.reduce((sum, run) => sum + run.tapFailures, 0)
        : 0);
    console.log(
      `\nTally correctness: ${lost === 0 ? 'every counter ends at exactly the increments sent' : `${lost} increments lost, duplicated or never answered`}`,
    );
    if (lost > 0) process.exitCode = 1;
  }
  if (alerts) {
    const count = sumAlerts([
      ...alerts.runs.flat().map((curve) => curve.alerts),
      ...alerts.latency.map((run) => run.alerts),
    ]);
    const failures = alertFailures(count);
    console.log(
      `\nAlert correctness: ${failures === 0 ? 'every alert fired reached the receiver exactly once' : describeAlerts(count)}`,
    );
    if (failures > 0) process.exitCode = 1;
  }
}

await main();
process.exit(process.exitCode ?? 0);
