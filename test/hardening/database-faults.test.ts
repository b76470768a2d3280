/**
 * Database faults never take a Tally instance down. Two instances (child processes, from source)
 * on a PostgreSQL of this suite's own (its own data directory and port, made with initdb and run
 * with pg_ctl) reached through a TCP proxy written here; groups of three tap through instance B
 * and watch on instance A while the database is restarted, every Tally connection is terminated,
 * the path is black-holed for 10 s, and the primary fails over to a promoted replica. After each:
 * no instance exited, every tap was answered, acknowledged ≤ stored ≤ sent per counter, taps flow
 * again soon after recovery, refused taps retried with their operation ids end applied exactly
 * once, and every watcher shows what is stored.
 *
 * Time bounds here are generous (the machine is shared); `npm run bench -- --fault …` measures.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresBinaries } from '../../bench/faults/cluster.js';
import {
  BLACKHOLE_MS,
  FaultBed,
  runFault,
  type FaultName,
  type FaultRun,
} from '../../bench/faults/scenario.js';

const binaries = postgresBinaries();
if (binaries === null) {
  if (process.env.TALLY_REQUIRE_POSTGRES === '1') {
    throw new Error(
      'TALLY_REQUIRE_POSTGRES=1 but no PostgreSQL server programs under /usr/lib/postgresql',
    );
  }
  console.warn(
    'database fault suite skipped: no PostgreSQL server programs under /usr/lib/postgresql',
  );
}

/** Groups of three (one tapper on B, two watchers on A) and the taps/s they send in all. */
const LOAD = { groups: 8, rate: 160, beforeMs: 1_500, afterMs: 3_000 };

/** Generous bounds for a shared, noisy machine; the benchmark measures the real figures, ms. */
const RECOVERY_BOUND_MS = 10_000;

function checkRun(run: FaultRun): void {
  console.info(
    `${run.fault}: detect ${run.detectMs?.toFixed(0) ?? '-'} ms, recover ${run.recoverMs?.toFixed(0) ?? '-'} ms, ` +
      `health 503 after ${run.healthDownMs?.toFixed(0) ?? '-'} ms; first answers ${JSON.stringify(run.firstAnswers)}`,
  );
  expect(run.exits).toEqual([]);
  expect(run.closedSockets).toBe(0);
  // Every tap was answered: applied, or refused.
  expect(run.firstAnswers.unanswered).toBe(0);
  expect(run.taps.unanswered).toBe(0);
  for (const counter of run.counters) {
    expect(counter.stored).not.toBeNull();
    expect(counter.stored).toBeGreaterThanOrEqual(counter.acked);
    expect(counter.stored).toBeLessThanOrEqual(counter.sent);
  }
  expect(run.recoverMs).not.toBeNull();
  expect(run.recoverMs).toBeLessThan(RECOVERY_BOUND_MS);
  // Retried with their operation ids, refused taps end applied exactly once.
  expect(run.refusedAfterRetries).toBe(0);
  expect(run.taps.acked).toBe(run.taps.sent);
  expect(run.storedAfterRetries).toEqual(run.counters.map((counter) => counter.sent));
  // Watchers missed nothing: each shows what is stored.
  run.watchers.forEach((values, index) => {
    for (const value of values) expect(value).toBe(run.storedAfterRetries[index]);
  });
}

describe.skipIf(binaries === null)('PostgreSQL faults under steady taps on two instances', () => {
  let bed: FaultBed | undefined;
  const started = () => {
    if (!bed) throw new Error('fault bed not started');
    return bed;
  };

  beforeAll(async () => {
    bed = await FaultBed.start(true);
  }, 120_000);

  afterAll(async () => {
    await bed?.stop();
  }, 60_000);

  const fault = async (name: FaultName) => {
    const run = await runFault(started(), name, LOAD);
    checkRun(run);
    return run;
  };

  it('rides through a database restart', { timeout: 90_000 }, async () => {
    const run = await fault('restart');
    // Taps during the restart were refused, not left waiting.
    expect(run.firstAnswers.acked).toBeLessThanOrEqual(run.firstAnswers.sent);
  });

  it('rides through every Tally connection terminated', { timeout: 90_000 }, async () => {
    await fault('terminate');
  });

  it(
    'detects a black-holed path within seconds and rides through it',
    { timeout: 120_000 },
    async () => {
      const run = await fault('blackhole');
      // Noticed while the path was still down, not after TCP's minutes.
      expect(run.healthDownMs).not.toBeNull();
      expect(run.healthDownMs).toBeLessThan(BLACKHOLE_MS);
      expect(run.detectMs).not.toBeNull();
      expect(run.detectMs).toBeLessThan(BLACKHOLE_MS);
      // Members were told that changes were not being saved, and then that they were again.
      for (const frames of run.storageFrames) expect(frames).toEqual([false, true]);
      expect(run.firstAnswers.refused.storage_unavailable ?? 0).toBeGreaterThan(0);
    },
  );

  it('fails over to a promoted replica', { timeout: 120_000 }, async () => {
    await started().prepareFailover();
    await fault('failover');
  });
});
