/**
 * Steady taps through one Tally instance while watchers listen on another, with every tap's answer
 * kept: what the fault suite and the fault benchmark count. Groups of three: one tapper (live
 * socket on instance B, numbered operation ids as the web app's live clients use) and two watchers
 * (live sockets on instance A). Every tap is sent once; `retryRefused` later sends the refused ones
 * again with the same operation id, as a member's device does.
 */
import { randomBytes } from 'node:crypto';
import WebSocket from 'ws';
import { tallyApi, type GroupSetup } from '../targets.js';

export interface Tap {
  group: number;
  opId: string;
  /** performance.now() when sent and answered, ms. */
  sentAt: number;
  answeredAt: number | null;
  /** `ack`, or the error code it was refused with; null while unanswered. */
  outcome: string | null;
  /** Sends of this tap, the first included. */
  sends: number;
}

interface Member {
  socket: WebSocket;
  closed: boolean;
}

interface Watcher extends Member {
  /** The counter's value as this watcher last saw it (snapshot or change); null before ready. */
  value: number | null;
  /** `storage` frames seen: false while the database was away, true when it came back. */
  storage: boolean[];
  snapshots: number;
}

interface Tapper extends Member {
  session: string;
  next: number;
  pending: Map<string, Tap>;
}

export interface TapSummary {
  sent: number;
  acked: number;
  /** Refusals by error code. */
  refused: Record<string, number>;
  unanswered: number;
}

function open(
  url: string,
  auth: string,
  onMessage: (message: Record<string, unknown>) => void,
): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url);
    let ready = false;
    socket.on('open', () => {
      socket.send(auth);
    });
    socket.on('message', (data: Buffer) => {
      const message = JSON.parse(data.toString()) as Record<string, unknown>;
      onMessage(message);
      if (!ready && message.type === 'ready') {
        ready = true;
        resolve(socket);
      }
    });
    socket.on('error', (error) => {
      if (!ready) reject(error);
    });
    socket.on('close', () => {
      if (!ready) reject(new Error('socket closed before ready'));
    });
  });
}

export class TapLoad {
  readonly taps: Tap[] = [];
  private tappers: Tapper[] = [];
  private watchers: Watcher[][] = [];
  private timer: NodeJS.Timeout | undefined;
  private turn = 0;

  private constructor(
    readonly groups: GroupSetup[],
    private readonly apiA: ReturnType<typeof tallyApi>,
  ) {}

  /** `groups` groups created through instance A (port), tappers on B, two watchers each on A. */
  static async start(portA: number, portB: number, groups: number): Promise<TapLoad> {
    const apiA = tallyApi(portA);
    const apiB = tallyApi(portB);
    const prefix = `f${randomBytes(3).toString('hex')}`;
    const setups: GroupSetup[] = [];
    for (let i = 0; i < groups; i++) setups.push(await apiA.setupGroup(`${prefix}-${i}`));
    const load = new TapLoad(setups, apiA);
    for (const [index, group] of setups.entries()) {
      const watchers: Watcher[] = [];
      for (let w = 0; w < 2; w++) {
        const watcher: Watcher = {
          socket: null as unknown as WebSocket,
          closed: false,
          value: null,
          storage: [],
          snapshots: 0,
        };
        watcher.socket = await open(apiA.wsUrl(group), apiA.authMessage(group), (message) => {
          load.watch(watcher, group, message);
        });
        watcher.socket.on('close', () => {
          watcher.closed = true;
        });
        watchers.push(watcher);
      }
      load.watchers.push(watchers);
      const tapper: Tapper = {
        socket: null as unknown as WebSocket,
        closed: false,
        session: randomBytes(8).toString('hex'),
        next: 1,
        pending: new Map(),
      };
      tapper.socket = await open(apiB.wsUrl(group), apiB.authMessage(group), (message) => {
        load.answer(tapper, message);
      });
      tapper.socket.on('close', () => {
        tapper.closed = true;
      });
      load.tappers[index] = tapper;
    }
    return load;
  }

