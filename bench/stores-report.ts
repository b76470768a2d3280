/**
 * The store comparison's table: for each offered rate, each target's median (and range) over the
 * runs, then the candidate's ratio to the baseline at the median. Targets count only at the
 * median of at least three runs, so a single run prints its values without a range.
 */
import type { StoreStep, StoresShape } from './stores.js';

export interface StoreRuns {
  name: string;
  /** One curve per run, every curve with the same offered rates. */
  runs: StoreStep[][];
}

/** Median of a non-empty list (mean of the two middle values for an even count). */
export function median(values: readonly number[]): number {
  const sorted = values.filter((value) => !Number.isNaN(value)).sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const middle = Math.floor(sorted.length / 2);
  const upper = sorted[middle] ?? Number.NaN;
  return sorted.length % 2 === 1 ? upper : ((sorted[middle - 1] ?? upper) + upper) / 2;
}

const int = (n: number) => Math.round(n).toLocaleString('en-US');
/** Milliseconds from µs, with precision that suits their size. */
const ms = (micros: number) => {
  if (Number.isNaN(micros)) return '–';
  const millis = micros / 1_000;
  return millis.toLocaleString('en-US', { maximumFractionDigits: millis < 10 ? 2 : 1 });
};
const cores = (n: number) => n.toFixed(2);

/** `median (min–max)` over the runs; the bare value for a single run. */
export function spread(values: readonly number[], format: (n: number) => string): string {
  const known = values.filter((value) => !Number.isNaN(value));
  if (known.length === 0) return '–';
  const mid = format(median(known));
  if (known.length === 1) return mid;
  const low = format(Math.min(...known));
  const high = format(Math.max(...known));
  return low === high ? mid : `${mid} (${low}–${high})`;
}

/** "PostgreSQL ×2" for "Tally, PostgreSQL ×2": the ratio rows name stores, not the product. */
const shortName = (target: StoreRuns) => target.name.replace(/^Tally, /, '');

const ratio = (a: number, b: number) =>
  Number.isNaN(a) || Number.isNaN(b) || b <= 0 ? '–' : `${(a / b).toFixed(2)}×`;

interface Metric {
  label: string;
  pick: (step: StoreStep) => number;
  format: (n: number) => string;
  /** Whether the candidate ÷ baseline ratio of medians is printed. */
  ratio: boolean;
}

const METRICS: Metric[] = [
  { label: 'acked/s', pick: (s) => s.result.incrementsPerSecond, format: int, ratio: true },
  { label: 'busy/s', pick: (s) => s.result.busyPerSecond, format: int, ratio: false },
  // Tap → change seen by a watcher (on another instance than the tapper's, on several).
  { label: 'p50 ms', pick: (s) => s.result.latency.percentile(0.5), format: ms, ratio: true },
  { label: 'p99 ms', pick: (s) => s.result.latency.percentile(0.99), format: ms, ratio: true },
  // Tap → the tapper's own answer: the commit alone, without the way to other instances.
  {
    label: 'ack p50 ms',
    pick: (s) => s.result.answerLatency.percentile(0.5),
    format: ms,
    ratio: true,
  },
  {
    label: 'ack p99 ms',
    pick: (s) => s.result.answerLatency.percentile(0.99),
    format: ms,
    ratio: true,
  },
  // Tally's processes only: PostgreSQL's own work is not in it, so no ratio.
  { label: 'Tally CPU (cores)', pick: (s) => s.result.serverCpuCores, format: cores, ratio: false },
  {
    label: 'load generator CPU (cores)',
    pick: (s) => s.result.generatorCpuCores,
    format: cores,
    ratio: false,
  },
];

/** Taps lost, duplicated and never answered at a rate, summed over the runs: any is a bug. */
function correctness(curves: StoreStep[][], index: number): string {
  let lost = 0;
  let duplicated = 0;
  let unanswered = 0;
  for (const curve of curves) {
    const step = curve[index];
    if (!step) continue;
    lost += step.lost;
    duplicated += step.duplicated;
    unanswered += step.unanswered;
  }
  return `${int(lost)} / ${int(duplicated)} / ${int(unanswered)}`;
}

/** Every lost, duplicated or unanswered increment of every run of every target. */
export function storeFailures(targets: readonly StoreRuns[]): number {
  return targets
    .flatMap((target) => target.runs.flat())
    .reduce((sum, step) => sum + step.lost + step.duplicated + step.unanswered, 0);
}

/**
 * One row per target per offered rate, then the ratio row (candidate ÷ baseline). `candidate`
 * and `baseline` ran the same curve in the same run.
 */
export function storesTable(candidate: StoreRuns, baseline: StoreRuns, shape: StoresShape): string {
  const header = [
    'offered/s',
    'groups',
    'target',
    ...METRICS.map((metric) => metric.label),
    'lost / dup / unanswered',
  ];
  const lines = [header, header.map(() => '---')];
  shape.ramp.forEach((offered, index) => {
    const column = (target: StoreRuns, metric: Metric) =>
      target.runs.map((curve) => {
        const step = curve[index];
        return step ? metric.pick(step) : Number.NaN;
      });
    const groups = candidate.runs[0]?.[index]?.groups ?? 0;
    for (const target of [candidate, baseline]) {
      lines.push([
        int(offered),
        int(groups),
        target.name,
        ...METRICS.map((metric) => spread(column(target, metric), metric.format)),
        correctness(target.runs, index),
      ]);
    }
    lines.push([
      '',
      '',
      `${shortName(candidate)} ÷ ${shortName(baseline)}`,
      ...METRICS.map((metric) =>
        metric.ratio
          ? ratio(median(column(candidate, metric)), median(column(baseline, metric)))
          : '',
      ),
      '',
    ]);
  });
  return lines.map((cells) => `| ${cells.join(' | ')} |`).join('\n');
}
