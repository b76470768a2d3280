/**
 * The hot room scenario (ADR 33, docs/benchmarks.md#hot-room): one large group on one instance,
 * a crowd of watchers and hundreds of tappers sharing one counter (or a few), live `mutate` taps
 * open loop. Every client connects from one of 200 loopback addresses (127.0.0.2, .3, …), so the
 * server sees a crowd of client addresses as it would in a stadium, not one.
 *
 * The crowd runs in processes of its own (hotroom-crowd.ts): the tappers spread over
 * `tapperProcesses`, the watchers over `watcherProcesses`, each driven from here over IPC and
 * reporting what it saw. One generator thread for the whole crowd was a core of its own with its
 * event loop hundreds of ms late, and what a watcher waited included that. Times are
 * CLOCK_MONOTONIC in every process, checked at start.
 *
 * Delivery latency is measured by change number, not by operation ids (a large group's frames
 * fold many taps into one change and carry few ids): each tap's ack gives the change number it
 * committed at; a change number reached in a frame means every change up to it reached that
 * watcher (a group's frames cover its numbers without gaps, folded or not). So a tap's delivery
 * to a watcher is the first frame at or past its number, minus when the tap was sent. Every
 * MEASURE_EVERY-th watcher keeps its timeline and measures; every client checks it ends at the
 * group's last change.
 */
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { Histogram } from './histogram.js';
import type { CrowdAnswer, CrowdOrder, CrowdReport, CrowdShare } from './hotroom-crowd.js';
import { quiesce } from './hotpath.js';
import { sleep, watchGenerator } from './load.js';
import { cpuCores, monotonicMicros, sampleProcesses } from './proc.js';
import { fixed, int, ms } from './stats.js';
import { spread } from './stores-report.js';
import { json, type RunningTarget, type Target } from './targets.js';

/** One room: a fresh server, one group, its crowd, then each rate in turn. */
export interface HotroomRoom {
  counters: number;
  tappers: number;
  watchers: number;
  /** Offered rates, taps/s, ascending. */
  rates: number[];
}

export interface HotroomShape {
  rooms: HotroomRoom[];
  /** How long each rate is offered, ms. */
  durationMs: number;
  /** Taps at the room's first rate before its first window, unrecorded (JIT), ms. */
  warmUpMs: number;
  /** Processes the watchers are spread over. */
  watcherProcesses: number;
  /** Processes the tappers are spread over (each offers its share of the rate). */
  tapperProcesses: number;
}

export interface HotroomStep {
  room: HotroomRoom;
  rate: number;
  /** Taps acknowledged per second of the window. */
  ackedPerSecond: number;
  sent: number;
  /** Taps answered `busy` (not applied). */
  refused: number;
  /** Taps not answered once the server had drained (15 s). */
  unanswered: number;
  lost: number;
  doubled: number;
  /** Tap sent → the tapper's ack. */
  answer: Histogram;
  /** Tap sent → the first frame at a measuring watcher that covers it. */
  delivery: Histogram;
  /** Watchers whose last frame was not at the group's last change after the drain. */
  behind: number;
  /** Sockets the server closed during the window (any code). */
  closedByServer: number;
  /** Frames a watcher received per second (the mean over watchers). */
  framesPerWatcherPerSecond: number;
  serverCpuCores: number;
  /** Server RSS growth from before the crowd connected, per socket, bytes. */
  rssPerSocketBytes: number;
  serverPeakRssBytes: number;
  generatorCpuCores: number;
  generatorLoopDelayP99Micros: number;
  otherCpuCores: number;
}

/** One watcher in this many keeps its timeline and measures delivery. */
const MEASURE_EVERY = 10;
/** Handshakes in flight at once while the crowd connects, over all its processes. */
const CONNECTING_AT_ONCE = 200;
const DRAIN_MS = 15_000;
const RSS_SAMPLE_MS = 250;
/**
 * A crowd process that has not answered an order in this long has failed, ms (connecting 10,000
 * watchers to a server starved by other work can take minutes).
 */