  /** Sends `rate` taps/s in all, spread over the groups, until `stop`. */
  run(rate: number): void {
    const tickMs = 10;
    let owed = 0;
    this.timer = setInterval(() => {
      owed += (rate * tickMs) / 1_000;
      while (owed >= 1) {
        owed -= 1;
        this.tap(this.turn++ % this.tappers.length);
      }
    }, tickMs);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private tap(group: number): void {
    const tapper = this.tappers[group];
    if (!tapper || tapper.closed) return;
    const tap: Tap = {
      group,
      opId: `${tapper.session}.${tapper.next++}`,
      sentAt: performance.now(),
      answeredAt: null,
      outcome: null,
      sends: 0,
    };
    this.taps.push(tap);
    this.send(tapper, tap);
  }

  private send(tapper: Tapper, tap: Tap): void {
    const group = this.groups[tap.group];
    if (!group) return;
    tap.sends += 1;
    tapper.pending.set(tap.opId, tap);
    tapper.socket.send(
      JSON.stringify({
        type: 'mutate',
        opId: tap.opId,
        mutation: { kind: 'adjustCounter', counterId: group.counterId, direction: 'increment' },
      }),
    );
  }

  private answer(tapper: Tapper, message: Record<string, unknown>): void {
    if (message.type !== 'ack' && message.type !== 'error') return;
    const opId = message.opId;
    if (typeof opId !== 'string') return;
    const tap = tapper.pending.get(opId);
    if (!tap) return;
    tapper.pending.delete(opId);
    tap.answeredAt = performance.now();
    tap.outcome =
      message.type === 'ack'
        ? 'ack'
        : ((message.error as { code?: string } | undefined)?.code ?? 'error');
  }

  private watch(watcher: Watcher, group: GroupSetup, message: Record<string, unknown>): void {
    if (message.type === 'ready') {
      watcher.snapshots += 1;
      const counters = message.counters as { id: string; value: number }[];
      watcher.value = counters.find((counter) => counter.id === group.counterId)?.value ?? null;
    } else if (message.type === 'changes') {
      for (const change of message.changes as { counter?: { id: string; value: number } }[]) {
        if (change.counter?.id === group.counterId) watcher.value = change.counter.value;
      }
    } else if (message.type === 'storage') {
      watcher.storage.push(message.saving === true);
    }
  }

  /** Resolves once every tap sent so far has an answer, or at the deadline (ms from now). */
  async settled(withinMs: number): Promise<boolean> {
    const deadline = performance.now() + withinMs;
    while (performance.now() < deadline) {
      if (this.tappers.every((tapper) => tapper.pending.size === 0)) return true;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return false;
  }

  /**
   * Sends every refused tap again with its operation id until each is acknowledged (a tap whose
   * first answer was lost with its commit's connection may have been applied: the retry is then
   * answered from its operation id, not applied again). Resolves with the taps still refused.
   */
  async retryRefused(withinMs: number): Promise<number> {
    const deadline = performance.now() + withinMs;
    for (;;) {
      const refused = this.taps.filter((tap) => tap.outcome !== null && tap.outcome !== 'ack');
      if (refused.length === 0 || performance.now() > deadline) return refused.length;
      for (const tap of refused) {
        const tapper = this.tappers[tap.group];
        if (!tapper || tapper.closed) continue;
        tap.outcome = null;
        tap.answeredAt = null;
        this.send(tapper, tap);
      }
      await this.settled(Math.max(0, deadline - performance.now()));
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  summary(from = 0, to = Infinity): TapSummary {
    const summary: TapSummary = { sent: 0, acked: 0, refused: {}, unanswered: 0 };
    for (const tap of this.taps) {
      if (tap.sentAt < from || tap.sentAt >= to) continue;
      summary.sent += 1;
      if (tap.outcome === null) summary.unanswered += 1;
      else if (tap.outcome === 'ack') summary.acked += 1;
      else summary.refused[tap.outcome] = (summary.refused[tap.outcome] ?? 0) + 1;
    }
    return summary;
  }

  /** ms from `at` to the first acknowledgement of a tap sent at or after it; null if none. */
  recoveryAfter(at: number): number | null {
    let first: number | null = null;
    for (const tap of this.taps) {
      if (tap.sentAt < at || tap.outcome !== 'ack' || tap.answeredAt === null) continue;
      if (first === null || tap.answeredAt < first) first = tap.answeredAt;
    }
    return first === null ? null : first - at;
  }

  /** ms from `at` to the first refusal answered for a tap sent at or after it; null if none. */
  detectionAfter(at: number): number | null {
    let first: number | null = null;
    for (const tap of this.taps) {
      if (tap.sentAt < at || tap.answeredAt === null || tap.outcome === 'ack') continue;
      if (first === null || tap.answeredAt < first) first = tap.answeredAt;
    }
    return first === null ? null : first - at;
  }

  /** Answer latencies (ms) of taps sent in [from, to). */
  latencies(from: number, to: number): number[] {
    return this.taps
      .filter((tap) => tap.sentAt >= from && tap.sentAt < to && tap.answeredAt !== null)
      .map((tap) => (tap.answeredAt ?? 0) - tap.sentAt)
      .sort((a, b) => a - b);
  }

  /** Per group: taps sent, acknowledged, and the value stored (read through instance A). */
  async counts(): Promise<{ sent: number; acked: number; stored: number | null }[]> {
    return Promise.all(
      this.groups.map(async (group, index) => {
        const mine = this.taps.filter((tap) => tap.group === index);
        return {
          sent: mine.length,
          acked: mine.filter((tap) => tap.outcome === 'ack').length,
          stored: await this.apiA.finalValue(group),
        };
      }),
    );
  }

  /** Each watcher's last seen value, per group. */
  watcherValues(): (number | null)[][] {
    return this.watchers.map((watchers) => watchers.map((watcher) => watcher.value));
  }

  /** Every `storage` frame every watcher saw, in order. */
  storageFrames(): boolean[][] {
    return this.watchers.flat().map((watcher) => watcher.storage);
  }

  /** Sockets closed under the load (the live channel must keep them open). */
  closedSockets(): number {
    return [...this.tappers, ...this.watchers.flat()].filter((member) => member.closed).length;
  }

  close(): void {
    this.stop();
    for (const member of [...this.tappers, ...this.watchers.flat()]) member.socket.terminate();
  }
}
