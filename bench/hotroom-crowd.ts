/**
 * One process of the hot room's crowd (bench/hotroom.ts forks several): either a share of the
 * watchers or a share of the tappers, driven by the coordinator over the IPC channel, one order
 * at a time, one answer per order. A single generator thread reading 5,000 sockets and sending
 * 10,000 taps a second was a whole core and its event loop hundreds of ms late, which a watcher's
 * measured wait then included; spread over processes, each loop has a share of the sockets and
 * the taps go out of a loop that reads nothing else.
 *
 * Times are CLOCK_MONOTONIC (`process.hrtime`, one clock for every process of the machine on
 * Linux), so a tap's send time in one process and a frame's arrival in another subtract; the
 * coordinator checks it at start (`clock`: its time before asking and after the answer must
 * bracket the crowd's).
 */
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import WebSocket from 'ws';
import { sleep, watchLoopDelay } from './load.js';
import { monotonicMicros } from './proc.js';

/** A crowd process's share: global client indexes [first, first + count). */
export interface CrowdShare {
  role: 'watchers' | 'tappers';
  origin: string;
  group: { name: string; key: string; counterIds: string[] };
  first: number;
  count: number;
  /** Index of the first watcher of the whole room: watcher i measures if (i - it) % measureEvery is 0. */
  firstWatcher: number;
  measureEvery: number;
  /** Handshakes this process keeps in flight while it connects. */
  connectingAtOnce: number;
  /** Names the members of one run apart from any before on the same server. */
  run: string;
}

export type CrowdOrder =
  | ({ type: 'connect' } & CrowdShare)
  | { type: 'clock' }
  | { type: 'mark' }
  | { type: 'offer'; rate: number; durationMs: number }
  | { type: 'stop' }
  | { type: 'drain'; timeoutMs: number }
  | { type: 'report' }
  | { type: 'close' };

/** What a share of the crowd saw since the last `mark`. */
export interface CrowdReport {
  /** Each client's last change number. */
  seqs: Float64Array;
  frames: number;
  closedByServer: number;
  /** Measuring watchers' timelines: change numbers reached, and when (µs, CLOCK_MONOTONIC). */
  timelines: { seqs: Float64Array; times: Float64Array }[];
  /** Tappers only: the taps sent since the mark that were acknowledged, their change number and send time (µs). */
  acked: { versions: Float64Array; sentAt: Float64Array };
  /** Tappers only: taps sent since the mark, answered `busy`, and acknowledged per counter id. */
  sent: number;
  refused: number;
  ackedByCounter: Record<string, number>;
  /** Tappers only: every answer's latency since the mark, µs. */
  answers: Float64Array;
}

export type CrowdAnswer =
  | { type: 'connected' }
  | { type: 'clock'; nowMicros: number }
  | { type: 'marked' }
  | { type: 'offered'; acked: number }
  | { type: 'stopped'; loopDelayP99Micros: number }
  | { type: 'drained'; unanswered: number }
  | ({ type: 'report' } & CrowdReport)
  | { type: 'closed' };

/** Client addresses the crowd connects from: 127.0.0.2 … 127.0.0.(ADDRESSES + 1). */
const ADDRESSES = 200;
/** A server frame the client accepts, bytes (far above any snapshot of a 20-counter group). */
const MAX_PAYLOAD = 64 * 2 ** 20;
/** One read of a watcher socket, shared by every socket of the process (each read is handled at once), bytes. */
const READ_BUFFER_BYTES = 256 * 1024;
/** How often a share still connecting says how far it is, ms. */
const CONNECT_PROGRESS_MS = 15_000;
/** The longest `"seq":<number>` a chunk's end can cut, bytes. */
const TAIL_BYTES = 24;
const SEQ = Buffer.from('"seq":');
const VERSION = /"version":(\d+)/;
const OP_NUMBER = /"opId":"[^".]+\.(\d+)"/;
const ACK_HEAD = Buffer.from('{"type":"ack"');
const ERROR_HEAD = Buffer.from('{"type":"error"');

