/**
 * The load generator: real WebSocket clients in G groups of M members; a share of members tap.
 * Operation ids carry the sender and the send time (µs), so every receiving member measures
 * end-to-end latency without a lookup table.
 */
import WebSocket from 'ws';
import { Histogram } from './histogram.js';
import { cpuCores, sampleProcess } from './proc.js';
import type { GroupSetup, RunningTarget, Target } from './targets.js';

/** An operation id anywhere in a frame (`opId` of the baselines, `opIds` of Tally). */
const OP_ID = /"c(\d+)_\d+_(\d+)"/g;
const VALUE = /"value":(-?\d+)/;
const nowMicros = () => Math.round(performance.now() * 1_000);

export class BenchClient {
  readonly socket: WebSocket;
  /** The value this client last saw (what the original product would add one to). */
  localValue = 0;
  sent = 0;
  acked = 0;
  errors = 0;
  private seq = 0;
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
  ) {
    this.ready = new Promise((resolve) => {
      this.readyResolve = resolve;
    });
    this.socket = new WebSocket(running.wsUrl(group), { perMessageDeflate: false });
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
    const opId = `c${this.index}_${++this.seq}_${nowMicros()}`;
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
      this.acknowledge();
      return;
    }
    if (frame.startsWith('{"type":"error"')) {
      this.errors += 1;
      this.acknowledge();
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
      this.stats.deliveries += 1;
      this.stats.latency.recordMicros(now - Number(match[2]));
    }
  }

  private acknowledge(): void {
    this.acked += 1;
    this.stats.acked += 1;
    this.onAck();
  }

  close(): void {
    this.socket.terminate();
  }
}

export interface GroupCounter {
  setup: GroupSetup;
  sent: number;
}

export interface Stats {
  acked: number;
  deliveries: number;
  latency: Histogram;
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
    for (const setup of await Promise.all(slice)) setups.push({ setup, sent: 0 });
  }
  return setups;
}

/** Opens `groups × members` authenticated clients, a bounded number of handshakes at a time. */
export async function populate(
  target: Target,
  running: RunningTarget,
  scenario: string,
  groups: number,
  members: number,
  prepared?: GroupCounter[],
): Promise<Population> {
  const stats: Stats = { acked: 0, deliveries: 0, latency: new Histogram() };
  const setups = prepared ?? (await setupGroups(running, scenario, groups));
  const clients: BenchClient[] = [];
  const pending: Promise<void>[] = [];
  for (let g = 0; g < groups; g++) {
    for (let m = 0; m < members; m++) {
      const groupState = setups[g] as GroupCounter;
      const client = new BenchClient(
        clients.length,
        groupState.setup,
        groupState,
        target,
        running,
        stats,
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
  incrementsPerSecond: number;
  deliveriesPerSecond: number;
  latency: Histogram;
  serverCpuCores: number;
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
  population.stats.deliveries = 0;
  population.stats.latency = new Histogram();
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
  const before = sampleProcess(running.pid);
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
  const after = sampleProcess(running.pid);
  const seconds = (after.at - before.at) / 1_000;
  // Deliveries still in flight at the end are counted once they land.
  await sleep(500);
  return finish(population, running, target, {
    incrementsPerSecond: population.stats.acked / seconds,
    deliveriesPerSecond: population.stats.deliveries / seconds,
    serverCpuCores: cpuCores(before, after),
    serverRssBytes: after.rssBytes,
  });
}

async function finish(
  population: Population,
  running: RunningTarget,
  target: Target,
  measured: Pick<
    LoadResult,
    'incrementsPerSecond' | 'deliveriesPerSecond' | 'serverCpuCores' | 'serverRssBytes'
  >,
): Promise<LoadResult> {
  // Wait for every tap to be answered, then compare what each counter holds with what was sent.
  const deadline = Date.now() + 15_000;
  const outstanding = () => population.clients.reduce((sum, c) => sum + c.sent - c.acked, 0);
  while (outstanding() > 0 && Date.now() < deadline) await sleep(50);
  let lost: number | null = null;
  let duplicated: number | null = null;
  if (target.keepsState) {
    lost = 0;
    duplicated = 0;
    for (const group of population.groups) {
      const value = (await running.finalValue(group.setup)) ?? 0;
      if (value < group.sent) lost += group.sent - value;
      if (value > group.sent) duplicated += value - group.sent;
    }
  }
  return {
    ...measured,
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
  const before = sampleProcess(running.pid);
  const population = await populate(target, running, 'idle', groups, members, setups);
  await sleep(2_000);
  const after = sampleProcess(running.pid);
  const connections = population.clients.length;
  for (const client of population.clients) client.close();
  return {
    connections,
    bytesPerConnection: (after.rssBytes - before.rssBytes) / connections,
    rssBytes: after.rssBytes,
  };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
