/**
 * The load generator: real WebSocket clients in G groups of M members; a share of members tap.
 * Each client numbers its operations as a live client does (`<session>.<n>`, ADR 24), its session
 * naming the sender; every receiving member looks the send time (µs) up in the generator's table
 * of sends, so it measures end-to-end latency. On a target of several instances the tappers connect
 * to other instances than the watchers, and only watchers measure: every sample crosses instances.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import WebSocket from 'ws';
import { Histogram } from './histogram.js';
import { cpuCores, machineCpuSeconds, sampleProcesses } from './proc.js';
import type { GroupSetup, RunningTarget, Target } from './targets.js';

/**
 * An operation id anywhere in a frame (`opId` of the baselines, `opIds` of Tally): its sender and
 * number. Numbered `c<sender>s<run>.<n>`, or opaque `c<sender>o<run>_<n>` (targets.ts opIds).
 */
const OP_ID = /"c(\d+)[so][0-9a-z]+[._](\d+)"/g;
const VALUE = /"value":(-?\d+)/;
/** The number of this client's own operation, in an ack or error frame. */
const OWN_OP_ID = /"opId":"c\d+[so][0-9a-z]+[._](\d+)"/;
/** Makes every session of one generator run its own, whatever ran on the target before. */
const RUN = Date.now().toString(36);
/** An error frame that refuses the operation as retryable: it was not applied. */
const BUSY = '"code":"busy"';
const nowMicros = () => Math.round(performance.now() * 1_000);

export class BenchClient {
  readonly socket: WebSocket;
  /** The value this client last saw (what the original product would add one to). */
  localValue = 0;
  sent = 0;
  acked = 0;
  errors = 0;
  private seq = 0;
  /** Send time (µs) of this client's operation n, at index n. */
  private readonly sendTimes: number[] = [];
  /** Whether others' changes arriving here count as deliveries and latency samples. */
  private readonly measuresDeliveries: boolean;
  private readyResolve: () => void = () => undefined;
  readonly ready: Promise<void>;
  onAck: () => void = () => undefined;

  constructor(
    readonly index: number,
    readonly group: GroupSetup,
    readonly groupState: GroupCounter,
    private readonly target: Target,
    running: RunningTarget,
    private readonly stats: Stats,
    placement: Placement,
  ) {
    this.ready = new Promise((resolve) => {
      this.readyResolve = resolve;
    });
    this.measuresDeliveries = placement.measuresDeliveries;
    stats.sendTimes.set(index, this.sendTimes);
    this.socket = new WebSocket(placement.url, { perMessageDeflate: false });
    this.socket.on('open', () => {
      this.socket.send(running.authMessage(group));
    });
    this.socket.on('message', (data: Buffer) => {
      this.receive(data.toString());
    });
    this.socket.on('error', () => {
      this.errors += 1;
    });
  }

  tap(): void {
    const n = ++this.seq;
    this.sendTimes[n] = nowMicros();
    const opId =
      this.target.opIds === 'numbered'
        ? `c${this.index}s${RUN}.${n}`
        : `c${this.index}o${RUN}_${n}`;
    const counterId = this.group.counterId;
    const mutation = this.target.sendsValue
      ? { kind: 'updateCounter', counterId, patch: { value: this.localValue + 1 } }
      : { kind: 'adjustCounter', counterId, direction: 'increment', times: 1 };
    this.sent += 1;
    this.groupState.sent += 1;
    this.socket.send(JSON.stringify({ type: 'mutate', opId, mutation }));
  }

  private receive(frame: string): void {
    if (frame.startsWith('{"type":"ready"')) {
      const value = VALUE.exec(frame);
      if (value) this.localValue = Number(value[1]);
      this.readyResolve();
      return;
    }
    if (frame.startsWith('{"type":"ack"')) {
      this.recordAnswer(frame);
      this.acknowledge();
      return;
    }
    if (frame.startsWith('{"type":"error"')) {
      this.recordAnswer(frame);
      if (frame.includes(BUSY)) {
        // Refused before it was applied (overload): counted, not an error.
        this.groupState.refused += 1;
        this.stats.busy += 1;
      } else this.errors += 1;
      this.acknowledge(false);
      return;
    }
    if (this.target.sendsValue) {
      const value = VALUE.exec(frame);
      if (value) this.localValue = Number(value[1]);
    }
    const now = nowMicros();
    for (const match of frame.matchAll(OP_ID)) {
      const sender = Number(match[1]);
      if (sender === this.index) {
        if (this.target.ackIsEcho) this.acknowledge();
        continue;
      }
      if (!this.measuresDeliveries) continue;
      const sentAt = this.stats.sendTimes.get(sender)?.[Number(match[2])];
      if (sentAt === undefined) continue;
      this.stats.deliveries += 1;
      this.stats.latency.recordMicros(now - sentAt);
    }
  }

