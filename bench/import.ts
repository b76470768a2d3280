/**
 * `npm run bench:import`: whether an import holds other groups up (ADR 37,
 * docs/benchmarks.md#import). A server in this process (SQLite by default, `--store postgres`
 * with DATABASE_URL) and, over a real WebSocket, a member of another group tapping at a steady
 * rate (TAPS_PER_SECOND). In the same run: the member tapping with no import (the baseline),
 * then while one group imports a BetterCounter file of ROWS rows (one counter, ROWS − 1 taps).
 * Reports the member's answer p50 and p99 in each phase and their ratio, the longest stall of
 * the event loop in each phase (perf_hooks monitorEventLoopDelay, 1 ms resolution), how long the
 * import took, and the load average. The server and the member share this process's event loop:
 * the stall is the server's, the member's own work per tap is a few microseconds.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import pg from 'pg';
import WebSocket from 'ws';
import { buildApp } from '../src/server/app.js';
import type { DatabaseConfig } from '../src/server/config.js';
import { PROTOCOL_VERSION, livePath, type ServerMessage } from '../src/shared/protocol.js';
import { Histogram } from './histogram.js';
import { loadAverage } from './stats.js';

const ROWS = Number(process.env.ROWS ?? 100_000);
const TAPS_PER_SECOND = Number(process.env.TAPS_PER_SECOND ?? 50);
const BASELINE_MS = Number(process.env.BASELINE_MS ?? 5_000);
const store = process.argv.includes('--store')
  ? process.argv[process.argv.indexOf('--store') + 1]
  : 'sqlite';

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

/** A member's socket that taps a counter; `tap` resolves with the answer's time, ms. */
async function member(url: string, group: { name: string; key: string }, counterId: string) {
  const socket = new WebSocket(url.replace('http', 'ws') + livePath(group.name));
  const waiting = new Map<string, { sent: number; resolve: (ms: number) => void }>();
  let ready: () => void = () => undefined;
  const isReady = new Promise<void>((resolve) => {
    ready = resolve;
  });
  socket.on('message', (data: Buffer) => {
    const message = JSON.parse(data.toString()) as ServerMessage;
    if (message.type === 'ready') ready();
    if (message.type === 'ack' || (message.type === 'error' && message.opId !== undefined)) {
      const opId = message.opId ?? '';
      const pending = waiting.get(opId);
      if (!pending) return;
      waiting.delete(opId);
      if (message.type === 'error') throw new Error(`a tap failed: ${message.error.message}`);
      pending.resolve(performance.now() - pending.sent);
    }
  });
  await new Promise((resolve) => socket.once('open', resolve));
  socket.send(JSON.stringify({ type: 'auth', protocol: PROTOCOL_VERSION, key: group.key }));
  await isReady;
  let next = 0;
  return {
    tap: () =>
      new Promise<number>((resolve) => {
        next += 1;
        const opId = `bench-import-${String(next)}`;
        waiting.set(opId, { sent: performance.now(), resolve });
        socket.send(
          JSON.stringify({
            type: 'mutate',
            opId,
            mutation: { kind: 'adjustCounter', counterId, direction: 'increment', times: 1 },
          }),
        );
      }),
    close: () => {
      socket.close();
    },
  };
}

/** Taps at TAPS_PER_SECOND until `until` resolves; the answers' times and the loop's longest stall. */
async function tapping(tap: () => Promise<number>, until: Promise<unknown>) {
  const answers = new Histogram();
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  const state = { done: false };
  void until.finally(() => {
    state.done = true;
  });
  const inFlight: Promise<void>[] = [];
  const start = performance.now();
  for (let sent = 0; !state.done; sent += 1) {
    inFlight.push(
      tap().then((ms) => {
        answers.recordMicros(ms * 1_000);
      }),
    );
    // A steady rate, whatever the answers take: each tap at its own time since the start.
    const due = start + ((sent + 1) * 1_000) / TAPS_PER_SECOND;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - performance.now())));
  }
  await Promise.all(inFlight);
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
    const times = Array.from({ length: ROWS - 1 }, (_, index) => 1_700_000_000_000 + index * 1_000);
    const file = `Steps,${times.join(',')}\n`;

    const baseline = await tapping(
      tapper.tap,
      new Promise((resolve) => setTimeout(resolve, BASELINE_MS)),
    );
    const started = performance.now();
    let tookMs = 0;
    const imported = call(url, 'POST', `/api/groups/${importing.name}/import`, {
      key: importing.key,
      body: file,
      type: 'text/csv',
    }).then((answer) => {
      tookMs = performance.now() - started;
      if (answer.status !== 200) throw new Error(`import failed: ${JSON.stringify(answer.body)}`);
      return answer.body as { entries: number };
    });
    const during = await tapping(tapper.tap, imported);
    const summary = await imported;
    tapper.close();

    const row = (label: string, run: Awaited<ReturnType<typeof tapping>>) =>
      `| ${label} | ${String(run.answers.count)} | ${(run.answers.percentile(0.5) / 1_000).toFixed(1)} | ${(run.answers.percentile(0.99) / 1_000).toFixed(1)} | ${run.longestStallMs.toFixed(1)} |`;
    console.log(
      `store ${store}, ${ROWS.toLocaleString('en-US')} rows (${(file.length / 1e6).toFixed(1)} MB), ` +
        `${String(summary.entries)} entries imported in ${(tookMs / 1_000).toFixed(2)} s, ` +
        `another group's member tapping ${String(TAPS_PER_SECOND)}/s over a WebSocket; load average ${loadAverage()}`,
    );
    console.log('| phase | taps | p50 ms | p99 ms | longest event-loop stall ms |');
    console.log('| --- | ---: | ---: | ---: | ---: |');
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
