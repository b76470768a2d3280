/**
 * `npm run bench:http [-- --runs 3 --seconds 10 --connections 32]`: Tally's REST edges against
 * the framework's floor, measured with autocannon over loopback in one run. Each server runs in
 * its own process (never inside the load generator): Tally as `npm start` runs it (dist/, SQLite
 * in a temporary directory; a fresh server for each measurement), a bare `node:http` server and a bare Fastify app
 * (bench/baselines/). Every run measures each pair back to back, so each ratio compares numbers
 * taken under the same machine load; the table gives the median and range over the runs.
 *
 *   POST …/increment   Tally   vs  bare node:http answering a small JSON body   (target ≥ 0.6×)
 *   GET  …/counters    Tally   vs  bare node:http                                (reported)
 *   GET  /api/health   Tally   vs  bare Fastify `GET /hello`                     (target ≥ 0.7×)
 *   GET  /             Tally   vs  bare @fastify/static, same file, brotli       (target ≈ 1×)
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadAverage, median } from './stats.js';
import autocannon from 'autocannon';
import { sampleProcess } from './proc.js';
import { beforeCheckout } from './checkout.js';
import { startBaseline, startTally, stopServer, type ServerProcess } from './targets.js';

const { values: args } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '10' },
    connections: { type: 'string', default: '32' },
    curve: { type: 'string', default: '1,8,32,128' },
    /** Another checkout's build, measured in the same runs as "before" (bench/checkout.ts). */
    before: { type: 'string' },
  },
});
const BEFORE = beforeCheckout(args.before);
const RUNS = Number(args.runs);
const SECONDS = Number(args.seconds);
const CONNECTIONS = Number(args.connections);
/** Connections of the increment curve: the same comparison below, at and past the table's 32. */
const CURVE = args.curve
  .split(',')
  .filter(Boolean)
  .map((connections) => Number(connections));
/** Each curve point's measurement, s. */
const CURVE_SECONDS = 5;

/** Load before each measurement, so a cold JIT and empty caches do not count, s. */
const WARMUP_SECONDS = 2;

interface Measurement {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Answers that were not 2xx, or connection errors and timeouts. */
  failures: number;
  /** The server's CPU time (user + system) per answered request, µs: what an answer costs it,
   * whatever the load generator's share of the machine. */
  cpuMicrosPerRequest: number;
}

interface Request {
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
}

async function measure(
  server: ServerProcess,
  request: Request,
  seconds: number,
  connections = CONNECTIONS,
): Promise<Measurement> {
  const port = server.port;
  const before = sampleProcess(server.child.pid ?? 0);
  const result = await autocannon({
    url: `http://127.0.0.1:${port}${request.path}`,
    method: request.method,
    headers: request.headers,
    connections,
    duration: seconds,
  });
  return {
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    failures: result.non2xx + result.errors + result.timeouts,
    cpuMicrosPerRequest:
      ((sampleProcess(server.child.pid ?? 0).cpuSeconds - before.cpuSeconds) * 1e6) /
      Math.max(1, result.requests.total),
  };
}

async function measureWarm(
  server: ServerProcess,
  request: Request,
  seconds = SECONDS,
  connections = CONNECTIONS,
): Promise<Measurement> {
  await measure(server, request, WARMUP_SECONDS, connections);
  return measure(server, request, seconds, connections);
}

interface Scenario {
  name: string;
  target: string;
  baselineName: string;
  baseline: 'bareHttp' | 'bareFastify';
  tally: (group: Group) => Request;
  baselineRequest: Request;
}

interface Group {
  name: string;
  key: string;
  counterId: string;
}

const brotli = { 'accept-encoding': 'br' };

const SCENARIOS: Scenario[] = [
  {
    name: 'POST …/increment',
    target: '≥ 0.6×',
    baselineName: 'bare node:http',
    baseline: 'bareHttp',
    tally: (group) => ({
      method: 'POST',
      path: `/api/groups/${group.name}/counters/${group.counterId}/increment`,
      headers: { authorization: `Bearer ${group.key}` },
    }),
    baselineRequest: { method: 'POST', path: '/increment' },
  },
  {
    name: 'GET …/counters',
    target: 'reported',
    baselineName: 'bare node:http',
    baseline: 'bareHttp',
    tally: (group) => ({
      method: 'GET',
      path: `/api/groups/${group.name}/counters`,
      headers: { authorization: `Bearer ${group.key}` },
    }),
    baselineRequest: { method: 'GET', path: '/counters' },
  },
  {
    name: 'GET /api/health',
    target: '≥ 0.7×',
    baselineName: 'bare Fastify hello',
    baseline: 'bareFastify',
    tally: () => ({ method: 'GET', path: '/api/health' }),
    baselineRequest: { method: 'GET', path: '/hello' },
  },
  {
    name: 'GET / (index.html, br)',
    target: '≈ 1×',
    baselineName: 'bare @fastify/static',
    baseline: 'bareFastify',
    tally: () => ({ method: 'GET', path: '/', headers: brotli }),
    baselineRequest: { method: 'GET', path: '/', headers: brotli },
  },
];

