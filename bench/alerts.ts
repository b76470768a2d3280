/**
 * Alerts under load (docs/benchmarks.md#alerts), two measurements:
 *
 * - **Cost on the hot path**: the hot path's groups and rates (hotpath.ts), each group with a
 *   `standard` webhook rule `every N` on its counter, against the same server with no rules, in
 *   the same run. Both servers run with ALERTS_ALLOW_PRIVATE_TARGETS=true (the receiver is on
 *   loopback), so the only difference is the rules. Both first tap at the lowest rate until every
 *   group has fired its first alert (a destination's first alert opens its connection, once in a
 *   server's life), unmeasured. Server CPU per acknowledged tap during the
 *   window includes the sender's work only as far as it kept up (under heavy tapping it falls
 *   behind and catches up after the window), so each step also counts the server's CPU from the
 *   window's start until every alert fired so far has arrived and the server is idle again
 *   ("to idle": the no-rules server is measured the same way).
 * - **Delivery latency**: groups of one tapping member, each tapping slowly enough to stay well
 *   under the sender's 60 deliveries a minute per group (so nothing is folded); for each alert,
 *   the time to the receiver getting the request from the tap's acknowledgement at the load
 *   generator (the commit is before it), from the alert's own `at` (the change's time on the
 *   server's clock) and from the tap's sending. On SQLite, and on PostgreSQL when asked for.
 *
 * The receiver is node:http in a worker thread of the load generator, answering 204 without
 * checking the signature; it timestamps each request on the monotonic clock the generator uses.
 * Every alert fired must reach it exactly once: per group, the counter's final value says how
 * many multiples were crossed, and the receiver counts the distinct `webhook-id`s (an alert that
 * stands for folded ones counts for them too).
 */
import { randomBytes } from 'node:crypto';
import { int, ms, fixed } from './stats.js';
import { Worker } from 'node:worker_threads';
import { Histogram } from './histogram.js';
import { quiesce, type HotpathShape } from './hotpath.js';
import { openLoop, populate, sleep, type LoadResult, type Population } from './load.js';
import { mainThreadCpuSeconds, sampleProcesses } from './proc.js';
import { spread } from './stores-report.js';
import { json, type GroupSetup, type RunningTarget, type Target } from './targets.js';

/** What the receiver saw of one request. */
export interface ReceivedAlert {
  /** Which server's run it belongs to: the hook URL's last path segment. */
  token: string;
  /** `webhook-id`: the same on every retry of one alert. */
  id: string;
  /** When the request's headers arrived, µs on the load generator's clock (performance.now). */
  atMicros: number;
  /** When the request's headers arrived, µs on the monotonic clock (process.hrtime). */
  atMonotonicMicros: number;
  /** When the request's headers arrived, epoch ms (fractional). */
  atEpochMs: number;
  /** The body's `at`: when the change was made, epoch ms on the server's clock (whole ms). */
  changedAtMs: number | null;
  group: string;
  type: string;
  multiple: number | null;
  folded: number;
  status: number;
}

export interface Receiver {
  /** The hook URL for one server's run: requests to it are told apart by `token`. */
  url(token: string): string;
  received: ReceivedAlert[];
  stop(): Promise<void>;
}

/**
 * The receiver, as plain JavaScript for a worker thread (no TypeScript loader needed there).
 * Time is read when the request's headers arrive; the body is parsed once it is all in.
 */
const RECEIVER_SOURCE = `
const http = require('node:http');
const { parentPort } = require('node:worker_threads');
const server = http.createServer((request, response) => {
  const at = Number(process.hrtime.bigint() / 1000n);
  const epoch = performance.timeOrigin + performance.now();
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    response.writeHead(204).end();
    let body = {};
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      body = {};
    }
    parentPort.postMessage({
      token: (request.url || '').split('/').pop() || '',
      id: String(request.headers['webhook-id'] || ''),
      at,
      epoch,
      changedAt: typeof body.at === 'string' ? Date.parse(body.at) : null,
      group: typeof body.group === 'string' ? body.group : '',
      type: typeof body.type === 'string' ? body.type : '',
      multiple: typeof body.multiple === 'number' ? body.multiple : null,
      folded: typeof body.folded === 'number' ? body.folded : 0,
      status: 204,
    });
  });
});
// Idle connections are kept a minute, as public receivers behind a load balancer keep them
// (AWS's default idle timeout; nginx keeps them 75 s): the sender reuses one per destination.
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => {
  parentPort.postMessage({ listening: server.address().port });
});
`;