const nowMicros = monotonicMicros;

const addressOf = (index: number) =>
  `127.0.${Math.floor((2 + (index % ADDRESSES)) / 256)}.${(2 + (index % ADDRESSES)) % 256}`;

const memberOf = (index: number, run: string) => ({
  id: `m${index}-${run}`,
  name: `Member ${index}`,
});

/**
 * The number after the last `"seq":` in bytes [start, end) whose digits end inside them (a frame's
 * last change number; a `ready`'s own `seq` comes last too), or -1.
 */
function lastSeq(bytes: Buffer, start: number, end: number): number {
  // (A negative offset would search from the end of the whole buffer.)
  if (end - start < SEQ.length) return -1;
  let at = bytes.lastIndexOf(SEQ, end - SEQ.length);
  while (at >= start) {
    let value = 0;
    let i = at + SEQ.length;
    for (; i < end; i++) {
      const digit = (bytes[i] ?? 0) - 48;
      if (digit < 0 || digit > 9) break;
      value = value * 10 + digit;
    }
    if (i < end && i > at + SEQ.length) return value;
    // Cut by the chunk's end: the number goes on in the next chunk, so an earlier one is the last whole one.
    at = at > 0 ? bytes.lastIndexOf(SEQ, at - 1) : -1;
  }
  return -1;
}

const startsWith = (frame: Buffer, head: Buffer) =>
  frame.length >= head.length && frame.compare(head, 0, head.length, 0, head.length) === 0;

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
    if (seq <= this.seq) return;
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
class WsMember extends Seen {
  readonly socket: WebSocket;

