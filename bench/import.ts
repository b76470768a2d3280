/**
 * `npm run bench:import`: whether an import holds other groups up (ADR 37,
 * docs/benchmarks.md#import). A server in this process (SQLite by default, `--store postgres`
 * with DATABASE_URL) and, over a real WebSocket, a member of another group tapping at a steady
 * rate (TAPS_PER_SECOND). In the same run: the member tapping with no import (the baseline),
 * then while one group imports the largest file of one kind (`--file KIND`, bench/import-files.ts;
 * by default a BetterCounter file of 100,000 rows: one counter, 99,999 taps). Files past the
 * group's counters quota are read whole and then refused: their answer's status is reported.
 * Reports the member's answer p50, p99 and max in each phase and their ratio, the longest stall of
 * the server's event loop in each phase (perf_hooks monitorEventLoopDelay, 1 ms resolution), how
 * long the import took, and the load average. The member runs on a thread of its own, so it goes
 * on tapping, and timing, while the server's loop is held.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import pg from 'pg';
import { buildApp } from '../src/server/app.js';
import type { DatabaseConfig } from '../src/server/config.js';
import { PROTOCOL_VERSION, livePath } from '../src/shared/protocol.js';
import { Histogram } from './histogram.js';
import { IMPORT_FILE_KINDS, largestImportFile, type ImportFileKind } from './import-files.js';
import { loadAverage } from './stats.js';

const TAPS_PER_SECOND = Number(process.env.TAPS_PER_SECOND ?? 50);
const BASELINE_MS = Number(process.env.BASELINE_MS ?? 5_000);
const store = process.argv.includes('--store')
  ? process.argv[process.argv.indexOf('--store') + 1]
  : 'sqlite';
const fileKind = (
  process.argv.includes('--file')
    ? process.argv[process.argv.indexOf('--file') + 1]
    : 'bettercounter'
) as ImportFileKind;
if (!IMPORT_FILE_KINDS.includes(fileKind)) {
  throw new Error(`--file must be one of ${IMPORT_FILE_KINDS.join(', ')}`);
}

async function call(
  url: string,
  method: string,
  route: string,
  { key, body, type }: { key?: string; body?: string; type?: string } = {},
): Promise<{ status: number; body: unknown }> {
  const answer = await fetch(url + route, {
    method,
    headers: {
      ...(key === undefined ? {} : { authorization: `Bearer ${key}` }),
      ...(body === undefined ? {} : { 'content-type': type ?? 'application/json' }),
    },
    ...(body === undefined ? {} : { body }),
  });
  return { status: answer.status, body: await answer.json() };
}

async function newGroup(url: string, name: string): Promise<{ name: string; key: string }> {
  const key = Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString('hex');
  const joined = await call(url, 'POST', `/api/groups/${name}/join`, {
    body: JSON.stringify({ key }),
  });
  if (joined.status !== 201) throw new Error(`join failed: ${String(joined.status)}`);
  return { name, key };
}

/**
 * The member, in a worker thread of its own (plain JavaScript, `ws` by its resolved path): it
 * keeps tapping on time, and times each answer, while the server's event loop is held, so its
 * answer times show the whole of a stall (sharing the server's loop, it could not send during
 * one). `start` begins a phase of taps at TAPS_PER_SECOND, `stop` ends it and posts the answers'
 * times (ms) once every tap sent is answered.
 */
const MEMBER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const WebSocket = require(workerData.ws);
const { url, key, counterId, tapsPerSecond, auth } = workerData;
const socket = new WebSocket(url);
const sent = new Map();
let times = [];
let timer = null;
let next = 0;
let stopping = false;
let closed = null;
const finish = () => {
  if (stopping && (sent.size === 0 || closed !== null)) {
    stopping = false;
    parentPort.postMessage({ times, unanswered: sent.size, closed });
  }
};
socket.on('message', (data) => {
  const message = JSON.parse(data.toString());
  if (message.type === 'ready') parentPort.postMessage({ ready: true });
  if (message.type === 'error') {
    throw new Error('a tap failed: ' + JSON.stringify(message.error));
  }
  if (message.type === 'ack' && sent.has(message.opId)) {
    times.push(performance.now() - sent.get(message.opId));
    sent.delete(message.opId);
    finish();
  }
});
socket.on('open', () => socket.send(JSON.stringify({ ...auth, key })));
// A socket the server closed answers nothing more: the phase ends with what it had.
socket.on('close', (code, reason) => {
  closed = code + ' ' + reason.toString();
  finish();
});
parentPort.on('message', (command) => {
  if (command === 'start') {
    times = [];
    const start = performance.now();
    let count = 0;
    // A steady rate, whatever the answers take: each tap at its own time since the start.
    const tap = () => {
      next += 1;
      const opId = 'bench-import-' + next;
      sent.set(opId, performance.now());
      socket.send(JSON.stringify({
        type: 'mutate',
        opId,
        mutation: { kind: 'adjustCounter', counterId, direction: 'increment', times: 1 },
      }));
      count += 1;
      timer = setTimeout(tap, Math.max(0, start + (count * 1000) / tapsPerSecond - performance.now()));
    };
    tap();
  } else if (command === 'stop') {
    clearTimeout(timer);
    stopping = true;
    finish();
  } else if (command === 'close') {
    socket.close();
    parentPort.close();
  }
});
`;

/** A member of `group` on its own thread, tapping `counterId` when a phase runs. */
async function member(url: string, group: { name: string; key: string }, counterId: string) {
  const worker = new Worker(MEMBER_SOURCE, {
    eval: true,
    workerData: {
      ws: createRequire(import.meta.url).resolve('ws'),
      url: url.replace('http', 'ws') + livePath(group.name),
      key: group.key,
      counterId,
      tapsPerSecond: TAPS_PER_SECOND,
      auth: { type: 'auth', protocol: PROTOCOL_VERSION },
    },
  });
  await new Promise<void>((resolve, reject) => {
    worker.once('error', reject);
    worker.once('message', () => {
      resolve();
    });
  });
  return {
    /** Taps until `until` settles; the answers' times. */
    phase: async (until: Promise<unknown>): Promise<Histogram> => {
      const answers = new Histogram();
      const times = new Promise<number[]>((resolve, reject) => {
        worker.once('error', reject);
        worker.once(
          'message',
          (message: { times: number[]; unanswered: number; closed: string | null }) => {
            if (message.closed !== null) {
              reject(
                new Error(
                  `the server closed the member's socket (${message.closed}), ${String(message.unanswered)} taps unanswered`,
                ),
              );
            }
            resolve(message.times);
          },
        );
      });
      worker.postMessage('start');
      await until.catch(() => undefined);
      worker.postMessage('stop');
      for (const ms of await times) answers.recordMicros(ms * 1_000);
      return answers;
    },
    close: () => worker.terminate(),
  };
}

