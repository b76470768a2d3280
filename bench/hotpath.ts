/**
 * The hot path scenario (ADR 20, docs/benchmarks.md#hot-path): many small groups, one tapping
 * member and the others watching, live `mutate` taps at a few fixed rates, Tally against a bare
 * `ws` server that speaks the same message pattern (baselines/ws-pattern.ts). What it reports per
 * rate: taps acknowledged per second, the server's CPU time per acknowledged tap during the
 * tapping window, the tapper's answer latency and the watchers' delivery latency, and lost or
 * duplicated taps.
 *
 * Each run starts a fresh server per target and keeps it for every rate (ascending), with the
 * same clients; before each rate's window the server must be idle again (quiesce), so what the
 * previous rate left behind (drain, checks, garbage) is not counted in the next window.
 */
import { openLoop, populate, sleep, type LoadResult } from './load.js';
import { int, ms, fixed } from './stats.js';
import { sampleProcesses, cpuCores } from './proc.js';
import { spread } from './stores-report.js';
import type { RunningTarget, Target } from './targets.js';

export interface HotpathShape {
  groups: number;
  /** Members per group: `tappers` tap, the others watch. */
  members: number;
  tappers: number;
  /** Offered rates, taps/s, ascending. */
  rates: number[];
  /** How long each rate is offered, ms. */
  durationMs: number;
  /** Taps at the first rate before the first window, unrecorded (the JIT compiles the hot path), ms. */
  warmUpMs: number;
}

export interface HotpathStep {
  rate: number;
  result: LoadResult;
  /** Server CPU time per tap acknowledged in the window, µs. */
  cpuMicrosPerTap: number;
  /** The server's CPU just before the window (should be ≈ 0: nothing left from before), cores. */
  idleCpuCores: number;
  /** Lost, duplicated and unanswered taps of this rate (the checks are cumulative). */
  lost: number;
  duplicated: number;
  unanswered: number;
}

/** One target's steps in one run. */
export interface HotpathCurve {
  target: Target;
  steps: HotpathStep[];
}

/** The server counts as idle once it uses less than this over QUIESCE_SAMPLE_MS, cores. */
const IDLE_CORES = 0.03;
const QUIESCE_SAMPLE_MS = 300;
const QUIESCE_MAX_MS = 10_000;

/**
 * Waits until the server's processes are idle (or QUIESCE_MAX_MS passed); returns their CPU over
 * the last sample, cores.
 */
export async function quiesce(running: RunningTarget): Promise<number> {
  const deadline = Date.now() + QUIESCE_MAX_MS;
  let cores = Number.POSITIVE_INFINITY;
  while (Date.now() < deadline) {
    const before = sampleProcesses(running.pids);
    await sleep(QUIESCE_SAMPLE_MS);
    cores = cpuCores(before, sampleProcesses(running.pids));
    if (cores < IDLE_CORES) break;
  }
  return cores;
}

/** One run of the scenario against a fresh start of `target`: every rate, ascending. */
export async function hotpathCurve(
  target: Target,
  shape: HotpathShape,
  log: (message: string) => void,
): Promise<HotpathCurve> {
  const running = await target.start();
  try {
    log(`${target.name}: hot path, ${shape.groups} groups of ${shape.members}`);
    const population = await populate(target, running, 'hotpath', shape.groups, shape.members, {
      tappers: shape.tappers,
    });
    const load = { members: shape.members, tappers: shape.tappers };
    try {
      await quiesce(running);
      await openLoop(population, running, target, {
        ...load,
        rate: shape.rates[0] ?? 0,
        durationMs: shape.warmUpMs,
      });
      let before = { lost: 0, duplicated: 0, unanswered: 0 };
      const steps: HotpathStep[] = [];
      for (const rate of shape.rates) {
        const idleCpuCores = await quiesce(running);
        log(
          `${target.name}: hot path, ${rate}/s offered (server idle at ${idleCpuCores.toFixed(2)} cores)`,
        );
        const result = await openLoop(population, running, target, {
          ...load,
          rate,
          durationMs: shape.durationMs,
        });
        // The window on the monotonic clock, to cut a server CPU profile to it (profile-window.ts).
        log(
          `${target.name}: ${rate}/s: ${Math.round(result.incrementsPerSecond)} acked/s, window ${result.window.startMicros}–${result.window.endMicros} µs (monotonic)`,
        );
        const now = {
          lost: result.lost ?? 0,
          duplicated: result.duplicated ?? 0,
          unanswered: result.unanswered,
        };
        steps.push({
          rate,
          result,
          // CPU seconds in the window ÷ taps acknowledged in it (both per second of the window).
          cpuMicrosPerTap:
            result.incrementsPerSecond > 0
              ? (result.serverCpuCores / result.incrementsPerSecond) * 1e6
              : Number.NaN,
          idleCpuCores,
          lost: Math.max(0, now.lost - before.lost),
          duplicated: Math.max(0, now.duplicated - before.duplicated),
          unanswered: Math.max(0, now.unanswered - before.unanswered),
        });
        before = now;
      }
      return { target, steps };
    } finally {
      for (const client of population.clients) client.close();
    }
  } finally {
    await running.stop();
  }
}