  constructor(share: CrowdShare, index: number, onAnswer: (frame: Buffer) => void) {
    super(false);
    this.socket = new WebSocket(`${share.origin}/api/groups/${share.group.name}/live`, {
      localAddress: addressOf(index),
      perMessageDeflate: false,
      maxPayload: MAX_PAYLOAD,
      // The server's frames are its own JSON: checking their UTF-8 only costs the generator.
      skipUTF8Validation: true,
    });
    this.socket.on('open', () => {
      // As the web app does, each member says who they are (presence).
      const member = memberOf(index, share.run);
      this.socket.send(JSON.stringify({ type: 'auth', protocol: 1, key: share.group.key, member }));
    });
    this.socket.on('message', (data: Buffer) => {
      if (startsWith(data, ACK_HEAD) || startsWith(data, ERROR_HEAD)) {
        onAnswer(data);
        return;
      }
      this.frames += 1;
      this.saw(lastSeq(data, 0, data.length));
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

const PONG = clientFrame(0xa, '');
/** Every watcher socket of the process reads into this one buffer (net `onread`): no Buffer per read. */
const readBuffer = Buffer.allocUnsafe(READ_BUFFER_BYTES);

/**
 * A watcher on a bare TCP socket: the WebSocket handshake and frame headers by hand (RFC 6455),
 * its frames' payloads never copied nor decoded. A crowd of `ws` clients costs the generator more
 * CPU than the server under test (one event and one Buffer per frame per socket). This one reads
 * into the process's one read buffer (no stream events, no allocation per read), walks the frame
 * headers (answering pings, so the server's heartbeat keeps it), and finds the read's last whole
 * change number with one search. A change number cannot be cut by a frame header (it lies inside
 * one frame's payload), only by a read's end: the previous read's tail is kept for that case.
 */
class RawWatcher extends Seen {
  private readonly socket: net.Socket;
  private upgraded = false;
  private head = '';
  /** Bytes of the current frame's payload still to come, and whether it is a ping's. */
  private payloadLeft = 0;
  private inPing = false;
  /** A frame header cut by a read's end. */
  private partial: Buffer | null = null;
  /** The previous read's last bytes, in case its last change number was cut. */
  private readonly tail = Buffer.alloc(TAIL_BYTES);
  private tailLength = 0;

  constructor(share: CrowdShare, origin: URL, index: number, measures: boolean) {
    super(measures);
    this.socket = net.connect({
      host: origin.hostname,
      port: Number(origin.port),
      localAddress: addressOf(index),
      onread: {
        buffer: readBuffer,
        callback: (bytes: number, buffer: Uint8Array) => {
          this.read(buffer as Buffer, bytes);
          return true;
        },
      },
    });
    this.socket.setNoDelay(true);
    this.socket.on('connect', () => {
      this.socket.write(
        `GET /api/groups/${share.group.name}/live HTTP/1.1\r\nHost: ${origin.host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
      );
      const member = memberOf(index, share.run);
      this.socket.write(
        clientFrame(
          0x1,
          JSON.stringify({ type: 'auth', protocol: 1, key: share.group.key, member }),
        ),
      );
    });
    this.socket.on('close', () => {
      this.ended();
    });
    this.socket.on('error', () => undefined);
  }

  private read(buffer: Buffer, end: number): void {
    let start = 0;
    if (!this.upgraded) {
      this.head += buffer.toString('latin1', 0, end);
      const headEnd = this.head.indexOf('\r\n\r\n');
      if (headEnd < 0) return;
      this.upgraded = true;
      // What followed the response's head is the first frames (bytes as latin1: one to one).
      start = end - (this.head.length - headEnd - 4);
      this.head = '';
    }
    if (start >= end) return;
    this.walk(buffer, start, end);
    let seq = lastSeq(buffer, start, end);
    if (seq < 0 && this.tailLength > 0) {
      // No whole change number in this read: one may have begun in the previous read's tail.
      const joined = Buffer.concat([
        this.tail.subarray(0, this.tailLength),
        buffer.subarray(start, Math.min(end, start + TAIL_BYTES)),
      ]);
      seq = lastSeq(joined, 0, joined.length);
    }
    this.saw(seq);
    this.keepTail(buffer, start, end);
  }

  /** The last TAIL_BYTES read so far, across reads shorter than that. */
  private keepTail(buffer: Buffer, start: number, end: number): void {
    const fresh = Math.min(TAIL_BYTES, end - start);
    const older = Math.min(this.tailLength, TAIL_BYTES - fresh);
    this.tail.copy(this.tail, 0, this.tailLength - older, this.tailLength);
    buffer.copy(this.tail, older, end - fresh, end);
    this.tailLength = older + fresh;
  }

  /** Walks frame headers in bytes [start, end): counts frames, answers pings, notices a close. */
  private walk(buffer: Buffer, start: number, end: number): void {
    let data = buffer;
    let at = start;
    let stop = end;
    if (this.partial) {
      data = Buffer.concat([this.partial, buffer.subarray(start, end)]);
      at = 0;
      stop = data.length;
      this.partial = null;
    }
    while (at < stop) {
      if (this.payloadLeft > 0) {
        const take = Math.min(this.payloadLeft, stop - at);
        this.payloadLeft -= take;
        at += take;
        if (this.payloadLeft === 0 && this.inPing) this.socket.write(PONG);
        continue;
      }
      if (stop - at < 2) {
        this.partial = Buffer.from(data.subarray(at, stop));
        return;
      }
      const opcode = (data[at] ?? 0) & 0x0f;
      const short = (data[at + 1] ?? 0) & 0x7f;
      const headerBytes = short === 126 ? 4 : short === 127 ? 10 : 2;
      if (stop - at < headerBytes) {
        this.partial = Buffer.from(data.subarray(at, stop));
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
      if (length === 0 && this.inPing) this.socket.write(PONG);
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

/** A tapper: a member that also taps; its taps' send times, change numbers and answer times. */
class Tapper {
  readonly member: WsMember;
  private n = 0;
  /** By operation number: send time (µs) and change number (-1 until acked). */
  readonly sentAt: number[] = [];
  readonly version: number[] = [];
  answered = 0;
  refused = 0;
  errors = 0;
  private readonly opIdPrefix: string;

  constructor(
    share: CrowdShare,
    index: number,
    readonly counterId: string,
    onAnswerLatency: (micros: number) => void,
  ) {
    this.opIdPrefix = `t${index}s${share.run}.`;
    this.member = new WsMember(share, index, (frame) => {
      const answeredAt = nowMicros();
      this.answered += 1;
      const text = frame.toString();
      const n = Number(OP_NUMBER.exec(text)?.[1] ?? -1);
      const sentAt = this.sentAt[n];
      if (sentAt !== undefined) onAnswerLatency(answeredAt - sentAt);
      if (startsWith(frame, ERROR_HEAD)) {
        if (text.includes('"code":"busy"')) this.refused += 1;
        else this.errors += 1;
        return;
      }
      this.version[n] = Number(VERSION.exec(text)?.[1] ?? -1);
    });
  }

  tap(): void {
    const n = ++this.n;
    this.version[n] = -1;
    const message = `{"type":"mutate","opId":"${this.opIdPrefix}${n}","mutation":{"kind":"adjustCounter","counterId":"${this.counterId}","direction":"increment","times":1}}`;
    this.sentAt[n] = nowMicros();
    this.member.socket.send(message);
  }

  get sent(): number {
    return this.n;
  }
}

/** This process's share of the crowd, once connected. */
class Crowd {
  readonly watchers: RawWatcher[] = [];
  readonly tappers: Tapper[] = [];
  private answers: number[] = [];
  private firstOp: number[] = [];
  private framesAtMark = 0;
  private closedAtMark = 0;
  private answeredAtMark = 0;
  private refusedAtMark = 0;
  private loopDelay: { stop(): number } | undefined;

  get everyone(): Seen[] {
    return [...this.tappers.map((tapper) => tapper.member), ...this.watchers];
  }

  /** Connects the share, `connectingAtOnce` handshakes in flight (the next starts as one ends). */
  async connect(share: CrowdShare): Promise<void> {
    const origin = new URL(share.origin.replace(/^ws/, 'http'));
    const inFlight = new Set<Promise<void>>();
    let connected = 0;
    // A large room can take minutes to join a busy server: say how far it is.
    const progress = setInterval(() => {
      process.stderr.write(
        `· hot room crowd, ${share.role} ${share.first}–${share.first + share.count - 1}: ${connected} of ${share.count} connected\n`,
      );
    }, CONNECT_PROGRESS_MS);
    for (let index = share.first; index < share.first + share.count; index++) {
      let ready: Promise<void>;
      if (share.role === 'tappers') {
        const counterId = share.group.counterIds[index % share.group.counterIds.length] ?? '';
        const tapper = new Tapper(share, index, counterId, (micros) => {
          this.answers.push(micros);
        });
        this.tappers.push(tapper);
        ready = tapper.member.ready;
      } else {
        const measures = (index - share.firstWatcher) % share.measureEvery === 0;
        const watcher = new RawWatcher(share, origin, index, measures);
        this.watchers.push(watcher);
        ready = watcher.ready;
      }
      const settled = ready.then(() => {
        connected += 1;
        inFlight.delete(settled);
      });
      inFlight.add(settled);
      if (inFlight.size >= share.connectingAtOnce) await Promise.race(inFlight);
    }
    await Promise.all(inFlight);
    clearInterval(progress);
  }

  private answeredOk(): number {
    return this.tappers.reduce((sum, t) => sum + t.answered - t.refused - t.errors, 0);
  }

  /** A window starts: what follows is counted, and the event loop's delay watched. */
  mark(): void {
    this.answers = [];
    this.firstOp = this.tappers.map((tapper) => tapper.sent + 1);
    this.framesAtMark = this.everyone.reduce((sum, client) => sum + client.frames, 0);
    this.closedAtMark = this.everyone.reduce((sum, client) => sum + client.closedByServer, 0);
    this.answeredAtMark = this.answeredOk();
    this.refusedAtMark = this.tappers.reduce((sum, t) => sum + t.refused, 0);
    for (const watcher of this.watchers) {
      watcher.seqs = [];
      watcher.times = [];
    }
    this.loopDelay = watchLoopDelay();
  }

  /** Open loop: `rate` taps/s over this share's tappers, on schedule whatever the answers. */
  async offer(rate: number, durationMs: number): Promise<number> {
    const tappers = this.tappers;
    const answeredBefore = this.answeredOk();
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
    return this.answeredOk() - answeredBefore;
  }

  stop(): number {
    const p99 = this.loopDelay?.stop() ?? 0;
    this.loopDelay = undefined;
    return p99;
  }

  async drain(timeoutMs: number): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    const outstanding = () =>
      this.tappers.reduce((sum, tapper) => sum + tapper.sent - tapper.answered, 0);
    while (outstanding() > 0 && Date.now() < deadline) await sleep(50);
    return outstanding();
  }

  report(): CrowdReport {
    const everyone = this.everyone;
    const versions: number[] = [];
    const sentAt: number[] = [];
    const ackedByCounter: Record<string, number> = {};
    let sent = 0;
    this.tappers.forEach((tapper, i) => {
      const first = this.firstOp[i] ?? 1;
      sent += tapper.sent - first + 1;
      for (let n = first; n <= tapper.sent; n++) {
        const version = tapper.version[n] ?? -1;
        if (version < 0) continue;
        versions.push(version);
        sentAt.push(tapper.sentAt[n] ?? 0);
        ackedByCounter[tapper.counterId] = (ackedByCounter[tapper.counterId] ?? 0) + 1;
      }
    });
    return {
      seqs: Float64Array.from(everyone, (client) => client.seq),
      frames: everyone.reduce((sum, client) => sum + client.frames, 0) - this.framesAtMark,
      closedByServer:
        everyone.reduce((sum, client) => sum + client.closedByServer, 0) - this.closedAtMark,
      timelines: this.watchers
        .filter((watcher) => watcher.measures)
        .map((watcher) => ({
          seqs: Float64Array.from(watcher.seqs),
          times: Float64Array.from(watcher.times),
        })),
      acked: { versions: Float64Array.from(versions), sentAt: Float64Array.from(sentAt) },
      sent,
      refused: this.tappers.reduce((sum, t) => sum + t.refused, 0) - this.refusedAtMark,
      ackedByCounter,
      answers: Float64Array.from(this.answers),
    };
  }

  close(): void {
    for (const tapper of this.tappers) tapper.member.close();
    for (const watcher of this.watchers) watcher.close();
  }
}

const crowd = new Crowd();

async function answer(order: CrowdOrder): Promise<CrowdAnswer> {
  switch (order.type) {
    case 'connect':
      await crowd.connect(order);
      return { type: 'connected' };
    case 'clock':
      return { type: 'clock', nowMicros: nowMicros() };
    case 'mark':
      crowd.mark();
      return { type: 'marked' };
    case 'offer':
      return { type: 'offered', acked: await crowd.offer(order.rate, order.durationMs) };
    case 'stop':
      return { type: 'stopped', loopDelayP99Micros: crowd.stop() };
    case 'drain':
      return { type: 'drained', unanswered: await crowd.drain(order.timeoutMs) };
    case 'report':
      return { type: 'report', ...crowd.report() };
    case 'close':
      crowd.close();
      return { type: 'closed' };
  }
}

// Started by the coordinator (fork): orders come over IPC; without it there is nothing to do.
if (process.send) {
  process.on('message', (order: CrowdOrder) => {
    answer(order).then(
      (reply) => process.send?.(reply),
      (error: unknown) => {
        process.stderr.write(
          `hot room crowd: ${error instanceof Error ? error.message : String(error)}\n`,
        );
        process.exit(1);
      },
    );
  });
  // The coordinator is gone (finished or failed): so is its crowd.
  process.on('disconnect', () => process.exit(0));
}
