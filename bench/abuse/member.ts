/**
 * The normal member the abuse benchmark protects: from its own address (127.0.0.2), in its own
 * group, it taps a counter at a steady rate over the live channel and reads the counters over
 * REST every second, as the web app does; newcomers from fresh addresses join with the right key
 * once a second. Every outcome is charged to the phase in which it was started.
 */
import type WebSocket from 'ws';
import { Histogram } from '../histogram.js';
import {
  AddressClient,
  bearer,
  createCounter,
  createGroup,
  firstFrame,
  newGroupName,
  openLive,
} from './net.js';

export const MEMBER_ADDRESS = '127.0.0.2';
/** Live taps per second (a busy person, far below the 100 messages/s a socket may send). */
const TAPS_PER_SECOND = 20;
/** REST reads (GET counters) per second. */
const READS_PER_SECOND = 1;
/** Newcomer joins per second, each from an address never seen before. */
const NEWCOMERS_PER_SECOND = 1;
/** A tap not acknowledged in this time is an error, ms. */
const TAP_TIMEOUT_MS = 5_000;
/** A newcomer that is not in (REST join + live snapshot) in this time failed, ms. */
const NEWCOMER_TIMEOUT_MS = 10_000;
/** After its socket closes the member reconnects after this pause, ms (the web app backs off). */
const RECONNECT_MS = 500;

export interface PhaseStats {
  name: string;
  sent: number;
  acked: number;
  taps: Histogram;
  reads: Histogram;
  /** Errors by kind: error frames, socket closes, tap timeouts, taps not sent, REST failures. */
  errors: Record<string, number>;
  newcomersTried: number;
  newcomersIn: number;
}

const newPhase = (name: string): PhaseStats => ({
  name,
  sent: 0,
  acked: 0,
  taps: new Histogram(),
  reads: new Histogram(),
  errors: {},
  newcomersTried: 0,
  newcomersIn: 0,
});

export const errorCount = (stats: PhaseStats) =>
  Object.values(stats.errors).reduce((sum, n) => sum + n, 0);

function fail(stats: PhaseStats, kind: string, n = 1): void {
  stats.errors[kind] = (stats.errors[kind] ?? 0) + n;
}

interface Pending {
  sentAt: number;
  phase: PhaseStats;
}

export class Member {
  private phase = newPhase('setup');
  private socket: WebSocket | undefined;
  private ready = false;
  private readonly pending = new Map<string, Pending>();
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly newcomers = new Set<AddressClient>();
  private seq = 0;
  private newcomerIndex = 0;
  private stopped = false;

  private constructor(
    private readonly client: AddressClient,
    readonly group: string,
    private readonly key: string,
    private readonly counterId: string,
  ) {}

  static async start(origin: URL): Promise<Member> {
    const client = new AddressClient(origin, MEMBER_ADDRESS);
    const group = newGroupName('member');
    const key = await createGroup(client, group);
    const counterId = await createCounter(client, group, key, { name: 'Coffees' });
    const member = new Member(client, group, key, counterId);
    await member.connect();
    member.timers.push(
      setInterval(() => {
        member.tap();
      }, 1_000 / TAPS_PER_SECOND),
      setInterval(() => {
        void member.read();
      }, 1_000 / READS_PER_SECOND),
      setInterval(() => {
        void member.newcomer();
      }, 1_000 / NEWCOMERS_PER_SECOND),
      setInterval(() => {
        member.sweep();
      }, 250),
    );
    return member;
  }

  /** Charges everything started from now on to a new phase; returns it (still filling). */
  beginPhase(name: string): PhaseStats {
    this.phase = newPhase(name);
    return this.phase;
  }

  /** Outcomes of a finished phase keep arriving into its stats until they resolve or time out. */
  endPhase(): void {
    this.phase = newPhase('between phases');
  }