  /** Send → answer time of this client's own operation (ack or refusal). */
  private recordAnswer(frame: string): void {
    const n = OWN_OP_ID.exec(frame)?.[1];
    const sentAt = n === undefined ? undefined : this.sendTimes[Number(n)];
    if (sentAt !== undefined) this.stats.answerLatency.recordMicros(nowMicros() - sentAt);
  }

  /** An answer to one of this client's taps; `applied` unless it was an error. */
  private acknowledge(applied = true): void {
    if (applied) this.groupState.acked += 1;
    this.acked += 1;
    this.stats.acked += 1;
    this.onAck();
  }

  close(): void {
    this.socket.terminate();
  }
}

/** Where a client connects, and whether it measures what it receives. */
export interface Placement {
  url: string;
  measuresDeliveries: boolean;
}

export interface GroupCounter {
  setup: GroupSetup;
  sent: number;
  /** Taps acknowledged (applied). */
  acked: number;
  /** Taps refused with `busy` (not applied: the server's total excludes them). */
  refused: number;
}

export interface Stats {
  /** Taps answered (acknowledged or refused). */
  acked: number;
  /** Taps refused with `busy`. */
  busy: number;
  deliveries: number;
  /** Send → arrival at every other member. */
  latency: Histogram;
  /** Send → the sender's own answer (ack or busy). */
  answerLatency: Histogram;
  /** Each client's send times (µs) by operation number, by client index. */
  sendTimes: Map<number, number[]>;
}

export interface Population {
  clients: BenchClient[];
  groups: GroupCounter[];
  stats: Stats;
}

/** Creates the groups of a scenario (each with one counter), 50 at a time. */
export async function setupGroups(
  running: RunningTarget,
  scenario: string,
  groups: number,
): Promise<GroupCounter[]> {
  const setups: GroupCounter[] = [];
  for (let g = 0; g < groups; g += 50) {
    const slice = Array.from({ length: Math.min(50, groups - g) }, (_, i) =>
      running.setupGroup(`${scenario}-${g + i}`),
    );
    for (const setup of await Promise.all(slice))
      setups.push({ setup, sent: 0, acked: 0, refused: 0 });
  }
  return setups;
}

export interface PopulateOptions {
  /** Groups already created (setupGroups) instead of new ones. */
  prepared?: GroupCounter[];
  /** The first `tappers` members of each group tap (openLoop's `tappers`); 0 unless given. */
  tappers?: number;
  /**
   * Who measures deliveries and latency: everyone (each receiving member, as on one instance),
   * or only the members who do not tap. Default: watchers on a target whose tappers connect to
   * other instances (so every sample crosses instances), everyone otherwise.
   */
  measuredAt?: 'everyone' | 'watchers';
}

/** Opens `groups × members` authenticated clients, a bounded number of handshakes at a time. */
export async function populate(
  target: Target,
  running: RunningTarget,
  scenario: string,
  groups: number,
  members: number,
  options: PopulateOptions = {},
): Promise<Population> {
  const tappers = options.tappers ?? 0;
  const tapperUrl = running.tapperWsUrl?.bind(running);
  const measuredAt = options.measuredAt ?? (tapperUrl ? 'watchers' : 'everyone');
  const stats: Stats = {
    acked: 0,
    busy: 0,
    deliveries: 0,
    latency: new Histogram(),
    answerLatency: new Histogram(),
    sendTimes: new Map(),
  };
  const setups = options.prepared ?? (await setupGroups(running, scenario, groups));
  const clients: BenchClient[] = [];
  const pending: Promise<void>[] = [];
  for (let g = 0; g < groups; g++) {
    for (let m = 0; m < members; m++) {
      const groupState = setups[g] as GroupCounter;
      const taps = m < tappers;
      const placement: Placement = {
        url: taps && tapperUrl ? tapperUrl(groupState.setup) : running.wsUrl(groupState.setup),
        measuresDeliveries: !taps || measuredAt === 'everyone',
      };
      const client = new BenchClient(
        clients.length,
        groupState.setup,
        groupState,
        target,
        running,
        stats,
        placement,
      );
      clients.push(client);
      pending.push(client.ready);
      if (pending.length >= 200) await Promise.all(pending.splice(0));
    }
  }
  await Promise.all(pending);
  return { clients, groups: setups, stats };
}