/**
 * The table: per rate, per target, median (range) over the runs; the ratio to the bare baseline
 * is taken run by run (the two ran back to back) and summarised the same way.
 */
export function hotpathTable(
  runs: HotpathCurve[][],
  rates: number[],
  bare: Target | undefined,
): string {
  const lines = [
    "| rate/s | target | acked/s | CPU µs/tap | ÷ bare | answer p50/p99/p99.9 ms | delivery p50/p99 ms | server CPU (cores) | generator CPU (cores) / loop delay p99 ms | other processes' CPU (cores) | lost/dup/unanswered |",
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  ];
  const targets = runs[0]?.map((curve) => curve.target) ?? [];
  rates.forEach((rate, index) => {
    const stepsOf = (target: Target) =>
      runs.flatMap((run) => {
        const step = run.find((curve) => curve.target === target)?.steps[index];
        return step ? [step] : [];
      });
    const bareCpu = (run: HotpathCurve[]) =>
      bare ? run.find((curve) => curve.target === bare)?.steps[index]?.cpuMicrosPerTap : undefined;
    for (const target of targets) {
      const steps = stepsOf(target);
      const of = (pick: (step: HotpathStep) => number, format: (n: number) => string) =>
        spread(steps.map(pick), format);
      const ratios =
        bare && target !== bare
          ? runs.flatMap((run) => {
              const ours = run.find((curve) => curve.target === target)?.steps[index];
              const theirs = bareCpu(run);
              return ours && theirs ? [ours.cpuMicrosPerTap / theirs] : [];
            })
          : [];
      const sum = (pick: (step: HotpathStep) => number) =>
        steps.reduce((total, step) => total + pick(step), 0);
      lines.push(
        `| ${int(rate)} | ${target.name} | ${of((s) => s.result.incrementsPerSecond, int)} | ${of((s) => s.cpuMicrosPerTap, fixed(1))} | ${ratios.length > 0 ? `${spread(ratios, fixed(2))}×` : ''} | ${of((s) => s.result.answerLatency.percentile(0.5), ms)} / ${of((s) => s.result.answerLatency.percentile(0.99), ms)} / ${of((s) => s.result.answerLatency.percentile(0.999), ms)} | ${of((s) => s.result.latency.percentile(0.5), ms)} / ${of((s) => s.result.latency.percentile(0.99), ms)} | ${of((s) => s.result.serverCpuCores, fixed(2))} | ${of((s) => s.result.generatorCpuCores, fixed(2))} / ${of((s) => s.result.generatorLoopDelayP99Micros, ms)} | ${of((s) => s.result.otherCpuCores, fixed(2))} | ${int(sum((s) => s.lost))} / ${int(sum((s) => s.duplicated))} / ${int(sum((s) => s.unanswered))} |`,
      );
    }
  });
  return lines.join('\n');
}

/** Lost, duplicated and unanswered taps of a target over every run and rate. */
export function hotpathFailures(runs: HotpathCurve[][], target: Target): number {
  return runs
    .flat()
    .filter((curve) => curve.target === target)
    .flatMap((curve) => curve.steps)
    .reduce((sum, step) => sum + step.lost + step.duplicated + step.unanswered, 0);
}

/**
 * The highest load generator CPU (cores) and event-loop delay p99 (µs) of any step: near one
 * core, or with a delay of milliseconds, it and not the server is (part of) the limit.
 */
export function hotpathGeneratorPeak(runs: HotpathCurve[][]): {
  cores: number;
  delayMicros: number;
} {
  const results = runs
    .flat()
    .flatMap((curve) => curve.steps)
    .map((step) => step.result);
  return {
    cores: Math.max(0, ...results.map((result) => result.generatorCpuCores)),
    delayMicros: Math.max(0, ...results.map((result) => result.generatorLoopDelayP99Micros)),
  };
}

/** Steps whose server was not idle when the window opened (something leaked into it). */
export function hotpathBusyStarts(runs: HotpathCurve[][]): string[] {
  return runs.flatMap((run, index) =>
    run.flatMap((curve) =>
      curve.steps
        .filter((step) => step.idleCpuCores >= IDLE_CORES)
        .map(
          (step) =>
            `run ${index + 1}, ${curve.target.name}, ${int(step.rate)}/s: server at ${step.idleCpuCores.toFixed(2)} cores before the window`,
        ),
    ),
  );
}
