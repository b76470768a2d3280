/**
 * The hot path table's arithmetic (bench/hotpath.ts): the ratio of CPU per tap to the bare
 * baseline is taken run by run, then summarised as median (range); failures add up over runs.
 */
import { describe, expect, it } from 'vitest';
import { Histogram } from '../../bench/histogram.js';
import {
  hotpathFailures,
  hotpathGeneratorPeak,
  hotpathTable,
  type HotpathCurve,
  type HotpathStep,
} from '../../bench/hotpath.js';
import type { LoadResult } from '../../bench/load.js';
import type { Target } from '../../bench/targets.js';

const target = (name: string): Target => ({
  name,
  keepsState: true,
  ackIsEcho: false,
  sendsValue: false,
  opIds: 'numbered',
  start: () => Promise.reject(new Error('not started in a unit test')),
});
const TALLY = target('Tally');
const BARE = target('bare');

function step(rate: number, cpuMicrosPerTap: number, lost = 0): HotpathStep {
  const latency = new Histogram();
  latency.recordMicros(1_000);
  const result: LoadResult = {
    incrementsPerSecond: rate,
    busyPerSecond: 0,
    answerLatency: latency,
    serverPeakRssBytes: 0,
    unanswered: 0,
    deliveriesPerSecond: rate * 4,
    latency,
    serverCpuCores: (cpuMicrosPerTap * rate) / 1e6,
    generatorCpuCores: 0.25,
    generatorLoopDelayP99Micros: 2_000,
    otherCpuCores: 0,
    window: { startMicros: 0, endMicros: 1_000_000 },
    serverRssBytes: 0,
    lost,
    duplicated: 0,
    errors: 0,
  };
  return { rate, result, cpuMicrosPerTap, idleCpuCores: 0, lost, duplicated: 0, unanswered: 0 };
}

const run = (tally: number, bare: number, lost = 0): HotpathCurve[] => [
  { target: TALLY, steps: [step(5_000, tally, lost)] },
  { target: BARE, steps: [step(5_000, bare)] },
];

describe('hot path table', () => {
  it('takes the ratio to the bare baseline run by run, then its median and range', () => {
    // Ratios 2, 3 and 4.
    const runs = [run(200, 100), run(300, 100), run(400, 100)];
    const table = hotpathTable(runs, [5_000], BARE);
    const tallyRow = table.split('\n').find((line) => line.includes('| Tally |'));
    expect(tallyRow).toContain('| 300.0 (200.0–400.0) | 3.00 (2.00–4.00)× |');
    const bareRow = table.split('\n').find((line) => line.includes('| bare |'));
    expect(bareRow).toContain('| 100.0 |  |');
  });

  it('pairs each run with its own baseline, not the baseline median', () => {
    const table = hotpathTable([run(400, 100), run(400, 200), run(400, 400)], [5_000], BARE);
    expect(table).toContain('| 2.00 (1.00–4.00)× |');
  });

  it('prints no ratio without the bare baseline', () => {
    const table = hotpathTable(
      [[{ target: TALLY, steps: [step(5_000, 200)] }]],
      [5_000],
      undefined,
    );
    expect(table).toContain('| 200.0 |  |');
  });

  it('adds up failures over runs for one target, and finds the busiest generator', () => {
    const runs = [run(200, 100, 2), run(200, 100, 3)];
    expect(hotpathFailures(runs, TALLY)).toBe(5);
    expect(hotpathFailures(runs, BARE)).toBe(0);
    expect(hotpathGeneratorPeak(runs)).toEqual({ cores: 0.25, delayMicros: 2_000 });
  });
});
