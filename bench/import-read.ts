/**
 * `npm run bench:import-read`: how long reading the largest import files (bench/import-files.ts)
 * holds the event loop, without a server: the server's reader on each file, RUNS times, both on
 * this thread (import/read.ts, as the server read files before) and as the server reads them now,
 * in a worker thread (import/read-thread.ts), with how long the reading took and the longest
 * stall of this thread's event loop while it ran (perf_hooks monitorEventLoopDelay, 1 ms
 * resolution: the longest stretch of synchronous work, to about a millisecond). For a JSON file,
 * one `JSON.parse` of it alone too. Every other group's taps wait for the longest stall
 * (docs/benchmarks.md#import).
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { readImportFile } from '../src/server/import/read.js';
import { ImportReader } from '../src/server/import/read-thread.js';
import type { ImportData } from '../src/server/domain/import.js';
import { IMPORT_FILE_KINDS, largestImportFile, type ImportFileKind } from './import-files.js';
import { loadAverage, median } from './stats.js';

const RUNS = Number(process.env.RUNS ?? 3);
const kinds = process.argv
  .slice(2)
  .filter((kind): kind is ImportFileKind =>
    (IMPORT_FILE_KINDS as readonly string[]).includes(kind),
  );

type Read = (body: string) => Promise<ImportData>;

/** `read` on `body` once: its outcome, how long it took and the loop's longest stall, ms. */
async function readOnce(read: Read, body: string) {
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  // The monitor records from its second sample on: give it those before the work starts.
  await new Promise((resolve) => setTimeout(resolve, 10));
  const started = performance.now();
  const outcome = await read(body).then(
    (data) =>
      `read: ${String(data.counters.length)} counters, ${String(data.entries.length)} entries`,
    (error: unknown) => `refused: ${error instanceof Error ? error.message.slice(0, 60) : ''}`,
  );
  const tookMs = performance.now() - started;
  // A last turn, so a stall at the very end is sampled.
  await new Promise((resolve) => setTimeout(resolve, 5));
  loop.disable();
  return { outcome, tookMs, stallMs: loop.max / 1e6 };
}

const range = (values: readonly number[]) =>
  `${median(values).toFixed(0)} (${Math.min(...values).toFixed(0)}–${Math.max(...values).toFixed(0)})`;

const reader = new ImportReader();
const readers: [string, Read][] = [
  ['event loop', (body) => readImportFile(body, undefined)],
  ['worker', (body) => reader.read(body, undefined)],
];
// The worker's start (its modules loaded through tsx here) is not part of a read.
await reader.read('Coffees,1700000000000\n', undefined);

console.log(`${String(RUNS)} runs each; load average before: ${loadAverage()}`);
console.log(
  '| file | MB | rows | read on | outcome | reading took ms, median (range) | longest stall ms | one JSON.parse ms |',
);
console.log('| --- | ---: | ---: | --- | --- | ---: | ---: | ---: |');
for (const kind of kinds.length > 0 ? kinds : IMPORT_FILE_KINDS) {
  const file = largestImportFile(kind);
  for (const [on, read] of readers) {
    const runs = [];
    const parses: number[] = [];
    for (let run = 0; run < RUNS; run += 1) {
      runs.push(await readOnce(read, file.body));
      if (file.type === 'application/json' && on === 'event loop') {
        const started = performance.now();
        JSON.parse(file.body);
        parses.push(performance.now() - started);
      }
    }
    console.log(
      `| ${kind} | ${(Buffer.byteLength(file.body) / 1024 / 1024).toFixed(2)} | ${file.rows.toLocaleString('en-US')} | ${on} | ${runs[0]?.outcome ?? ''} | ${range(runs.map((run) => run.tookMs))} | ${range(runs.map((run) => run.stallMs))} | ${parses.length === 0 ? '–' : range(parses)} |`,
    );
  }
}
await reader.close();
console.log(`load average after: ${loadAverage()}`);