interface ReceiverMessage {
  listening?: number;
  token?: string;
  id?: string;
  at?: number;
  epoch?: number;
  changedAt?: number | null;
  group?: string;
  type?: string;
  multiple?: number | null;
  folded?: number;
  status?: number;
}

const monotonicMicros = () => Number(process.hrtime.bigint() / 1_000n);

/** Starts the loopback receiver (a worker thread); resolves once it listens. */
export async function startReceiver(): Promise<Receiver> {
  // performance.now() and process.hrtime() run on the same monotonic clock: one offset maps the
  // worker's readings onto the generator's (load.ts times sends and acks with performance.now).
  const offset = monotonicMicros() - Math.round(performance.now() * 1_000);
  const worker = new Worker(RECEIVER_SOURCE, { eval: true });
  const received: ReceivedAlert[] = [];
  const port = await new Promise<number>((resolve, reject) => {
    worker.once('error', reject);
    worker.on('message', (message: ReceiverMessage) => {
      if (message.listening !== undefined) {
        resolve(message.listening);
        return;
      }
      const at = message.at ?? 0;
      received.push({
        token: message.token ?? '',
        id: message.id ?? '',
        atMicros: at - offset,
        atMonotonicMicros: at,
        atEpochMs: message.epoch ?? 0,
        changedAtMs: Number.isFinite(message.changedAt) ? (message.changedAt ?? null) : null,
        group: message.group ?? '',
        type: message.type ?? '',
        multiple: message.multiple ?? null,
        folded: message.folded ?? 0,
        status: message.status ?? 0,
      });
    });
  });
  return {
    url: (token) => `http://127.0.0.1:${port}/hook/${token}`,
    received,
    async stop() {
      await worker.terminate();
    },
  };
}

/** The settings every server of these measurements runs with: the receiver is on loopback. */
export const ALERTS_ENV = { ALERTS_ALLOW_PRIVATE_TARGETS: 'true' };

/** The API base of a running Tally's group, from where its members connect. */
function groupApi(running: RunningTarget, group: GroupSetup): string {
  return running
    .wsUrl(group)
    .replace(/^ws/, 'http')
    .replace(/\/live$/, '');
}

/** A hook URL token: one per server started, so a run counts only its own requests. */
const newToken = () => randomBytes(6).toString('hex');

/**
 * `target` with a `standard` webhook rule `every <every>` on each group's counter, made as the
 * group is set up (so before any tap), to `receiver` under a token of this start. `tokenOf`
 * tells the token of a running server.
 */
export function withEveryRule(
  target: Target,
  name: string,
  receiver: Receiver,
  every: number,
): Target & { tokenOf(running: RunningTarget): string | undefined } {
  const tokens = new WeakMap<RunningTarget, string>();
  return {
    ...target,
    name,
    tokenOf: (running) => tokens.get(running),
    async start() {
      const running = await target.start();
      const token = newToken();
      const setup = running.setupGroup.bind(running);
      const wrapped: RunningTarget = {
        ...running,
        async setupGroup(groupName) {
          const group = await setup(groupName);
          await json(`${groupApi(running, group)}/alerts`, {
            method: 'POST',
            headers: {
              authorization: `Bearer ${group.key}`,
              'content-type': 'application/json',
            },
            body: JSON.stringify({
              counterId: group.counterId,
              when: { kind: 'every', value: every },
              to: { kind: 'webhook', url: receiver.url(token), format: 'standard' },
            }),
          });
          return group;
        },
      };
      tokens.set(wrapped, token);
      return wrapped;
    },
  };
}

