/**
 * The store comparison's arithmetic (bench/stores.ts, bench/stores-report.ts): how many groups a
 * rate needs, and the medians, ranges and ratios its table prints. The benchmark itself is run by
 * hand (docs/benchmarks.md); these are the parts a wrong number could hide in.
 */
import { describe, expect, it } from 'vitest';
import { Histogram } from '../../bench/histogram.js';
import type { LoadResult } from '../../bench/load.js';
import { median, spread, storeFailures, storesTable } from '../../bench/stores-report.js';
import { groupsFor, type StoreStep, type StoresShape } from '../../bench/stores.js';

const SHAPE: StoresShape = {
  members: 5,
  tappers: 2,
  tapsPerTapper: 50,
  ramp: [500, 2_000],
  stepMs: 1_000,
};

function latencies(millis: number): Histogram {
  const histogram = new Histogram();
  histogram.recordMicros(millis * 1_000);
  return histogram;
}

function step(offered: number, acked: number, latencyMs: number, lost = 0): StoreStep {
  const result: LoadResult = {
    incrementsPerSecond: acked,
    busyPerSecond: 0,
    answerLatency: latencies(latencyMs / 2),
    serverPeakRssBytes: 0,
    unanswered: 0,
    deliveriesPerSecond: 0,
    latency: latencies(latencyMs),
    serverCpuCores: 0.5,
    generatorCpuCores: 0.5,
    generatorLoopDelayP99Micros: 1_000,
    otherCpuCores: 0,
    window: { startMicros: 0, endMicros: 1_000_000 },
    serverRssBytes: 0,
    lost,
    duplicated: 0,
    errors: 0,
  };
  return {
    offered,
    groups: groupsFor(SHAPE, offered),
    result,
    lost,
    duplicated: 0,
    unanswered: 0,
  };
}

describe('store comparison groups', () => {
  it('adds groups as the offered rate grows, keeping every tapper at or under its share', () => {
    for (const rate of [1, 99, 100, 101, 500, 2_000, 30_000]) {
      const groups = groupsFor(SHAPE, rate);
      expect(rate / (groups * SHAPE.tappers)).toBeLessThanOrEqual(SHAPE.tapsPerTapper);
      expect(rate / ((groups - 1) * SHAPE.tappers)).toBeGreaterThan(SHAPE.tapsPerTapper);
    }
    expect(groupsFor(SHAPE, 30_000)).toBe(300);
  });
});

describe('store comparison summary', () => {
  it('takes the middle value of an odd count and the mean of the two middle ones of an even count', () => {
    expect(median([9, 1, 5])).toBe(5);
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });

  it('leaves unmeasured values (NaN) out of the median', () => {
    expect(median([Number.NaN, 7, 3, Number.NaN, 5])).toBe(5);
    expect(median([Number.NaN])).toBeNaN();
  });

  it('prints the median with the range of the runs, and a single run bare', () => {
    const format = (n: number) => n.toFixed(0);
    expect(spread([30, 10, 20], format)).toBe('20 (10–30)');
    expect(spread([20], format)).toBe('20');
    expect(spread([Number.NaN], format)).toBe('–');
  });

  it('prints each target per offered rate and the ratio of the medians between them', () => {
    const candidate = {
      name: 'Tally, PostgreSQL ×2',
      runs: [
        [step(500, 500, 10), step(2_000, 1_800, 40)],
        [step(500, 500, 30), step(2_000, 2_000, 60)],
        [step(500, 500, 20), step(2_000, 1_900, 50)],
      ],
    };
    const baseline = {
      name: 'Tally, SQLite ×1',
      runs: [0, 1, 2].map(() => [step(500, 500, 5), step(2_000, 2_000, 10)]),
    };
    const rows = storesTable(candidate, baseline, SHAPE).split('\n');
    const at2000 = rows.find((row) => row.startsWith('| 2,000 | 20 | Tally, PostgreSQL ×2 |'));
    expect(at2000).toContain('| 1,900 (1,800–2,000) |');
    expect(at2000).toContain('| 50 (40–60) |');
    const ratioRow = rows[rows.length - 1] ?? '';
    expect(ratioRow).toContain('PostgreSQL ×2 ÷ SQLite ×1');
    // Acked 1,900 ÷ 2,000; watcher p50 50 ÷ 10 ms.
    expect(ratioRow).toContain('| 0.95× |');
    expect(ratioRow).toContain('| 5.00× |');
  });

  it('sums lost increments over every run and step, so one lost tap fails the run', () => {
    const target = {
      name: 'Tally, PostgreSQL ×2',
      runs: [[step(500, 500, 10), step(2_000, 2_000, 10, 3)], [step(500, 500, 10, 1)]],
    };
    expect(storeFailures([target])).toBe(4);
    const table = storesTable(target, { name: 'Tally, SQLite ×1', runs: [[]] }, SHAPE);
    expect(table).toContain('| 1 / 0 / 0 |');
    expect(table).toContain('| 3 / 0 / 0 |');
  });
});
