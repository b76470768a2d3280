/**
 * The hot room scenario (ADR 33, docs/benchmarks.md#hot-room): one large group on one instance,
 * a crowd of watchers and hundreds of tappers sharing one counter (or a few), live `mutate` taps
 * open loop. Every client connects from one of ADDRESSES loopback addresses (127.0.0.2, .3, …),
 * so the server sees a crowd of client addresses as it would in a stadium, not one.
 *
 * Delivery latency is measured by change number, not by operation ids (a large group's frames
 * fold many taps into one change and carry few ids): each tap's ack gives the change number it
 * committed at; a change number reached in a frame means every change up to it reached that
 * watcher (a group's frames cover its numbers without gaps, folded or not). So a tap's delivery
 * to a watcher is the first frame at or past its number, minus when the tap was sent. Every
 * MEASURE_EVERY-th watcher keeps its timeline and measures; every watcher checks it ends at the
 * group's last change.
 */
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import WebSocket from 'ws';
import { Histogram } from './histogram.js';
import { quiesce } from './hotpath.js';
import { watchGenerator } from './load.js';
import { cpuCores, sampleProcesses } from './proc.js';
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

/** Client addresses the crowd connects from: 127.0.0.2 … 127.0.0.(ADDRESSES + 1). */
const ADDRESSES = 200;
/** One watcher in this many keeps its timeline and measures delivery. */
const MEASURE_EVERY = 10;
/** Handshakes in flight at once while the crowd connects. */
const CONNECTING_AT_ONCE = 200;
const DRAIN_MS = 15_000;
const RSS_SAMPLE_MS = 250;
/** A server frame the client accepts, bytes (far above any snapshot of a 20-counter group). */
const MAX_PAYLOAD = 64 * 2 ** 20;
const SEQ = Buffer.from('"seq":');
const VERSION = /"version":(\d+)/;
const ACK_HEAD = Buffer.from('{"type":"ack"');
const ERROR_HEAD = Buffer.from('{"type":"error"');
const RUN = Date.now().toString(36);
const nowMicros = () => performance.now() * 1_000;

const addressOf = (index: number) =>
  `127.0.${Math.floor((2 + (index % ADDRESSES)) / 256)}.${(2 + (index % ADDRESSES)) % 256}`;

/** The change number of a frame's last change (a `ready`'s own `seq` comes last too), or -1. */
function lastSeq(frame: Buffer): number {
  const at = frame.lastIndexOf(SEQ);
  if (at < 0) return -1;
  let value = 0;
  for (let i = at + SEQ.length; i < frame.length; i++) {
    const digit = (frame[i] ?? 0) - 48;
    if (digit < 0 || digit > 9) break;
    value = value * 10 + digit;
  }
  return value;
}

const startsWith = (frame: Buffer, head: Buffer) =>
  frame.length >= head.length && frame.compare(head, 0, head.length, 0, head.length) === 0;

interface Group {
  name: string;
  key: string;
  counterIds: string[];
}

/** What a client of the crowd saw: its last change number and (if it measures) when it saw each. */
class Seen {
  seq = -1;
  frames = 0;
  closedByServer = 0;
  closing = false;
  readonly ready: Promise<void>;
  /** Change numbers reached and when (µs), while it measures. */
  seqs: number[] = [];
  times: number[] = [];
  protected resolveReady: () => void = () => undefined;

  constructor(readonly measures: boolean) {
    this.ready = new Promise((resolve) => {
      this.resolveReady = resolve;
    });
  }

  /** A frame (or chunk) whose last change number is `seq` (-1: none) arrived. */
  protected saw(seq: number): void {
    if (seq < 0 || seq <= this.seq) return;
    if (this.seq < 0) this.resolveReady();
    this.seq = seq;
    if (this.measures) {
      this.seqs.push(seq);
      this.times.push(nowMicros());
    }
  }

  /** The socket closed: by the server unless this side closed it. */
  protected ended(): void {
    if (!this.closing) this.closedByServer += 1;
    this.closing = true;
    this.resolveReady();
  }
}

/** A `ws` client (the tappers): the last change number it saw; its answers to `onAnswer`. */
class Watcher extends Seen {
  readonly socket: WebSocket;

  constructor(
    origin: string,
    group: Group,
    index: number,
    measures: boolean,
    onAnswer?: (frame: Buffer) => void,
  ) {
    super(measures);
    this.socket = new WebSocket(`${origin}/api/groups/${group.name}/live`, {
      localAddress: addressOf(index),
      perMessageDeflate: false,
      maxPayload: MAX_PAYLOAD,
    });
    this.socket.on('open', () => {
      // As the web app does, each member says who they are (presence).
      const member = { id: `m${index}-${RUN}`, name: `Member ${index}` };
      this.socket.send(JSON.stringify({ type: 'auth', protocol: 1, key: group.key, member }));
    });
    this.socket.on('message', (data: Buffer) => {
      if (onAnswer && (startsWith(data, ACK_HEAD) || startsWith(data, ERROR_HEAD))) {
        onAnswer(data);
        return;
      }
      this.frames += 1;
      this.saw(lastSeq(data));
    });
    this.socket.on('close', () => {
      this.ended();
    });
    this.socket.on('error', () => undefined);
  }