/** How the alerts a run's taps fired compare with what the receiver got. */
export interface AlertCount {
  /** Alerts the counters' final values say were fired (multiples crossed going up). */
  fired: number;
  /** Requests received (a retry of one alert counts again). */
  requests: number;
  /** Alerts received at least once, counting each for the ones it folded. */
  received: number;
  /** Requests repeating a `webhook-id` already received. */
  duplicated: number;
  /** Alerts fired and never received (by the drain deadline). */
  lost: number;
  /** Alerts received that were never fired (more than the final values allow). */
  extra: number;
  /** Alerts that arrived folded into another. */
  folded: number;
  /** Multiples received twice as separate alerts (two ids for one crossing). */
  repeatedMultiples: number;
}

/** Alerts fired by a group whose counter went from 0 to `value` by taps of +1. */
const firedUpTo = (value: number, every: number) => Math.floor(Math.max(0, value) / every);

/** The value each group's counter holds: every tap sent but those refused (checked by load.ts). */
const valueOf = (group: Population['groups'][number]) => group.sent - group.refused;

/** Counts the run's alerts (those under `token`) against what its groups' counters fired. */
export function countAlerts(
  population: Population,
  received: readonly ReceivedAlert[],
  token: string,
  every: number,
): AlertCount {
  const fired = population.groups.reduce((sum, group) => sum + firedUpTo(valueOf(group), every), 0);
  const ids = new Set<string>();
  const multiples = new Set<string>();
  const count = noAlerts(fired);
  for (const alert of received) {
    if (alert.token !== token) continue;
    count.requests += 1;
    if (ids.has(alert.id)) {
      count.duplicated += 1;
      continue;
    }
    ids.add(alert.id);
    count.received += 1 + alert.folded;
    count.folded += alert.folded;
    if (alert.multiple !== null) {
      const key = `${alert.group}/${alert.multiple}`;
      if (multiples.has(key)) count.repeatedMultiples += 1;
      multiples.add(key);
    }
  }
  count.lost = Math.max(0, fired - count.received);
  count.extra = Math.max(0, count.received - fired);
  return count;
}

/** Every alert fired has arrived (or more than that). */
const drained = (population: Population, receiver: Receiver, token: string, every: number) =>
  countAlerts(population, receiver.received, token, every).received >=
  population.groups.reduce((sum, group) => sum + firedUpTo(valueOf(group), every), 0);

/**
 * Waits until every alert fired has arrived, or `deadlineMs` passed (a lost alert never comes;
 * a postponed one comes within the group's minute).
 */
async function drain(
  population: Population,
  receiver: Receiver,
  token: string,
  every: number,
  deadlineMs: number,
): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  while (!drained(population, receiver, token, every) && Date.now() < deadline) await sleep(100);
  // A duplicate would come right after the original: a moment more to see it.
  await sleep(300);
}

/** How long a run waits for its last alerts: past one group's minute of deliveries. */
const DRAIN_DEADLINE_MS = 70_000;

export interface AlertsStep {
  rate: number;
  result: LoadResult;
  /** Server CPU time per tap acknowledged in the window, µs. */
  cpuMicrosPerTap: number;
  /**
   * Server CPU time from the window's start until every alert fired so far had arrived and the
   * server was idle again, per tap of the step, µs.
   */
  cpuToIdleMicrosPerTap: number;
  /**
   * The same for the servers' main threads alone, µs: the event loop every tap waits for,
   * without the worker threads (the alert courier's among them).
   */
  mainThreadToIdleMicrosPerTap: number;
  idleCpuCores: number;
  /** Alerts the step's taps fired, and those of them received by the window's end. */
  fired: number;
  receivedInWindow: number;
  /** From the window's end until the step's last alert arrived, ms (0 when none was left). */
  caughtUpMs: number;
}

/** The warm-up's length over what every group needs to fire its first alert: taps are spread unevenly. */
const WARM_UP_MARGIN = 1.5;