const ORDER_TIMEOUT_MS = 600_000;
const RUN = Date.now().toString(36);

interface Group {
  name: string;
  key: string;
  counterIds: string[];
}

/** One process of the crowd, answering one order at a time. */
class CrowdProcess {
  private readonly child: ChildProcess;
  /** Orders sent and not answered yet, oldest first (answers come in order). */
  private readonly waiting: {
    answered: (answer: CrowdAnswer) => void;
    failed: (error: Error) => void;
  }[] = [];
  private failure: Error | undefined;

  constructor(
    readonly role: CrowdShare['role'],
    /** How many of the room's clients it runs. */
    readonly clients: number,
  ) {
    this.child = fork(path.join(import.meta.dirname, 'hotroom-crowd.ts'), [], {
      execArgv: ['--import', 'tsx'],
      serialization: 'advanced',
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.child.on('message', (answer: CrowdAnswer) => {
      this.waiting.shift()?.answered(answer);
    });
    this.child.on('exit', (code) => {
      this.failure = new Error(`a hot room crowd process (${role}) exited (${String(code)})`);
      for (const order of this.waiting.splice(0)) order.failed(this.failure);
    });
  }

  get pid(): number {
    return this.child.pid ?? 0;
  }

  ask<T extends CrowdAnswer['type']>(
    order: CrowdOrder,
    expected: T,
  ): Promise<Extract<CrowdAnswer, { type: T }>> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(new Error(`a hot room crowd process (${this.role}) did not answer ${order.type}`));
      }, ORDER_TIMEOUT_MS);
      this.waiting.push({
        answered: (answer) => {
          clearTimeout(timer);
          if (answer.type === expected) resolve(answer as Extract<CrowdAnswer, { type: T }>);
          else
            reject(new Error(`a hot room crowd process answered ${answer.type} to ${order.type}`));
        },
        failed: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      });
      this.child.send(order);
    });
  }

  /** Its time and ours must be one clock: ours before asking and after the answer bracket its. */
  async checkClock(): Promise<void> {
    const before = monotonicMicros();
    const { nowMicros: theirs } = await this.ask({ type: 'clock' }, 'clock');
    const after = monotonicMicros();
    if (theirs < before || theirs > after) {
      throw new Error(
        `a hot room crowd process's clock is not ours (${theirs} µs outside ${before}–${after})`,
      );
    }
  }

  async close(): Promise<void> {
    if (this.failure === undefined && this.child.connected) {
      await this.ask({ type: 'close' }, 'closed').catch(() => undefined);
    }
    this.child.kill();
  }
}

/** The crowd's processes: every order to each, answers in the same order. */
class Crowd {
  constructor(readonly processes: CrowdProcess[]) {}

  get tappers(): CrowdProcess[] {
    return this.processes.filter((child) => child.role === 'tappers');
  }

  get pids(): number[] {
    return this.processes.map((child) => child.pid);
  }

  all<T extends CrowdAnswer['type']>(
    order: CrowdOrder,
    expected: T,
  ): Promise<Extract<CrowdAnswer, { type: T }>[]> {
    return Promise.all(this.processes.map((child) => child.ask(order, expected)));
  }

  async close(): Promise<void> {
    await Promise.all(this.processes.map((child) => child.close()));
  }
}

/** Splits `count` into `parts` shares as even as can be, larger first. */
function shares(count: number, parts: number): number[] {
  return Array.from(
    { length: parts },
    (_, part) => Math.floor(count / parts) + (part < count % parts ? 1 : 0),
  ).filter((share) => share > 0);
}

