/** Summaries the benchmark reports share: medians over runs and the machine's load. */
import os from 'node:os';

export function median(numbers: readonly number[]): number {
  const sorted = [...numbers].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[middle] ?? 0)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

/** The 1, 5 and 15 minute load averages, as `1.23, 0.98, 0.75`. */
export function loadAverage(): string {
  return os
    .loadavg()
    .map((load) => load.toFixed(2))
    .join(', ');
}

/** A count for a table: rounded, with thousands separators. */
export const int = (n: number): string => Math.round(n).toLocaleString('en-US');

/** A duration in µs as ms with two decimals for a table; `–` when there is none. */
export const ms = (micros: number): string =>
  Number.isNaN(micros) ? '–' : (micros / 1_000).toFixed(2);

/** A formatter of numbers with `digits` decimals. */
export const fixed =
  (digits: number) =>
  (n: number): string =>
    n.toFixed(digits);