/** One target's steps in one run, and (with rules) its alerts counted after the drain. */
export interface AlertsCurve {
  target: Target;
  steps: AlertsStep[];
  alerts: AlertCount | null;
  /** Lost, duplicated and unanswered taps over the steps. */
  tapFailures: number;
}

type RuleTarget = ReturnType<typeof withEveryRule>;
const hasRules = (target: Target): target is RuleTarget => 'tokenOf' in target;

/**
 * The hot path scenario's run (hotpath.ts hotpathCurve: a fresh server, warm-up, rates
 * ascending, an idle server before each window) against `target`, counting its alerts.
 */
export async function alertsCurve(
  target: Target,
  shape: HotpathShape,
  every: number,
  receiver: Receiver,
  log: (message: string) => void,
): Promise<AlertsCurve> {
  const running = await target.start();
  const token = hasRules(target) ? target.tokenOf(running) : undefined;
  try {
    log(`${target.name}: alerts on the hot path, ${shape.groups} groups of ${shape.members}`);
    const population = await populate(target, running, 'alerts', shape.groups, shape.members, {
      tappers: shape.tappers,
    });
    const load = { members: shape.members, tappers: shape.tappers };
    try {
      await quiesce(running);
      // Long enough for every group to fire once: a destination's first alert makes its
      // connection (once in a server's life), which is not what a tap costs from then on.
      const warmUpRate = shape.rates[0] ?? 0;
      const firstAlertMs = warmUpRate > 0 ? ((every * shape.groups) / warmUpRate) * 1_000 : 0;
      await openLoop(population, running, target, {
        ...load,
        rate: warmUpRate,
        durationMs: Math.max(shape.warmUpMs, Math.ceil(firstAlertMs * WARM_UP_MARGIN)),
      });
      if (token !== undefined) await drain(population, receiver, token, every, DRAIN_DEADLINE_MS);
      const steps: AlertsStep[] = [];
      let tapFailures = 0;
      for (const rate of shape.rates) {
        const idleCpuCores = await quiesce(running);
        log(`${target.name}: ${rate}/s offered (server idle at ${idleCpuCores.toFixed(2)} cores)`);
        const firedBefore = population.groups.map((group) => firedUpTo(valueOf(group), every));
        const tapsBefore = population.groups.reduce((sum, group) => sum + valueOf(group), 0);
        const cpuBefore = sampleProcesses(running.pids);
        const mainBefore = mainThreadCpuSeconds(running.pids);
        const result = await openLoop(population, running, target, {
          ...load,
          rate,
          durationMs: shape.durationMs,
        });
        // The sender catches up after the window: its work counts until it is done.
        if (token !== undefined) await drain(population, receiver, token, every, DRAIN_DEADLINE_MS);
        await quiesce(running);
        const cpuToIdle = sampleProcesses(running.pids).cpuSeconds - cpuBefore.cpuSeconds;
        const mainToIdle = mainThreadCpuSeconds(running.pids) - mainBefore;
        const taps = population.groups.reduce((sum, group) => sum + valueOf(group), 0) - tapsBefore;
        const fired = population.groups.reduce(
          (sum, group, index) => sum + firedUpTo(valueOf(group), every) - (firedBefore[index] ?? 0),
          0,
        );
        const { startMicros, endMicros } = result.window;
        const mine =
          token === undefined
            ? []
            : receiver.received
                .filter((alert) => alert.token === token)
                .map((alert) => alert.atMonotonicMicros)
                .sort((a, b) => a - b);
        const receivedInWindow = mine.filter((at) => at >= startMicros && at <= endMicros).length;
        // Every alert fired so far has arrived (drain): the last of them is the step's last.
        const firedSoFar = population.groups.reduce(
          (sum, group) => sum + firedUpTo(valueOf(group), every),
          0,
        );
        const lastAt = mine[Math.min(firedSoFar, mine.length) - 1];
        const caughtUpMs = lastAt === undefined ? 0 : Math.max(0, (lastAt - endMicros) / 1_000);
        // load.ts's checks are cumulative: the last step's say it for the run.
        tapFailures = (result.lost ?? 0) + (result.duplicated ?? 0) + result.unanswered;
        steps.push({
          rate,
          result,
          cpuMicrosPerTap:
            result.incrementsPerSecond > 0
              ? (result.serverCpuCores / result.incrementsPerSecond) * 1e6
              : Number.NaN,
          cpuToIdleMicrosPerTap: taps > 0 ? (cpuToIdle / taps) * 1e6 : Number.NaN,
          mainThreadToIdleMicrosPerTap: taps > 0 ? (mainToIdle / taps) * 1e6 : Number.NaN,
          idleCpuCores,
          fired: token === undefined ? 0 : fired,
          receivedInWindow,
          caughtUpMs,
        });
      }
      let alerts: AlertCount | null = null;
      if (token !== undefined) {
        await drain(population, receiver, token, every, DRAIN_DEADLINE_MS);
        alerts = countAlerts(population, receiver.received, token, every);
      }
      return { target, steps, alerts, tapFailures };
    } finally {
      for (const client of population.clients) client.close();
    }
  } finally {
    await running.stop();
  }
}