async function setupGroup(running: RunningTarget, counters: number): Promise<Group> {
  const setup = await running.setupGroup(`hotroom-${RUN}-${counters}`);
  const base = running
    .wsUrl(setup)
    .replace(/^ws/, 'http')
    .replace(/\/api\/.*$/, '');
  const counterIds = [setup.counterId];
  for (let i = 1; i < counters; i++) {
    const counter = await json<{ id: string }>(`${base}/api/groups/${setup.name}/counters`, {
      method: 'POST',
      headers: { authorization: `Bearer ${setup.key}` },
    });
    counterIds.push(counter.id);
  }
  return { name: setup.name, key: setup.key, counterIds };
}

async function counterValues(running: RunningTarget, group: Group): Promise<Map<string, number>> {
  const base = running
    .wsUrl({ name: group.name, key: group.key, counterId: '' })
    .replace(/^ws/, 'http')
    .replace(/\/api\/.*$/, '');
  const counters = await json<{ id: string; value: number }[]>(
    `${base}/api/groups/${group.name}/counters`,
    { headers: { authorization: `Bearer ${group.key}` } },
  );
  return new Map(counters.map((counter) => [counter.id, counter.value]));
}

/** Starts the crowd's processes and connects each one's share of the room. */
async function startCrowd(
  room: HotroomRoom,
  shape: HotroomShape,
  origin: string,
  group: Group,
): Promise<Crowd> {
  const parts: { role: CrowdShare['role']; first: number; count: number }[] = [];
  let first = 0;
  for (const count of shares(room.tappers, shape.tapperProcesses)) {
    parts.push({ role: 'tappers', first, count });
    first += count;
  }
  for (const count of shares(room.watchers, shape.watcherProcesses)) {
    parts.push({ role: 'watchers', first, count });
    first += count;
  }
  const crowd = new Crowd(parts.map((part) => new CrowdProcess(part.role, part.count)));
  try {
    for (const child of crowd.processes) await child.checkClock();
    const connectingAtOnce = Math.ceil(CONNECTING_AT_ONCE / crowd.processes.length);
    await Promise.all(
      crowd.processes.map((child, i) =>
        child.ask(
          {
            type: 'connect',
            ...(parts[i] ?? { role: 'watchers', first: 0, count: 0 }),
            origin,
            group,
            firstWatcher: room.tappers,
            measureEvery: MEASURE_EVERY,
            connectingAtOnce,
            run: RUN,
          },
          'connected',
        ),
      ),
    );
    return crowd;
  } catch (error) {
    await crowd.close();
    throw error;
  }
}

/** Open loop at `rate` over every tapper, each process its share; taps acknowledged meanwhile. */
async function offer(crowd: Crowd, rate: number, durationMs: number): Promise<number> {
  const tappers = crowd.tappers.reduce((sum, child) => sum + child.clients, 0);
  const answers = await Promise.all(
    crowd.tappers.map((child) =>
      child.ask({ type: 'offer', rate: (rate * child.clients) / tappers, durationMs }, 'offered'),
    ),
  );
  return answers.reduce((sum, answer) => sum + answer.acked, 0);
}

/** Taps never answered once the server had `DRAIN_MS` to answer them. */
async function unansweredAfterDrain(crowd: Crowd): Promise<number> {
  const answers = await Promise.all(
    crowd.tappers.map((child) => child.ask({ type: 'drain', timeoutMs: DRAIN_MS }, 'drained')),
  );
  return answers.reduce((sum, answer) => sum + answer.unanswered, 0);
}

