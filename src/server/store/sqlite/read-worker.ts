/**
 * Heavy reads of SQLite off the event loop (per-member tallies: a group's whole activity
 * log, up to 100,000 entries, added up per member). better-sqlite3 is synchronous: a 100 ms read on
 * the event loop would hold every tap of every group for 100 ms. A worker thread with its own
 * read-only connection runs them instead (WAL lets it read while the server writes), one at a
 * time, so a burst of them queues here and never in front of anyone's tap.
 */
import { Worker } from 'node:worker_threads';
import { sqliteDriverPath } from './driver.js';

/** Runs in the worker as CommonJS (`eval`), like the checkpointer, for dist/ and test runs. */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { readonly: true, fileMustExist: true });
db.pragma('busy_timeout = 1000');
const statements = new Map();
parentPort.on('message', (message) => {
  if (message === 'stop') {
    db.close();
    parentPort.close();
    return;
  }
  try {
    let statement = statements.get(message.sql);
    if (!statement) {
      statement = db.prepare(message.sql);
      statements.set(message.sql, statement);
    }
    parentPort.postMessage({ id: message.id, rows: statement.all(...message.params) });
  } catch (error) {
    parentPort.postMessage({ id: message.id, error: String((error && error.message) || error) });
  }
});
`;

type Parameter = string | number | null;

interface Answer {
  id: number;
  rows?: unknown[];
  error?: string;
}

export interface ReadWorker {
  /** The rows of one SELECT, read by the worker's own connection. */
  all<T>(sql: string, params: readonly Parameter[]): Promise<T[]>;
  stop(): Promise<void>;
}

/** Starts a reader of `file`. A worker that fails rejects its reads with the reason. */
export function startReadWorker(file: string): ReadWorker {
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { file, driver: sqliteDriverPath() },
  });
  worker.unref();
  const waiting = new Map<
    number,
    { resolve: (rows: unknown[]) => void; reject: (error: Error) => void }
  >();
  let next = 0;
  let failure: Error | undefined;
  const failAll = (error: Error) => {
    failure = error;
    for (const pending of waiting.values()) pending.reject(error);
    waiting.clear();
  };
  worker.on('message', (answer: Answer) => {
    const pending = waiting.get(answer.id);
    if (!pending) return;
    waiting.delete(answer.id);
    if (answer.error !== undefined) pending.reject(new Error(answer.error));
    else pending.resolve(answer.rows ?? []);
  });
  worker.on('error', (error) => {
    failAll(error);
  });
  worker.on('exit', (code) => {
    failAll(new Error(`SQLite read worker exited with ${code}`));
  });
  return {
    all<T>(sql: string, params: readonly Parameter[]): Promise<T[]> {
      if (failure) return Promise.reject(failure);
      const id = ++next;
      return new Promise<T[]>((resolve, reject) => {
        waiting.set(id, {
          resolve: (rows) => {
            resolve(rows as T[]);
          },
          reject,
        });
        // While a read is waiting the worker must keep the process alive; idle, it must not.
        if (waiting.size === 1) worker.ref();
        worker.postMessage({ id, sql, params });
      }).finally(() => {
        if (waiting.size === 0) worker.unref();
      });
    },
    async stop() {
      if (failure) return;
      const exited = new Promise<void>((resolve) => {
        worker.once('exit', () => {
          resolve();
        });
      });
      worker.postMessage('stop');
      await exited;
    },
  };
}