export interface LatencyShape {
  /** Groups of one member, who taps. */
  groups: number;
  /** Taps a second per group: × 60 ÷ every = alerts a minute per group (≤ 50 keeps clear of 60). */
  tapsPerSecond: number;
  /** How long the groups tap, ms. */
  durationMs: number;
}

export interface LatencyRun {
  target: Target;
  /** Tap acknowledged at the generator → the receiver has the request. */
  fromAck: Histogram;
  /** Tap sent by the generator → the receiver has the request. */
  fromSend: Histogram;
  /**
   * The alert's `at` (the change's time, taken as its batch is applied, before the commit; on the
   * server's clock, whole ms) → the receiver has the request (the same machine's clock).
   */
  fromChange: Histogram;
  /** Alerts that arrived before their tap's acknowledgement did (recorded as 0 in fromAck). */
  beforeAck: number;
  /** Alerts with no latency sample (folded, or their tap's times unknown). */
  unmeasured: number;
  alerts: AlertCount;
  tapFailures: number;
  /** Taps refused `busy` (their groups' alerts cannot be matched to a tap: unmeasured). */
  refused: number;
  /** Taps acknowledged per second during the window. */
  ackedPerSecond: number;
  /** Client errors (socket errors, error frames other than busy). */
  errors: number;
  load: { start: string; end: string };
  /** Server CPU during the tapping window, cores. */
  serverCpuCores: number;
}

/** An acknowledgement frame's own operation number (load.ts numbers them `c<i>s<run>.<n>`). */
const ACK_OP = /"opId":"c\d+[so][0-9a-z]+[._](\d+)"/;

/**
 * One run of the delivery-latency measurement against a fresh start of `target` (which must
 * carry the rules: withEveryRule).
 */