  close(): void {
    this.closing = true;
    this.socket.terminate();
  }
}

/**
 * A watcher on a bare TCP socket: the WebSocket handshake and frame headers by hand (RFC 6455),
 * its frames' payloads never copied nor decoded. A crowd of `ws` clients costs the generator more
 * CPU than the server under test (one event and one Buffer per frame per socket), and on a
 * two-core machine the generator then measures itself. This one reads each TCP chunk once: it
 * walks the frame headers (answering pings, so the server's heartbeat keeps it), and finds the
 * chunk's last change number with one search. A change number cannot be cut by a frame header
 * (it lies inside one frame's payload), only by a chunk's end: the previous chunk's tail is kept.
 */
class RawWatcher extends Seen {
  private readonly socket: net.Socket;
  private upgraded = false;
  private head = '';
  /** Bytes of the current frame's payload still to come, and whether it is a ping's. */
  private payloadLeft = 0;
  private inPing = false;
  /** A frame header cut by a chunk's end. */
  private partial: Buffer | null = null;
  private tail: Buffer = Buffer.alloc(0);

  constructor(origin: URL, group: Group, index: number, measures: boolean) {
    super(measures);
    this.socket = net.connect({
      host: origin.hostname,
      port: Number(origin.port),
      localAddress: addressOf(index),
    });
    this.socket.setNoDelay(true);
    this.socket.on('connect', () => {
      this.socket.write(
        `GET /api/groups/${group.name}/live HTTP/1.1\r\nHost: ${origin.host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
      );
      const member = { id: `m${index}-${RUN}`, name: `Member ${index}` };
      this.socket.write(
        clientFrame(0x1, JSON.stringify({ type: 'auth', protocol: 1, key: group.key, member })),
      );
    });
    this.socket.on('data', (chunk: Buffer) => {
      let data = chunk;
      if (!this.upgraded) {
        this.head += chunk.toString('latin1');
        const end = this.head.indexOf('\r\n\r\n');
        if (end < 0) return;
        this.upgraded = true;
        data = Buffer.from(this.head.slice(end + 4), 'latin1');
        this.head = '';
      }
      this.walk(data);
      const scanned = this.tail.length > 0 ? Buffer.concat([this.tail, data]) : data;
      this.saw(lastSeq(scanned));
      this.tail = Buffer.from(scanned.subarray(Math.max(0, scanned.length - 24)));
    });
    this.socket.on('close', () => {
      this.ended();
    });
    this.socket.on('error', () => undefined);
  }

  /** Walks frame headers: counts frames, answers pings, notices a close. */
  private walk(chunk: Buffer): void {
    const data = this.partial ? Buffer.concat([this.partial, chunk]) : chunk;
    this.partial = null;
    let at = 0;
    while (at < data.length) {
      if (this.payloadLeft > 0) {
        const take = Math.min(this.payloadLeft, data.length - at);
        this.payloadLeft -= take;
        at += take;
        if (this.payloadLeft === 0 && this.inPing) this.socket.write(clientFrame(0xa, ''));
        continue;
      }
      if (data.length - at < 2) {
        this.partial = Buffer.from(data.subarray(at));
        return;
      }
      const opcode = (data[at] ?? 0) & 0x0f;
      const short = (data[at + 1] ?? 0) & 0x7f;
      const headerBytes = short === 126 ? 4 : short === 127 ? 10 : 2;
      if (data.length - at < headerBytes) {
        this.partial = Buffer.from(data.subarray(at));
        return;
      }
      const length =
        short === 126
          ? data.readUInt16BE(at + 2)
          : short === 127
            ? Number(data.readBigUInt64BE(at + 2))
            : short;
      at += headerBytes;
      this.frames += opcode === 0x1 ? 1 : 0;
      this.inPing = opcode === 0x9;
      this.payloadLeft = length;
      if (length === 0 && this.inPing) this.socket.write(clientFrame(0xa, ''));
      if (opcode === 0x8) {
        this.ended();
        this.socket.destroy();
        return;
      }
    }
  }

  close(): void {
    this.closing = true;
    this.socket.destroy();
  }
}

/** A client's frame: FIN, the opcode, masked with a zero key (RFC 6455 requires a mask). */
function clientFrame(opcode: number, text: string): Buffer {
  const payload = Buffer.from(text);
  const length = payload.length;
  const header =
    length < 126
      ? Buffer.from([0x80 | opcode, 0x80 | length, 0, 0, 0, 0])
      : Buffer.from([0x80 | opcode, 0x80 | 126, length >> 8, length & 0xff, 0, 0, 0, 0]);
  return Buffer.concat([header, payload]);
}

/** A tapper: a watcher that also taps; its taps' send times and committed change numbers. */
class Tapper {
  readonly watcher: Watcher;
  private n = 0;
  /** By operation number: send time (µs) and change number (-1 until acked). */
  readonly sentAt: number[] = [];
  readonly version: number[] = [];
  answered = 0;
  refused = 0;
  errors = 0;

  constructor(
    origin: string,
    group: Group,
    index: number,
    readonly counterId: string,
    private readonly answer: { histogram: Histogram },
  ) {
    this.watcher = new Watcher(origin, group, index, false, (frame) => {
      this.answered += 1;
      const text = frame.toString();
      const n = Number(/"opId":"[^".]+\.(\d+)"/.exec(text)?.[1] ?? -1);
      const sentAt = this.sentAt[n];
      if (sentAt !== undefined) this.answer.histogram.recordMicros(nowMicros() - sentAt);
      if (startsWith(frame, ERROR_HEAD)) {
        if (text.includes('"code":"busy"')) this.refused += 1;
        else this.errors += 1;
        return;
      }
      this.version[n] = Number(VERSION.exec(text)?.[1] ?? -1);
    });
    this.opIdPrefix = `t${index}s${RUN}.`;
  }

  private readonly opIdPrefix: string;

  tap(): void {
    const n = ++this.n;
    this.sentAt[n] = nowMicros();
    this.version[n] = -1;
    this.watcher.socket.send(
      `{"type":"mutate","opId":"${this.opIdPrefix}${n}","mutation":{"kind":"adjustCounter","counterId":"${this.counterId}","direction":"increment","times":1}}`,
    );
  }

  get sent(): number {
    return this.n;
  }
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

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One room on a fresh start of `target`: every rate, ascending. */
export async function hotroomRoom(
  target: Target,
  room: HotroomRoom,
  shape: HotroomShape,
  log: (message: string) => void,
): Promise<HotroomStep[]> {
  const running = await target.start();
  const watchers: RawWatcher[] = [];
  const tappers: Tapper[] = [];
  try {
    const group = await setupGroup(running, room.counters);
    const origin = running
      .wsUrl({ name: group.name, key: group.key, counterId: '' })
      .replace(/\/api\/.*$/, '');
    await quiesce(running);
    const rssBefore = sampleProcesses(running.pids).rssBytes;
    log(
      `${target.name}: hot room, ${int(room.watchers)} watchers and ${int(room.tappers)} tappers on ${room.counters} counter(s), connecting`,
    );
    const answer = { histogram: new Histogram() };
    let pending: Promise<void>[] = [];
    for (let i = 0; i < room.tappers + room.watchers; i++) {
      if (i < room.tappers) {
        const tapper = new Tapper(
          origin,
          group,
          i,
          group.counterIds[i % group.counterIds.length] ?? '',
          answer,
        );
        tappers.push(tapper);
        pending.push(tapper.watcher.ready);
      } else {
        const watcher = new RawWatcher(
          new URL(origin.replace(/^ws/, 'http')),
          group,
          i,
          (i - room.tappers) % MEASURE_EVERY === 0,
        );
        watchers.push(watcher);
        pending.push(watcher.ready);
      }
      if (pending.length >= CONNECTING_AT_ONCE) {
        await Promise.all(pending);
        pending = [];
      }
    }
    await Promise.all(pending);
    await quiesce(running);
    const sockets = room.tappers + room.watchers;
    const rssPerSocketBytes = (sampleProcesses(running.pids).rssBytes - rssBefore) / sockets;
    const everyone = [...tappers.map((tapper) => tapper.watcher), ...watchers];
    const closedBefore = () => everyone.reduce((sum, w) => sum + w.closedByServer, 0);

    const offer = async (rate: number, durationMs: number) => {
      const started = performance.now();
      let scheduled = 0;
      let next = 0;
      const total = Math.floor((durationMs / 1_000) * rate);
      await new Promise<void>((resolve) => {
        const timer = setInterval(() => {
          const elapsed = performance.now() - started;
          const due = Math.min(Math.floor((elapsed / 1_000) * rate), total);
          for (; scheduled < due; scheduled++) {
            (tappers[next] as Tapper).tap();
            next = (next + 1) % tappers.length;
          }
          if (elapsed >= durationMs) {
            clearInterval(timer);
            resolve();
          }
        }, 1);
      });
    };
    const answeredAll = async () => {
      const deadline = Date.now() + DRAIN_MS;
      const outstanding = () =>
        tappers.reduce((sum, tapper) => sum + tapper.sent - tapper.answered, 0);
      while (outstanding() > 0 && Date.now() < deadline) await sleep(50);
      return outstanding();
    };

    log(`${target.name}: warming up at ${int(room.rates[0] ?? 0)}/s`);
    await offer(room.rates[0] ?? 0, shape.warmUpMs);
    await answeredAll();
    const steps: HotroomStep[] = [];
    for (const rate of room.rates) {
      await quiesce(running);
      answer.histogram = new Histogram();
      const firstOp = tappers.map((tapper) => tapper.sent + 1);
      const answeredBefore = tappers.reduce((sum, t) => sum + t.answered - t.refused - t.errors, 0);
      const refusedBefore = tappers.reduce((sum, t) => sum + t.refused, 0);
      const framesBefore = everyone.reduce((sum, w) => sum + w.frames, 0);
      const closed = closedBefore();
      const valuesBefore = await counterValues(running, group);
      for (const watcher of watchers) {
        watcher.seqs = [];
        watcher.times = [];
      }
      log(`${target.name}: hot room, ${int(rate)}/s offered for ${shape.durationMs / 1_000} s`);
      const generator = watchGenerator();
      const before = sampleProcesses(running.pids);
      let peakRss = before.rssBytes;
      const rssTimer = setInterval(() => {
        peakRss = Math.max(peakRss, sampleProcesses(running.pids).rssBytes);
      }, RSS_SAMPLE_MS);
      await offer(rate, shape.durationMs);
      const after = sampleProcesses(running.pids);
      const seconds = (after.at - before.at) / 1_000;
      const generatorLoad = generator.stop(seconds, cpuCores(before, after));
      clearInterval(rssTimer);
      const acked =
        tappers.reduce((sum, t) => sum + t.answered - t.refused - t.errors, 0) - answeredBefore;
      const unanswered = await answeredAll();
      // The last frames reach every watcher once the server has drained.
      await quiesce(running);
      await sleep(500);
      const valuesAfter = await counterValues(running, group);
      const lastSeq = Math.max(...everyone.map((w) => w.seq));
      const refused = tappers.reduce((sum, t) => sum + t.refused, 0) - refusedBefore;
      // Every tap of the window, acknowledged or not, counted on its counter once.
      let lost = 0;
      let doubled = 0;
      for (const counterId of group.counterIds) {
        let expected = 0;
        tappers.forEach((tapper, i) => {
          if (tapper.counterId !== counterId) return;
          for (let n = firstOp[i] ?? 0; n <= tapper.sent; n++)
            if (tapper.version[n] !== undefined && tapper.version[n] !== -1) expected += 1;
        });
        const grown = (valuesAfter.get(counterId) ?? 0) - (valuesBefore.get(counterId) ?? 0);
        if (grown < expected) lost += expected - grown;
        if (grown > expected) doubled += grown - expected;
      }
      steps.push({
        room,
        rate,
        ackedPerSecond: acked / seconds,
        sent: tappers.reduce((sum, t, i) => sum + t.sent - (firstOp[i] ?? 1) + 1, 0),
        refused,
        unanswered,
        lost,
        doubled,
        answer: answer.histogram,
        delivery: deliveries(tappers, firstOp, watchers),
        behind: everyone.filter((w) => w.seq < lastSeq).length,
        closedByServer: closedBefore() - closed,
        framesPerWatcherPerSecond:
          (everyone.reduce((sum, w) => sum + w.frames, 0) - framesBefore) /
          everyone.length /
          seconds,
        serverCpuCores: cpuCores(before, after),
        rssPerSocketBytes,
        serverPeakRssBytes: Math.max(peakRss, after.rssBytes),
        ...generatorLoad,
      });
    }
    return steps;
  } finally {
    for (const tapper of tappers) tapper.watcher.close();
    for (const watcher of watchers) watcher.close();
    await running.stop();
  }
}

/** Each acknowledged tap of the window against each measuring watcher's timeline. */
function deliveries(tappers: Tapper[], firstOp: number[], watchers: RawWatcher[]): Histogram {
  const taps: { version: number; sentAt: number }[] = [];
  tappers.forEach((tapper, i) => {
    for (let n = firstOp[i] ?? 0; n <= tapper.sent; n++) {
      const version = tapper.version[n] ?? -1;
      const sentAt = tapper.sentAt[n];
      if (version >= 0 && sentAt !== undefined) taps.push({ version, sentAt });
    }
  });
  taps.sort((a, b) => a.version - b.version);
  const histogram = new Histogram();
  for (const watcher of watchers) {
    if (!watcher.measures) continue;
    let at = 0;
    for (const tap of taps) {
      while (at < watcher.seqs.length && (watcher.seqs[at] ?? 0) < tap.version) at += 1;
      const seenAt = watcher.times[at];
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