export interface LoadResult {
  /** Taps applied and acknowledged per second (busy refusals excluded). */
  incrementsPerSecond: number;
  /** Taps refused with `busy` per second. */
  busyPerSecond: number;
  /** Send → the sender's own answer. */
  answerLatency: Histogram;
  /** Highest server RSS sampled during the load, bytes. */
  serverPeakRssBytes: number;
  /** Taps never answered within the drain deadline. */
  unanswered: number;
  deliveriesPerSecond: number;
  latency: Histogram;
  serverCpuCores: number;
  /**
   * The load generator's own CPU during the load, cores: near 1 it is the limit (one thread),
   * not the server.
   */
  generatorCpuCores: number;
  /**
   * The load generator's event-loop delay during the load, p99 µs, beyond the monitor's own
   * sampling period: when it is high, latency includes the generator's own queueing (it sends
   * and reads late).
   */
  generatorLoopDelayP99Micros: number;
  /**
   * CPU the rest of the machine used during the load (every process but the server and the load
   * generator, and the kernel's own work), cores: on a shared machine, others' work competes.
   */
  otherCpuCores: number;
  /**
   * The tapping window on the monotonic clock (µs, as `process.hrtime` and V8's CPU profiles
   * count), to cut a server profile to the window.
   */
  window: { startMicros: number; endMicros: number };
  serverRssBytes: number;
  lost: number | null;
  duplicated: number | null;
  errors: number;
}

/** The tappers of each group: the first `tappers` members. */
function tappersOf(population: Population, members: number, tappers: number): BenchClient[] {
  return population.clients.filter((client) => client.index % members < tappers);
}

function resetStats(population: Population): void {
  population.stats.acked = 0;
  population.stats.busy = 0;
  population.stats.deliveries = 0;
  population.stats.latency = new Histogram();
  population.stats.answerLatency = new Histogram();
}

/** How often the load generator's event-loop delay is sampled during a load, ms. */
const LOOP_DELAY_RESOLUTION_MS = 5;
/** How often server memory is sampled during a load, ms. */
const RSS_SAMPLE_MS = 250;

export interface GeneratorLoad {
  /** The load generator's own CPU, cores (LoadResult.generatorCpuCores). */
  generatorCpuCores: number;
  /** Its event-loop delay, p99 µs beyond the monitor's period (LoadResult). */
  generatorLoopDelayP99Micros: number;
  /** The rest of the machine's CPU, cores (LoadResult.otherCpuCores). */
  otherCpuCores: number;
}

/** Watches this process's event loop; `stop` gives its delay's p99 beyond the monitor's period, µs. */
export function watchLoopDelay(): { stop(): number } {
  const loopDelay = monitorEventLoopDelay({ resolution: LOOP_DELAY_RESOLUTION_MS });
  loopDelay.enable();
  return {
    stop() {
      loopDelay.disable();
      // The histogram is in ns, and an idle loop records about its resolution (the timer's period).
      return Math.max(0, loopDelay.percentile(99) / 1_000 - LOOP_DELAY_RESOLUTION_MS * 1_000);
    },
  };
}

/**
 * Starts watching the load generator itself (its CPU and event-loop delay, and the CPU of its
 * `helpers`, processes of its own) and the machine; `stop` gives what they used over the
 * `seconds` since, the server's `serverCores` apart. The loop delay is the worst of this
 * process's and the `helperLoopDelaysP99Micros` the helpers measured themselves.
 */
export function watchGenerator(helpers: readonly number[] = []): {
  stop(
    seconds: number,
    serverCores: number,
    helperLoopDelaysP99Micros?: readonly number[],
  ): GeneratorLoad;
} {
  const loopDelay = watchLoopDelay();
  const cpuBefore = process.cpuUsage();
  const helpersBefore = sampleProcesses(helpers);
  const machineBefore = machineCpuSeconds();
  return {
    stop(seconds, serverCores, helperLoopDelaysP99Micros = []) {
      const generator = process.cpuUsage(cpuBefore);
      const helpersCpuSeconds = sampleProcesses(helpers).cpuSeconds - helpersBefore.cpuSeconds;
      const machine = machineCpuSeconds() - machineBefore;
      // cpuUsage is in µs.
      const generatorCpuCores =
        ((generator.user + generator.system) / 1e6 + helpersCpuSeconds) / seconds;
      return {
        generatorCpuCores,
        generatorLoopDelayP99Micros: Math.max(loopDelay.stop(), ...helperLoopDelaysP99Micros),
        otherCpuCores: Math.max(0, machine / seconds - serverCores - generatorCpuCores),
      };
    },
  };
}

/**
 * Open loop: taps are sent on schedule at `rate` per second whatever the answers, so a slow
 * server shows up as latency instead of being hidden by waiting.
 */