/** One room on a fresh start of `target`: every rate, ascending. */
export async function hotroomRoom(
  target: Target,
  room: HotroomRoom,
  shape: HotroomShape,
  log: (message: string) => void,
): Promise<HotroomStep[]> {
  const running = await target.start();
  let crowd: Crowd | undefined;
  try {
    const group = await setupGroup(running, room.counters);
    const origin = running
      .wsUrl({ name: group.name, key: group.key, counterId: '' })
      .replace(/\/api\/.*$/, '');
    await quiesce(running);
    const rssBefore = sampleProcesses(running.pids).rssBytes;
    log(
      `${target.name}: hot room, ${int(room.watchers)} watchers and ${int(room.tappers)} tappers on ${room.counters} counter(s), connecting from ${shape.tapperProcesses + shape.watcherProcesses} processes`,
    );
    crowd = await startCrowd(room, shape, origin, group);
    await quiesce(running);
    const sockets = room.tappers + room.watchers;
    const rssPerSocketBytes = (sampleProcesses(running.pids).rssBytes - rssBefore) / sockets;

    log(`${target.name}: warming up at ${int(room.rates[0] ?? 0)}/s`);
    await offer(crowd, room.rates[0] ?? 0, shape.warmUpMs);
    await unansweredAfterDrain(crowd);
    const steps: HotroomStep[] = [];
    for (const rate of room.rates) {
      await quiesce(running);
      const valuesBefore = await counterValues(running, group);
      await crowd.all({ type: 'mark' }, 'marked');
      log(`${target.name}: hot room, ${int(rate)}/s offered for ${shape.durationMs / 1_000} s`);
      const generator = watchGenerator(crowd.pids);
      const before = sampleProcesses(running.pids);
      let peakRss = before.rssBytes;
      const rssTimer = setInterval(() => {
        peakRss = Math.max(peakRss, sampleProcesses(running.pids).rssBytes);
      }, RSS_SAMPLE_MS);
      const startMicros = Math.round(monotonicMicros());
      const acked = await offer(crowd, rate, shape.durationMs);
      const after = sampleProcesses(running.pids);
      log(
        `${target.name}: ${int(rate)}/s: ${int(acked / ((after.at - before.at) / 1_000))} acked/s, window ${startMicros}–${Math.round(monotonicMicros())} µs (monotonic)`,
      );
      clearInterval(rssTimer);
      const loopDelays = await crowd.all({ type: 'stop' }, 'stopped');
      const seconds = (after.at - before.at) / 1_000;
      const generatorLoad = generator.stop(
        seconds,
        cpuCores(before, after),
        loopDelays.map((answer) => answer.loopDelayP99Micros),
      );
      log(
        `${target.name}: ${int(rate)}/s: crowd event-loop delay p99 ${crowd.processes.map((child, i) => `${child.role} ${ms(loopDelays[i]?.loopDelayP99Micros ?? Number.NaN)}`).join(', ')} ms`,
      );
      const unanswered = await unansweredAfterDrain(crowd);
      // The last frames reach every watcher once the server has drained.
      await quiesce(running);
      await sleep(500);
      const valuesAfter = await counterValues(running, group);
      const reports = await crowd.all({ type: 'report' }, 'report');
      const seqs = reports.flatMap((report) => [...report.seqs]);
      const lastSeq = Math.max(...seqs);
      // Every tap of the window acknowledged, counted on its counter once.
      let lost = 0;
      let doubled = 0;
      for (const counterId of group.counterIds) {
        const expected = reports.reduce((sum, r) => sum + (r.ackedByCounter[counterId] ?? 0), 0);
        const grown = (valuesAfter.get(counterId) ?? 0) - (valuesBefore.get(counterId) ?? 0);
        if (grown < expected) lost += expected - grown;
        if (grown > expected) doubled += grown - expected;
      }
      const answer = new Histogram();
      for (const report of reports)
        for (const micros of report.answers) answer.recordMicros(micros);
      steps.push({
        room,
        rate,
        ackedPerSecond: acked / seconds,
        sent: reports.reduce((sum, report) => sum + report.sent, 0),
        refused: reports.reduce((sum, report) => sum + report.refused, 0),
        unanswered,
        lost,
        doubled,
        answer,
        delivery: deliveries(reports),
        behind: seqs.filter((seq) => seq < lastSeq).length,
        closedByServer: reports.reduce((sum, report) => sum + report.closedByServer, 0),
        framesPerWatcherPerSecond:
          reports.reduce((sum, report) => sum + report.frames, 0) / seqs.length / seconds,
        serverCpuCores: cpuCores(before, after),
        rssPerSocketBytes,
        serverPeakRssBytes: Math.max(peakRss, after.rssBytes),
        ...generatorLoad,
      });
    }
    return steps;
  } finally {
    await crowd?.close();
    await running.stop();
  }
}