async function setupGroup(port: number): Promise<Group> {
  const base = `http://127.0.0.1:${port}`;
  const name = `bench-${randomBytes(4).toString('hex')}`;
  const key = randomBytes(32).toString('hex');
  const joined = await fetch(`${base}/api/groups/${name}/join`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ key }),
  });
  if (!joined.ok) throw new Error(`join: ${joined.status}`);
  // A group of a few counters, like a real one: GET …/counters answers all of them.
  let counterId = '';
  for (let index = 0; index < 5; index++) {
    const created = await fetch(`${base}/api/groups/${name}/counters`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
    });
    if (!created.ok) throw new Error(`create counter: ${created.status}`);
    counterId ||= ((await created.json()) as { id: string }).id;
  }
  return { name, key, counterId };
}

const spread = (numbers: number[], digits = 0): string =>
  `${median(numbers).toFixed(digits)} (${Math.min(...numbers).toFixed(digits)}–${Math.max(...numbers).toFixed(digits)})`;

interface Row {
  tally: Measurement[];
  baseline: Measurement[];
  ratios: number[];
  /** The --before build's measurements, same runs. */
  before: Measurement[];
}

async function main(): Promise<void> {
  if (!fs.existsSync(path.resolve(import.meta.dirname, '../dist/server/main.js')))
    throw new Error('dist/ is missing: run `npm run build` first');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tally-bench-http-'));
  console.log(
    `bench:http — ${RUNS} runs × ${SECONDS} s per measurement, ${CONNECTIONS} connections, ` +
      `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'CPU'}, Node ${process.version}`,
  );
  console.log(`load average (1, 5, 15 min) at start: ${loadAverage()}`);
  const rows = new Map<string, Row>(
    SCENARIOS.map((scenario) => [
      scenario.name,
      { tally: [], baseline: [], ratios: [], before: [] },
    ]),
  );
  const curve = new Map<number, Row>(
    CURVE.map((connections) => [connections, { tally: [], baseline: [], ratios: [], before: [] }]),
  );
  const servers: ServerProcess[] = [];
  let fresh = 0;
  /**
   * Each Tally measurement gets a fresh server on a fresh database: what one scenario leaves
   * behind (a WAL being checkpointed by the worker thread after thousands of increments, a grown
   * heap) must not be billed to the next one's CPU per request.
   */
  const withFreshTally = async <T>(
    measure: (tally: ServerProcess, group: Group) => Promise<T>,
    root?: string,
  ) => {
    fresh += 1;
    const tally = await startTally(
      { DATABASE_URL: `file:${path.join(dir, `tally-${fresh}.sqlite`)}` },
      root,
    );
    try {
      return await measure(tally, await setupGroup(tally.port));
    } finally {
      await stopServer(tally);
    }
  };
  try {
    const bareHttp = await startBaseline('bench/baselines/bare-http.ts');
    servers.push(bareHttp);
    const bareFastify = await startBaseline('bench/baselines/bare-fastify.ts');
    servers.push(bareFastify);
    const baselines = { bareHttp, bareFastify };
    for (let run = 1; run <= RUNS; run++) {
      for (const scenario of SCENARIOS) {
        const row = rows.get(scenario.name);
        if (!row) continue;
        const base = await measureWarm(baselines[scenario.baseline], scenario.baselineRequest);
        const ours = await withFreshTally((tally, group) =>
          measureWarm(tally, scenario.tally(group)),
        );
        row.baseline.push(base);
        row.tally.push(ours);
        row.ratios.push(ours.requestsPerSecond / base.requestsPerSecond);
        if (BEFORE) {
          const earlier = await withFreshTally(
            (tally, group) => measureWarm(tally, scenario.tally(group)),
            BEFORE.root,
          );
          row.before.push(earlier);
          console.log(
            `run ${run} ${scenario.name}: Tally before (${BEFORE.label}) ${earlier.requestsPerSecond.toFixed(0)}/s ` +
              `(${earlier.cpuMicrosPerRequest.toFixed(1)} µs CPU/req)`,
          );
        }
        console.log(
          `run ${run} ${scenario.name}: Tally ${ours.requestsPerSecond.toFixed(0)}/s ` +
            `(p50 ${ours.p50Ms} ms, p99 ${ours.p99Ms} ms, ${ours.cpuMicrosPerRequest.toFixed(1)} µs CPU/req, ${ours.failures} failed), ` +
            `${scenario.baselineName} ${base.requestsPerSecond.toFixed(0)}/s (${base.cpuMicrosPerRequest.toFixed(1)} µs CPU/req) ` +
            `→ ${(ours.requestsPerSecond / base.requestsPerSecond).toFixed(2)}×`,
        );
      }
      const increment = SCENARIOS[0];
      if (!increment) continue;
      for (const [connections, row] of curve) {
        const base = await measureWarm(
          bareHttp,
          increment.baselineRequest,
          CURVE_SECONDS,
          connections,
        );
        const ours = await withFreshTally((tally, group) =>
          measureWarm(tally, increment.tally(group), CURVE_SECONDS, connections),
        );
        row.baseline.push(base);
        row.tally.push(ours);
        row.ratios.push(ours.requestsPerSecond / base.requestsPerSecond);
        console.log(
          `run ${run} increments, ${connections} connections: Tally ${ours.requestsPerSecond.toFixed(0)}/s ` +
            `(p50 ${ours.p50Ms} ms, p99 ${ours.p99Ms} ms), bare node:http ${base.requestsPerSecond.toFixed(0)}/s`,
        );
      }
    }
  } finally {
    await Promise.all(servers.map(stopServer));
    fs.rmSync(dir, { recursive: true, force: true });
  }

  console.log(`\nload average (1, 5, 15 min) at end: ${loadAverage()}`);
  console.log('cells: median (min–max) over the runs\n');
  const beforeHeader = BEFORE ? ` before (${BEFORE.label}) req/s | before CPU µs/req |` : '';
  console.log(
    `| request | Tally req/s | p50 / p99 ms | CPU µs/req Tally / baseline | baseline | baseline req/s | ratio | target |${beforeHeader}`,
  );
  console.log(`|---|---|---|---|---|---|---|---|${BEFORE ? '---|---|' : ''}`);
  for (const scenario of SCENARIOS) {
    const row = rows.get(scenario.name);
    if (!row) continue;
    const ratio = median(row.ratios);
    const beforeCells = BEFORE
      ? ` ${spread(row.before.map((m) => m.requestsPerSecond))} | ${median(row.before.map((m) => m.cpuMicrosPerRequest)).toFixed(1)} |`
      : '';
    console.log(
      `| ${scenario.name} | ${spread(row.tally.map((m) => m.requestsPerSecond))} | ` +
        `${median(row.tally.map((m) => m.p50Ms))} / ${median(row.tally.map((m) => m.p99Ms))} | ` +
        `${median(row.tally.map((m) => m.cpuMicrosPerRequest)).toFixed(1)} / ${median(row.baseline.map((m) => m.cpuMicrosPerRequest)).toFixed(1)} | ` +
        `${scenario.baselineName} | ${spread(row.baseline.map((m) => m.requestsPerSecond))} | ` +
        `**${ratio.toFixed(2)}×** (${Math.min(...row.ratios).toFixed(2)}–${Math.max(...row.ratios).toFixed(2)}) | ${scenario.target} |${beforeCells}`,
    );
  }
  if (curve.size > 0) {
    console.log('\nPOST …/increment by connections (curve): median (min–max) over the runs\n');
    console.log(
      '| connections | Tally req/s | Tally p50 / p99 ms | bare node:http req/s | ratio |',
    );
    console.log('|---|---|---|---|---|');
    for (const [connections, row] of curve) {
      console.log(
        `| ${connections} | ${spread(row.tally.map((m) => m.requestsPerSecond))} | ` +
          `${median(row.tally.map((m) => m.p50Ms))} / ${median(row.tally.map((m) => m.p99Ms))} | ` +
          `${spread(row.baseline.map((m) => m.requestsPerSecond))} | ` +
          `${median(row.ratios).toFixed(2)}× (${Math.min(...row.ratios).toFixed(2)}–${Math.max(...row.ratios).toFixed(2)}) |`,
      );
    }
  }
  const failures = [...rows.values(), ...curve.values()]
    .flatMap((row) => [...row.tally, ...row.before])
    .reduce((sum, m) => sum + m.failures, 0);
  if (failures > 0) {
    console.log(`\n${failures} of Tally's answers were not 2xx: the numbers above are not valid.`);
    process.exitCode = 1;
  }
}

await main();
