/**
 * WAL checkpoints off the event loop. By default SQLite checkpoints inside the commit that
 * pushes the WAL past 1,000 pages: that commit copies the pages into the database file (and,
 * with synchronous=NORMAL, fsyncs it) on the event loop, a stall of several milliseconds that
 * every tap waiting behind it feels (the p99 of the latency benchmark). Here a worker thread
 * with its own connection runs a PASSIVE checkpoint every CHECKPOINT_INTERVAL_MS: it copies what
 * no reader still needs and never blocks a writer.
 *
 * The WAL file starts over from its beginning only when a write finds every frame copied. Under
 * sustained writes a commit always lands while the worker is copying, so that never happens and
 * the file would grow without bound. The server's connection therefore keeps an automatic
 * checkpoint at SAFETY_NET_PAGES: by then the worker has copied nearly all of it, so that
 * checkpoint copies a short tail and the WAL starts over. If the worker cannot run, the
 * connection goes back to SQLite's default of 1,000 pages.
 *
 * The worker never takes the write lock (PASSIVE checkpoints only read and copy), so it never
 * makes the server's writes fail with SQLITE_BUSY, which the server no longer waits out
 * (sqlite.ts BUSY_TIMEOUT_MS = 0; the WAL test of sqlite-store.test.ts commits ~3,000 batches
 * while it runs).
 */
import { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';
import { sqliteDriverPath } from './driver.js';

/**
 * Time between two checkpoints, ms. Short, so little is left uncopied when the safety net runs
 * on the event loop: with 200 ms the latency benchmark's p99 after the fan-out load was 12.5 ms,
 * with 25 ms 3.7–4.4 ms. A checkpoint with nothing to copy only reads the WAL index.
 */
export const CHECKPOINT_INTERVAL_MS = 25;
/** SQLite's own default (pages), restored when the worker is gone. */
const AUTOMATIC_CHECKPOINT_PAGES = 1_000;
/** The server connection's own checkpoint while the worker runs: 40 MB of 4 KB pages. */
export const SAFETY_NET_PAGES = 10_000;

export interface Checkpointer {
  /** Checkpoints run since start. */
  readonly runs: number;
  /** Stops the worker (the server's connection goes back to automatic checkpoints). */
  stop(): Promise<void>;
}

/**
 * Runs in the worker, as CommonJS (`eval`): the same code whether the server runs from dist/
 * or from TypeScript sources under a test runner, which could not load a .ts worker file.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file);
db.pragma('busy_timeout = 1000');
const runs = new Int32Array(workerData.runs);
const timer = setInterval(() => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
    Atomics.add(runs, 0, 1);
  } catch (error) {
    parentPort.postMessage({ error: String(error && error.message || error) });
  }
}, workerData.intervalMs);
parentPort.on('message', (message) => {
  if (message !== 'stop') return;
  clearInterval(timer);
  try { db.pragma('wal_checkpoint(PASSIVE)'); } finally { db.close(); }
  parentPort.close();
});
`;

/** Starts checkpointing `file` from a worker thread; `db` is the server's connection to it. */
export function startCheckpointer(
  db: Database.Database,
  file: string,
  onError: (message: string) => void,
): Checkpointer {
  const driver = sqliteDriverPath();
  // The worker counts its checkpoints in shared memory: no message to the event loop per run.
  const runs = new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT));
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { file, driver, intervalMs: CHECKPOINT_INTERVAL_MS, runs: runs.buffer },
  });
  // A worker thread keeps the process alive; the server's own handles decide when it exits.
  worker.unref();
  db.pragma(`wal_autocheckpoint = ${SAFETY_NET_PAGES}`);
  let stopped = false;
  const checkpointOnEventLoop = () => {
    if (db.open) db.pragma(`wal_autocheckpoint = ${AUTOMATIC_CHECKPOINT_PAGES}`);
  };
  const fallBack = (reason: string) => {
    if (stopped) return;
    stopped = true;
    checkpointOnEventLoop();
    onError(reason);
  };
  worker.on('message', (message: { error: string }) => {
    // A checkpoint can fail for a moment (busy, disk full); the next one retries.
    onError(`WAL checkpoint failed: ${message.error}`);
  });
  worker.on('error', (error) => {
    fallBack(`WAL checkpoint worker failed: ${error.message}`);
  });
  worker.on('exit', (code) => {
    if (code !== 0) fallBack(`WAL checkpoint worker exited with ${code}`);
  });
  return {
    get runs() {
      return Atomics.load(runs, 0);
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      const exited = new Promise<void>((resolve) =>
        worker.once('exit', () => {
          resolve();
        }),
      );
      worker.postMessage('stop');
      await exited;
      checkpointOnEventLoop();
    },
  };
}
