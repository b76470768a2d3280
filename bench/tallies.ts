/**
 * `npm run bench:tallies`: what GET …/tallies costs at the activity log's cap (ADR 19,
 * docs/benchmarks.md#tallies). One group holds ACTIVITY_ENTRIES taps by 20 members on 50
 * counters; the store answers the whole group's tallies, one counter's, and "this period" (the
 * newest tenth), against a baseline read in the same run: one page of the activity log (50
 * entries), the panel's everyday read.
 * Reports the median and range of RUNS reads each, and the load average.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { hashKey } from '../src/server/core/access.js';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { SqliteStore } from '../src/server/store/sqlite/store.js';
import { sqliteDatabase } from '../src/server/store/sqlite/driver.js';
import { DECREMENTS, INCREMENTS, TALLY_ENTRIES } from '../src/server/store/tallies.js';
import type { Operation, Store } from '../src/server/store/types.js';
import { loadAverage, median } from './stats.js';

const ACTIVITY_ENTRIES = Number(process.env.ENTRIES ?? 100_000);
const RUNS = 7;
const MEMBERS = 20;
const COUNTERS = 50;

async function fill(store: Store): Promise<{ groupId: string; counterId: string; since: number }> {
  const { group } = await store.createGroup(
    `bench-tallies-${Date.now()}`,
    hashKey('ab'.repeat(16)),
  );
  const ids: string[] = [];
  for (let index = 0; index < COUNTERS; index += 1) {
    const [outcome] = await store.commit([
      { groupId: group.id, mutation: { kind: 'createCounter', fields: { name: `C${index}` } } },
    ]);
    if (outcome?.ok && outcome.result.kind === 'counter') ids.push(outcome.result.counter.id);
  }
  // One entry per member per counter per batch: batches of MEMBERS × 10 taps on 10 counters.
  let written = COUNTERS;
  let since = 0;
  while (written < ACTIVITY_ENTRIES) {
    const batch: Operation[] = [];
    for (let member = 0; member < MEMBERS; member += 1) {
      for (let c = 0; c < 10; c += 1) {
        const counterId = ids[(written + c) % COUNTERS] ?? '';
        batch.push({
          groupId: group.id,
          actor: `Member ${member}`,
          mutation: {
            kind: 'adjustCounter',
            counterId,
            direction: (written + member) % 3 === 0 ? 'decrement' : 'increment',
            times: 1,
          },
        });
      }
    }
    await store.commit(batch);
    written += batch.length;
    if (since === 0 && written >= ACTIVITY_ENTRIES * 0.9) since = Date.now();
  }
  return { groupId: group.id, counterId: ids[0] ?? '', since };
}

async function timed(read: () => Promise<unknown>): Promise<number[]> {
  const times: number[] = [];
  for (let run = 0; run < RUNS; run += 1) {
    const start = performance.now();
    await read();
    times.push(performance.now() - start);
  }
  return times;
}

const show = (label: string, times: number[], baseline?: number) => {
  const m = median(times);
  const ratio = baseline === undefined ? '' : `  (${(m / baseline).toFixed(1)}× the page read)`;
  console.log(
    `${label.padEnd(34)} median ${m.toFixed(2)} ms  range ${Math.min(...times).toFixed(2)}–${Math.max(...times).toFixed(2)} ms${ratio}`,
  );
};

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tally-bench-tallies-'));
  const store = new SqliteStore(path.join(dir, 'bench.sqlite'));
  await store.migrate();
  try {
    const { groupId, counterId, since } = await fill(store);
    console.log(
      `SQLite, one group of ${ACTIVITY_ENTRIES.toLocaleString('en-US')} entries; load average ${loadAverage()}`,
    );
    const page = await timed(() => store.listActivity(groupId, { limit: 50, order: 'newest' }));
    show('activity page (baseline)', page);
    const base = median(page);
    show('tallies, whole group', await timed(() => store.tallies(groupId, { limit: 1_000 })), base);
    show(
      'tallies, one counter',
      await timed(() => store.tallies(groupId, { limit: 1_000, counterId })),
      base,
    );
    show(
      'tallies, newest tenth (since)',
      await timed(() => store.tallies(groupId, { limit: 1_000, since })),
      base,
    );
    // What the rest of the server feels: the event loop's delay (p99, max) while 20 whole-group
    // tallies run back to back, read by the worker (as Tally does) or on the event loop.
    const file = path.join(dir, 'bench.sqlite');
    const Sqlite = sqliteDatabase();
    const direct = new Sqlite(file, { readonly: true });
    const sql = `SELECT actor, counter_id, TOTAL(${INCREMENTS}) AS increments,
      TOTAL(${DECREMENTS}) AS decrements FROM activity INDEXED BY activity_by_group
      WHERE group_id = ? AND ${TALLY_ENTRIES} GROUP BY actor, counter_id
      ORDER BY increments - decrements DESC, actor, counter_id LIMIT 1000`;
    const statement = direct.prepare(sql);
    const delayWhile = async (read: () => Promise<unknown>) => {
      const histogram = monitorEventLoopDelay({ resolution: 1 });
      histogram.enable();
      for (let run = 0; run < 20; run += 1) {
        await read();
        // A turn of the event loop between reads, as between two requests.
        await new Promise((resolve) => setImmediate(resolve));
      }
      histogram.disable();
      return `p99 ${(histogram.percentile(99) / 1e6).toFixed(1)} ms, max ${(histogram.max / 1e6).toFixed(1)} ms`;
    };
    console.log(
      `event-loop delay during 20 whole-group tallies: read by the worker ${await delayWhile(() =>
        store.tallies(groupId, { limit: 1_000 }),
      )}; on the event loop ${await delayWhile(() => Promise.resolve(statement.all(groupId)))}`,
    );
    direct.close();
  } finally {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

await main();