  private async connect(): Promise<void> {
    const socket = openLive(this.client.origin, MEMBER_ADDRESS, this.group, {
      key: this.key,
      member: { id: 'bench-member', name: 'Member' },
    });
    this.socket = socket;
    socket.on('error', () => undefined);
    const first = await firstFrame(socket, 30_000);
    if (first !== 'ready') {
      socket.terminate();
      throw new Error(`the member could not open its group: ${first}`);
    }
    this.ready = true;
    socket.on('message', (data: Buffer) => {
      this.receive(data);
    });
    socket.on('close', () => {
      if (this.socket !== socket) return;
      this.ready = false;
      if (this.stopped) return;
      fail(this.phase, 'socket closed');
      for (const [opId, pending] of this.pending) {
        fail(pending.phase, 'tap unanswered (socket closed)');
        this.pending.delete(opId);
      }
      setTimeout(() => {
        if (!this.stopped) this.connect().catch(() => undefined);
      }, RECONNECT_MS);
    });
  }

  private tap(): void {
    const socket = this.socket;
    if (!this.ready || socket === undefined) {
      fail(this.phase, 'tap not sent (not connected)');
      return;
    }
    const opId = `member_${String(++this.seq)}`;
    this.pending.set(opId, { sentAt: performance.now(), phase: this.phase });
    this.phase.sent += 1;
    socket.send(
      JSON.stringify({
        type: 'mutate',
        opId,
        actor: 'Member',
        mutation: { kind: 'adjustCounter', counterId: this.counterId, direction: 'increment' },
      }),
    );
  }

  private receive(data: Buffer): void {
    const head = data.subarray(0, 80).toString('utf8');
    const isAck = head.startsWith('{"type":"ack"');
    if (!isAck && !head.startsWith('{"type":"error"')) return;
    const opId = /"opId":"(member_\d+)"/.exec(data.toString('utf8'))?.[1];
    const pending = opId === undefined ? undefined : this.pending.get(opId);
    if (opId === undefined || pending === undefined) {
      if (!isAck) fail(this.phase, 'error frame');
      return;
    }
    this.pending.delete(opId);
    if (isAck) {
      pending.phase.acked += 1;
      pending.phase.taps.recordMicros((performance.now() - pending.sentAt) * 1_000);
    } else {
      fail(pending.phase, 'error frame');
    }
  }

  private sweep(): void {
    const now = performance.now();
    for (const [opId, pending] of this.pending) {
      if (now - pending.sentAt < TAP_TIMEOUT_MS) continue;
      fail(pending.phase, 'tap timed out');
      this.pending.delete(opId);
    }
  }

  private async read(): Promise<void> {
    const phase = this.phase;
    const started = performance.now();
    try {
      const answer = await this.client.call(`/api/groups/${this.group}/counters`, {
        headers: bearer(this.key),
        timeoutMs: TAP_TIMEOUT_MS,
      });
      if (answer.status !== 200) fail(phase, `read HTTP ${String(answer.status)}`);
      else phase.reads.recordMicros((performance.now() - started) * 1_000);
    } catch {
      fail(phase, 'read failed');
    }
  }

  /** A client from an address the server has never seen joins with the right key. */
  private async newcomer(): Promise<void> {
    const phase = this.phase;
    const index = this.newcomerIndex++;
    // 127.1.0.1, 127.1.0.2, …: loopback, and never the attacker's nor the member's address.
    const address = `127.1.${String(Math.floor(index / 250) % 250)}.${String((index % 250) + 1)}`;
    const client = new AddressClient(this.client.origin, address, true);
    this.newcomers.add(client);
    phase.newcomersTried += 1;
    let socket: WebSocket | undefined;
    const deadline = Date.now() + NEWCOMER_TIMEOUT_MS;
    try {
      const answer = await client.call(`/api/groups/${this.group}/join`, {
        body: { key: this.key },
        discard: true,
        timeoutMs: NEWCOMER_TIMEOUT_MS,
      });
      if (answer.status !== 200) return;
      socket = openLive(client.origin, address, this.group, { key: this.key });
      socket.on('error', () => undefined);
      if ((await firstFrame(socket, Math.max(0, deadline - Date.now()))) === 'ready') {
        phase.newcomersIn += 1;
      }
    } catch {
      // Not in: counted by newcomersTried − newcomersIn.
    } finally {
      socket?.terminate();
      client.close();
      this.newcomers.delete(client);
    }
  }

  stop(): void {
    this.stopped = true;
    for (const timer of this.timers) clearInterval(timer);
    this.socket?.terminate();
    this.client.close();
    for (const client of this.newcomers) client.close();
  }
}