export async function alertLatency(
  target: RuleTarget,
  shape: LatencyShape,
  every: number,
  receiver: Receiver,
  loadAverage: () => string,
  log: (message: string) => void,
): Promise<LatencyRun> {
  const start = loadAverage();
  const running = await target.start();
  const token = target.tokenOf(running);
  if (token === undefined) throw new Error('the latency target has no alert rules');
  try {
    log(
      `${target.name}: alert latency, ${shape.groups} groups tapping ${shape.tapsPerSecond}/s each`,
    );
    const population = await populate(target, running, 'latency', shape.groups, 1, {
      tappers: 1,
    });
    // Each tap's acknowledgement time, by the tapping client's index and the tap's number.
    const ackTimes = new Map<number, number[]>();
    for (const client of population.clients) {
      const times: number[] = [];
      ackTimes.set(client.index, times);
      client.socket.on('message', (data: Buffer) => {
        const now = Math.round(performance.now() * 1_000);
        const frame = data.toString();
        if (!frame.startsWith('{"type":"ack"')) return;
        const n = ACK_OP.exec(frame)?.[1];
        if (n !== undefined) times[Number(n)] = now;
      });
    }
    try {
      await quiesce(running);
      const result = await openLoop(population, running, target, {
        members: 1,
        tappers: 1,
        rate: shape.groups * shape.tapsPerSecond,
        durationMs: shape.durationMs,
      });
      await drain(population, receiver, token, every, DRAIN_DEADLINE_MS);
      const alerts = countAlerts(population, receiver.received, token, every);
      const clientOf = new Map(population.clients.map((client) => [client.group.name, client]));
      const fromAck = new Histogram();
      const fromSend = new Histogram();
      const fromChange = new Histogram();
      let beforeAck = 0;
      let unmeasured = 0;
      const seen = new Set<string>();
      for (const alert of receiver.received) {
        if (alert.token !== token || seen.has(alert.id)) continue;
        seen.add(alert.id);
        const client = clientOf.get(alert.group);
        // Tap n of a group's one tapper took its counter from n - 1 to n, unless a tap was refused.
        const n = alert.multiple;
        const ackAt = n === null ? undefined : client && ackTimes.get(client.index)?.[n];
        const sentAt =
          n === null ? undefined : client && population.stats.sendTimes.get(client.index)?.[n];
        if (
          alert.folded > 0 ||
          client === undefined ||
          client.groupState.refused > 0 ||
          ackAt === undefined ||
          sentAt === undefined
        ) {
          unmeasured += 1;
          continue;
        }
        if (alert.atMicros < ackAt) beforeAck += 1;
        if (alert.changedAtMs !== null) {
          fromChange.recordMicros((alert.atEpochMs - alert.changedAtMs) * 1_000);
        }
        fromAck.recordMicros(alert.atMicros - ackAt);
        fromSend.recordMicros(alert.atMicros - sentAt);
      }
      return {
        target,
        fromAck,
        fromSend,
        fromChange,
        beforeAck,
        unmeasured,
        alerts,
        tapFailures: (result.lost ?? 0) + (result.duplicated ?? 0) + result.unanswered,
        refused: population.groups.reduce((sum, group) => sum + group.refused, 0),
        ackedPerSecond: result.incrementsPerSecond,
        errors: result.errors,
        load: { start, end: loadAverage() },
        serverCpuCores: result.serverCpuCores,
      };
    } finally {
      for (const client of population.clients) client.close();
    }
  } finally {
    await running.stop();
  }
}

/** A count of alerts with nothing received yet, `fired` of them expected. */
const noAlerts = (fired: number): AlertCount => ({
  fired,
  requests: 0,
  received: 0,
  duplicated: 0,
  lost: 0,
  extra: 0,
  folded: 0,
  repeatedMultiples: 0,
});

/** Alerts of several runs added up. */
export function sumAlerts(counts: readonly (AlertCount | null)[]): AlertCount {
  const total = noAlerts(0);
  for (const count of counts) {
    if (!count) continue;
    for (const key of Object.keys(total) as (keyof AlertCount)[]) total[key] += count[key];
  }
  return total;
}

/** Alerts lost, duplicated, received that were never fired, or a crossing sent twice. */
export const alertFailures = (count: AlertCount) =>
  count.lost + count.duplicated + count.extra + count.repeatedMultiples;

export const describeAlerts = (count: AlertCount) =>
  `${int(count.fired)} fired, ${int(count.received)} received (${int(count.requests)} requests), ${int(count.lost)} lost, ${int(count.duplicated)} duplicated, ${int(count.extra)} never fired, ${int(count.repeatedMultiples)} crossings sent twice, ${int(count.folded)} folded`;

/**
 * The comparison's table: per rate, both targets, median (range) over the runs; the ratio of
 * the rules' figure to the no-rules one is taken run by run (the two ran back to back).
 */