/** Each acknowledged tap of the window against each measuring watcher's timeline. */
function deliveries(reports: CrowdReport[]): Histogram {
  const taps: { version: number; sentAt: number }[] = [];
  for (const { acked } of reports) {
    acked.versions.forEach((version, i) => {
      taps.push({ version, sentAt: acked.sentAt[i] ?? 0 });
    });
  }
  taps.sort((a, b) => a.version - b.version);
  const histogram = new Histogram();
  for (const timeline of reports.flatMap((report) => report.timelines)) {
    let at = 0;
    for (const tap of taps) {
      while (at < timeline.seqs.length && (timeline.seqs[at] ?? 0) < tap.version) at += 1;
      const seenAt = timeline.times[at];
      // Not seen (the watcher fell behind or was closed): counted under `behind`, not here.
      if (seenAt === undefined) break;
      histogram.recordMicros(seenAt - tap.sentAt);
    }
  }
  return histogram;
}

/** The table: per room and rate, per target, median (range) over the runs. */
export function hotroomTable(runs: Map<Target, HotroomStep[][]>): string {
  const lines = [
    '| counters / tappers / watchers | rate/s | target | acked/s | refused / unanswered / lost / doubled | watcher delivery p50 / p99 ms | answer p99 ms | frames per watcher per s | closed by server / watchers behind | server CPU (cores) | server RSS per socket KiB / peak MiB | generator CPU (cores) / loop delay p99 ms | other CPU (cores) |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  ];
  const first = [...runs.values()][0]?.[0] ?? [];
  first.forEach((step, index) => {
    for (const [target, targetRuns] of runs) {
      const steps = targetRuns.flatMap((run) => (run[index] ? [run[index]] : []));
      const of = (pick: (s: HotroomStep) => number, format: (n: number) => string) =>
        spread(steps.map(pick), format);
      const sum = (pick: (s: HotroomStep) => number) =>
        int(steps.reduce((total, s) => total + pick(s), 0));
      const { room } = step;
      lines.push(
        `| ${room.counters} / ${int(room.tappers)} / ${int(room.watchers)} | ${int(step.rate)} | ${target.name} | ${of((s) => s.ackedPerSecond, int)} | ${sum((s) => s.refused)} / ${sum((s) => s.unanswered)} / ${sum((s) => s.lost)} / ${sum((s) => s.doubled)} | ${of((s) => s.delivery.percentile(0.5), ms)} / ${of((s) => s.delivery.percentile(0.99), ms)} | ${of((s) => s.answer.percentile(0.99), ms)} | ${of((s) => s.framesPerWatcherPerSecond, fixed(1))} | ${sum((s) => s.closedByServer)} / ${sum((s) => s.behind)} | ${of((s) => s.serverCpuCores, fixed(2))} | ${of((s) => s.rssPerSocketBytes / 1024, fixed(1))} / ${of((s) => s.serverPeakRssBytes / 2 ** 20, int)} | ${of((s) => s.generatorCpuCores, fixed(2))} / ${of((s) => s.generatorLoopDelayP99Micros, ms)} | ${of((s) => s.otherCpuCores, fixed(2))} |`,
      );
    }
  });
  return lines.join('\n');
}

/** Taps lost, doubled or unanswered, sockets closed and watchers behind, over every run. */
export function hotroomFailures(runs: HotroomStep[][]): number {
  return runs
    .flat()
    .reduce((sum, s) => sum + s.lost + s.doubled + s.unanswered + s.closedByServer + s.behind, 0);
}