export async function openLoop(
  population: Population,
  running: RunningTarget,
  target: Target,
  options: { members: number; tappers: number; rate: number; durationMs: number },
): Promise<LoadResult> {
  const tappers = tappersOf(population, options.members, options.tappers);
  for (const client of tappers) client.onAck = () => undefined;
  resetStats(population);
  const generator = watchGenerator();
  const startMicros = Number(process.hrtime.bigint() / 1_000n);
  const before = sampleProcesses(running.pids);
  const ackedBefore = population.groups.reduce((sum, group) => sum + group.acked, 0);
  let peakRss = before.rssBytes;
  const rssTimer = setInterval(() => {
    peakRss = Math.max(peakRss, sampleProcesses(running.pids).rssBytes);
  }, RSS_SAMPLE_MS);
  const started = performance.now();
  let scheduled = 0;
  let next = 0;
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      const elapsed = performance.now() - started;
      const due = Math.min(
        Math.floor((elapsed / 1_000) * options.rate),
        Math.floor((options.durationMs / 1_000) * options.rate),
      );
      for (; scheduled < due; scheduled++) {
        (tappers[next] as BenchClient).tap();
        next = (next + 1) % tappers.length;
      }
      if (elapsed >= options.durationMs) {
        clearInterval(timer);
        resolve();
      }
    }, 1);
  });
  const after = sampleProcesses(running.pids);
  const seconds = (after.at - before.at) / 1_000;
  const generatorLoad = generator.stop(seconds, cpuCores(before, after));
  const endMicros = Number(process.hrtime.bigint() / 1_000n);
  clearInterval(rssTimer);
  // Acks and refusals counted during the load only: a backlog answered later is not throughput.
  const applied = population.groups.reduce((sum, group) => sum + group.acked, 0) - ackedBefore;
  const busy = population.stats.busy;
  // Deliveries still in flight at the end are counted once they land.
  await sleep(500);
  return finish(population, running, target, {
    incrementsPerSecond: applied / seconds,
    busyPerSecond: busy / seconds,
    deliveriesPerSecond: population.stats.deliveries / seconds,
    serverCpuCores: cpuCores(before, after),
    ...generatorLoad,
    window: { startMicros, endMicros },
    serverRssBytes: after.rssBytes,
    serverPeakRssBytes: Math.max(peakRss, after.rssBytes),
  });
}

async function finish(
  population: Population,
  running: RunningTarget,
  target: Target,
  measured: Pick<
    LoadResult,
    | 'incrementsPerSecond'
    | 'busyPerSecond'
    | 'deliveriesPerSecond'
    | 'serverCpuCores'
    | 'generatorCpuCores'
    | 'generatorLoopDelayP99Micros'
    | 'otherCpuCores'
    | 'window'
    | 'serverRssBytes'
    | 'serverPeakRssBytes'
  >,
): Promise<LoadResult> {
  // Wait for every tap to be answered, then compare what each counter holds with what was sent.
  const deadline = Date.now() + 15_000;
  const outstanding = () => population.clients.reduce((sum, c) => sum + c.sent - c.acked, 0);
  while (outstanding() > 0 && Date.now() < deadline) await sleep(50);
  const unanswered = outstanding();
  let lost: number | null = null;
  let duplicated: number | null = null;
  if (target.keepsState) {
    // A tap refused with `busy` was not applied: the counter holds every other tap sent, once.
    lost = 0;
    duplicated = 0;
    for (const group of population.groups) {
      const expected = group.sent - group.refused;
      const value = (await running.finalValue(group.setup)) ?? 0;
      if (value < expected) lost += expected - value;
      if (value > expected) duplicated += value - expected;
    }
  }
  return {
    ...measured,
    unanswered,
    answerLatency: population.stats.answerLatency,
    latency: population.stats.latency,
    lost,
    duplicated,
    errors: population.clients.reduce((sum, c) => sum + c.errors, 0),
  };
}

/** Server memory per idle, authenticated connection: RSS growth divided by connections. */
export async function idleMemory(
  target: Target,
  running: RunningTarget,
  groups: number,
  members: number,
): Promise<{ connections: number; bytesPerConnection: number; rssBytes: number }> {
  const setups = await setupGroups(running, 'idle', groups);
  await sleep(500);
  const before = sampleProcesses(running.pids);
  const population = await populate(target, running, 'idle', groups, members, {
    prepared: setups,
  });
  await sleep(2_000);
  const after = sampleProcesses(running.pids);
  const connections = population.clients.length;
  for (const client of population.clients) client.close();
  return {
    connections,
    bytesPerConnection: (after.rssBytes - before.rssBytes) / connections,
    rssBytes: after.rssBytes,
  };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