export function alertsTable(
  runs: AlertsCurve[][],
  rates: readonly number[],
  baseline: Target,
): string {
  const lines = [
    '| rate/s | target | acked/s | CPU µs/tap, window | ÷ no rules | CPU µs/tap, to idle | ÷ no rules | main thread µs/tap, to idle | ÷ no rules | answer p50 / p99 ms | answer p99 ÷ no rules | delivery p99 ms | server cores | alerts fired / received by the window’s end | last alert, s after the window |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  ];
  const targets = runs[0]?.map((curve) => curve.target) ?? [];
  rates.forEach((rate, index) => {
    const stepOf = (run: AlertsCurve[], target: Target) =>
      run.find((curve) => curve.target === target)?.steps[index];
    for (const target of targets) {
      const steps = runs.flatMap((run) => {
        const step = stepOf(run, target);
        return step ? [step] : [];
      });
      const of = (pick: (step: AlertsStep) => number, format: (n: number) => string) =>
        spread(steps.map(pick), format);
      const ratioOf = (pick: (step: AlertsStep) => number) => {
        if (target === baseline) return '';
        const ratios = runs.flatMap((run) => {
          const ours = stepOf(run, target);
          const theirs = stepOf(run, baseline);
          return ours && theirs ? [pick(ours) / pick(theirs)] : [];
        });
        return ratios.length > 0 ? `${spread(ratios, fixed(2))}×` : '';
      };
      const answerP99 = (step: AlertsStep) => step.result.answerLatency.percentile(0.99);
      const fired = steps.reduce((sum, step) => sum + step.fired, 0);
      const inWindow = steps.reduce((sum, step) => sum + step.receivedInWindow, 0);
      lines.push(
        `| ${int(rate)} | ${target.name} | ${of((s) => s.result.incrementsPerSecond, int)} | ${of((s) => s.cpuMicrosPerTap, fixed(1))} | ${ratioOf((s) => s.cpuMicrosPerTap)} | ${of((s) => s.cpuToIdleMicrosPerTap, fixed(1))} | ${ratioOf((s) => s.cpuToIdleMicrosPerTap)} | ${of((s) => s.mainThreadToIdleMicrosPerTap, fixed(1))} | ${ratioOf((s) => s.mainThreadToIdleMicrosPerTap)} | ${of((s) => s.result.answerLatency.percentile(0.5), ms)} / ${of(answerP99, ms)} | ${ratioOf(answerP99)} | ${of((s) => s.result.latency.percentile(0.99), ms)} | ${of((s) => s.result.serverCpuCores, fixed(2))} | ${fired === 0 ? '' : `${int(fired)} / ${int(inWindow)}`} | ${fired === 0 ? '' : of((s) => s.caughtUpMs / 1_000, fixed(1))} |`,
      );
    }
  });
  return lines.join('\n');
}

/** The latency table: per store, median (range) over the runs. */
export function latencyTable(runs: LatencyRun[]): string {
  const lines = [
    '| store | alerts measured per run | ack → receiver p50 / p99 / max ms | change → receiver p50 / p99 / max ms | send → receiver p50 / p99 ms | arrived before the ack | server cores | alerts |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
  ];
  const targets = [...new Set(runs.map((run) => run.target))];
  for (const target of targets) {
    const mine = runs.filter((run) => run.target === target);
    const of = (pick: (run: LatencyRun) => number, format: (n: number) => string) =>
      spread(mine.map(pick), format);
    lines.push(
      `| ${target.name} | ${of((r) => r.fromAck.count, int)} | ${of((r) => r.fromAck.percentile(0.5), ms)} / ${of((r) => r.fromAck.percentile(0.99), ms)} / ${of((r) => r.fromAck.max, ms)} | ${of((r) => r.fromChange.percentile(0.5), ms)} / ${of((r) => r.fromChange.percentile(0.99), ms)} / ${of((r) => r.fromChange.max, ms)} | ${of((r) => r.fromSend.percentile(0.5), ms)} / ${of((r) => r.fromSend.percentile(0.99), ms)} | ${int(mine.reduce((sum, r) => sum + r.beforeAck, 0))} | ${of((r) => r.serverCpuCores, fixed(2))} | ${describeAlerts(sumAlerts(mine.map((r) => r.alerts)))} |`,
    );
  }
  return lines.join('\n');
}