/** The member's answers while `until` runs, and the server's event loop's longest stall. */
async function tapping(tapper: Awaited<ReturnType<typeof member>>, until: Promise<unknown>) {
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  const answers = await tapper.phase(until);
  loop.disable();
  return { answers, longestStallMs: loop.max / 1e6 };
}

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tally-bench-import-'));
  // PostgreSQL: a schema of the run's own, dropped at its end.
  const schema = `tally_bench_import_${Date.now().toString(36)}`;
  const postgresUrl = new URL(process.env.DATABASE_URL ?? 'postgres://127.0.0.1/tally');
  postgresUrl.searchParams.set('schema', schema);
  const database: DatabaseConfig =
    store === 'postgres'
      ? { kind: 'postgres', url: postgresUrl.toString(), poolSize: 10 }
      : { kind: 'sqlite', file: path.join(dir, 'tally.sqlite') };
  const app = await buildApp({
    config: { port: 0, host: '127.0.0.1', database, logLevel: 'warn' },
    webRoot: null,
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  const url = `http://127.0.0.1:${String(address.port)}`;
  try {
    const stamp = Date.now().toString(36);
    const other = await newGroup(url, `bench-other-${stamp}`);
    const importing = await newGroup(url, `bench-import-${stamp}`);
    const counter = await call(url, 'POST', `/api/groups/${other.name}/counters`, {
      key: other.key,
      body: JSON.stringify({ name: 'Door' }),
    });
    const tapper = await member(url, other, (counter.body as { id: string }).id);
    const file = largestImportFile(fileKind);

    const baseline = await tapping(
      tapper,
      new Promise((resolve) => setTimeout(resolve, BASELINE_MS)),
    );
    const started = performance.now();
    let tookMs = 0;
    const imported = call(url, 'POST', `/api/groups/${importing.name}/import`, {
      key: importing.key,
      body: file.body,
      type: file.type,
    }).then((answer) => {
      tookMs = performance.now() - started;
      // A file past the counters quota is refused after it was read: what this bench is about.
      if (answer.status !== 200 && answer.status !== 409 && answer.status !== 413) {
        throw new Error(`import failed: ${JSON.stringify(answer.body)}`);
      }
      return answer;
    });
    const during = await tapping(tapper, imported);
    const answer = await imported;
    const outcome =
      answer.status === 200
        ? `${String((answer.body as { entries: number }).entries)} entries imported`
        : `answered ${String(answer.status)}`;
    await tapper.close();

    const row = (label: string, run: Awaited<ReturnType<typeof tapping>>) =>
      `| ${label} | ${String(run.answers.count)} | ${(run.answers.percentile(0.5) / 1_000).toFixed(1)} | ${(run.answers.percentile(0.99) / 1_000).toFixed(1)} | ${(run.answers.max / 1_000).toFixed(1)} | ${run.longestStallMs.toFixed(1)} |`;
    console.log(
      `store ${store}, file ${fileKind}: ${file.rows.toLocaleString('en-US')} rows (${(Buffer.byteLength(file.body) / 1024 / 1024).toFixed(2)} MB), ` +
        `${outcome} in ${(tookMs / 1_000).toFixed(2)} s, ` +
        `another group's member tapping ${String(TAPS_PER_SECOND)}/s over a WebSocket; load average ${loadAverage()}`,
    );
    console.log('| phase | taps | p50 ms | p99 ms | max ms | longest event-loop stall ms |');
    console.log('| --- | ---: | ---: | ---: | ---: | ---: |');
    console.log(row('no import', baseline));
    console.log(row('during the import', during));
    const ratio = (p: number) =>
      (during.answers.percentile(p) / baseline.answers.percentile(p)).toFixed(2);
    console.log(`ratio during/no import: p50 ${ratio(0.5)}×, p99 ${ratio(0.99)}×`);
  } finally {
    await app.close();
    fs.rmSync(dir, { recursive: true, force: true });
    if (store === 'postgres') {
      const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
      await admin.connect();
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await admin.end();
    }
  }
}

await main();
