/**
 * A large group's fan-out (src/server/live/fanout.ts, channel.ts): its changes go out at most once
 * per window, folded and bounded, with change numbers covered without gaps; a small group's
 * changes go out at once.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { vi } from 'vitest';
import type { FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import { MemoryBus } from '../../src/server/bus/memory.js';
import { GroupChannel, type ChannelMember } from '../../src/server/live/channel.js';
import type { SharedFrame } from '../../src/server/live/corked.js';
import {
  BIG_GROUP_MEMBERS,
  FoldingBuffer,
  MAX_CHANGES_PER_FRAME,
  MAX_FOLDED_OP_IDS,
  MAX_FRAME_BYTES,
  MAX_WINDOW_MS,
  windowMsFor,
} from '../../src/server/live/fanout.js';
import type { Counter } from '../../src/shared/api.js';
import { ServerMessageSchema, type Change, type ServerMessage } from '../../src/shared/protocol.js';
import { emptySnapshotAt, noPurpose } from '../helpers/fixtures.js';
import { frameText } from '../helpers/frames.js';

const log = pino({ level: 'silent' }) as unknown as FastifyBaseLogger;
const GROUP = 'g1';

function counter(id: string, value: number, version: number, name = 'C'): Counter {
  return {
    id,
    name,
    description: '',
    value,
    incrementStep: 1,
    decrementStep: 1,
    thumbnailUrl: null,
    ...noPurpose(value),
    createdAt: new Date(0).toISOString(),
    version,
  };
}

/** Counter `id` taken to `seq` by change number `seq` (its value follows its number). */
function tap(seq: number, id = 'c1', opIds?: string[]): Change {
  return {
    type: 'counter.updated',
    seq,
    counter: counter(id, seq, seq),
    ...(opIds ? { opIds } : {}),
  };
}

type Changes = Extract<ServerMessage, { type: 'changes' }>;

class RecordingMember implements ChannelMember {
  readonly frames: Changes[] = [];
  readies = 0;
  sendSnapshot(): void {
    this.readies += 1;
  }
  sendFrame(frame: string | SharedFrame): void {
    const message = ServerMessageSchema.parse(JSON.parse(frameText(frame)));
    if (message.type === 'changes') this.frames.push(message);
  }
  seesPart(): boolean {
    return false;
  }
  sendChanges(): void {
    throw new Error('only tap-link members take changes one by one');
  }
  stillOpens(): boolean {
    return true;
  }
  revoke(): void {
    throw new Error('not revoked here');
  }
  seqs(): number[] {
    return this.frames.flatMap((frame) => frame.changes.map((change) => change.seq));
  }
}

const snapshotAt = (seq: number) => emptySnapshotAt(seq, GROUP);

function channelWith(members: number, snapshotSeq = 0) {
  const bus = new MemoryBus();
  const channel = new GroupChannel({
    bus,
    groupId: GROUP,
    loadSnapshot: () => Promise.resolve(snapshotAt(snapshotSeq)),
    loadGroup: () => Promise.resolve(null),
    log,
  });
  const recorded = Array.from({ length: members }, () => new RecordingMember());
  return { bus, channel, recorded };
}

async function join(channel: GroupChannel, members: RecordingMember[]): Promise<void> {
  for (const member of members) await channel.add(member);
}

/** Every change number from `from` to each frame's last change is covered, with no gap between frames. */
function expectContinuous(frames: Changes[], firstSeq: number): void {
  let next = firstSeq;
  for (const frame of frames) {
    const from = frame.from ?? frame.changes[0]?.seq;
    expect(from).toBe(next);
    const seqs = frame.changes.map((change) => change.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    next = (seqs.at(-1) ?? next) + 1;
  }
}

describe('the window of a group', () => {
  it('is none below the bound and grows with the members up to its maximum', () => {
    expect(windowMsFor(1)).toBe(0);
    expect(windowMsFor(BIG_GROUP_MEMBERS - 1)).toBe(0);
    expect(windowMsFor(BIG_GROUP_MEMBERS)).toBeGreaterThan(0);
    expect(windowMsFor(5_000)).toBeGreaterThan(windowMsFor(1_000));
    expect(windowMsFor(1_000_000)).toBe(MAX_WINDOW_MS);
  });
});

describe('FoldingBuffer', () => {
  it("folds one counter's consecutive changes into its latest, covering every number", () => {
    const buffer = new FoldingBuffer();
    buffer.push([tap(5, 'a', ['o5']), tap(6, 'b', ['o6'])]);
    buffer.push([tap(7, 'a', ['o7']), tap(8, 'a', ['o8'])]);
    const frames = buffer.take();
    expect(frames).toHaveLength(1);
    expect(frames[0]?.from).toBe(5);
    const changes = frames[0]?.changes ?? [];
    expect(changes.map((change) => change.seq)).toEqual([6, 8]);
    const a = changes[1];
    expect(a?.type === 'counter.updated' && a.counter.value).toBe(8);
    expect(a?.opIds).toEqual(['o5', 'o7', 'o8']);
    expect(changes[0]?.opIds).toEqual(['o6']);
    expect(buffer.size).toBe(0);
    expect(buffer.take()).toEqual([]);
  });

  it('keeps the goal reached by any folded change', () => {
    const buffer = new FoldingBuffer();
    buffer.push([{ ...tap(1), goalReachedBy: 'Ada' } as Change, tap(2)]);
    const [change] = buffer.take()[0]?.changes ?? [];
    expect(change?.type === 'counter.updated' && change.goalReachedBy).toBe('Ada');
    expect(change?.seq).toBe(2);
  });

  it('never folds across other kinds of change, and keeps them in order', () => {
    const buffer = new FoldingBuffer();
    const deleted: Change = { type: 'counter.deleted', seq: 3, counterId: 'b' };
    const reordered: Change = { type: 'counters.reordered', seq: 4, counterIds: ['a'] };
    buffer.push([tap(1, 'a'), tap(2, 'b'), deleted, reordered, tap(5, 'a')]);
    const changes = buffer.take()[0]?.changes ?? [];
    expect(changes.map((change) => `${change.type}@${change.seq}`)).toEqual([
      'counter.updated@2',
      'counter.deleted@3',
      'counters.reordered@4',
      'counter.updated@5',
    ]);
  });

  it('carries no operation ids once a folded change stands for more than its bound', () => {
    const buffer = new FoldingBuffer();
    for (let seq = 1; seq <= MAX_FOLDED_OP_IDS + 1; seq++)
      buffer.push([tap(seq, 'a', [`o${seq}`])]);
    const [change] = buffer.take()[0]?.changes ?? [];
    expect(change?.seq).toBe(MAX_FOLDED_OP_IDS + 1);
    expect(change?.opIds).toBeUndefined();
  });

  it('splits a window into frames within the bounds, numbers continuing from frame to frame', () => {
    const buffer = new FoldingBuffer();
    const counters = MAX_CHANGES_PER_FRAME * 2 + 7;
    for (let seq = 1; seq <= counters; seq++) buffer.push([tap(seq, `counter-${seq}`)]);
    const frames = buffer.take();
    expect(frames.length).toBeGreaterThan(2);
    for (const frame of frames) {
      expect(frame.changes.length).toBeLessThanOrEqual(MAX_CHANGES_PER_FRAME);
      expect(JSON.stringify(frame.changes).length).toBeLessThanOrEqual(MAX_FRAME_BYTES);
    }
    expect(frames.flatMap((frame) => frame.changes).map((change) => change.seq)).toEqual(
      Array.from({ length: counters }, (_, i) => i + 1),
    );
    expectContinuous(
      frames.map((frame) => ({ type: 'changes', ...frame })),
      1,
    );
  });

  it("never splits one change number's changes between frames", () => {
    const buffer = new FoldingBuffer();
    const many = Array.from({ length: MAX_CHANGES_PER_FRAME + 5 }, (_, i) =>
      tap(1, `counter-${i}`),
    ).map((change) => ({ ...change, seq: 1 }));
    buffer.push(many);
    buffer.push([tap(2, 'other')]);
    const frames = buffer.take();
    expect(frames[0]?.changes).toHaveLength(MAX_CHANGES_PER_FRAME + 5);
    expect(frames[1]).toEqual({ from: 2, changes: [tap(2, 'other')] });
  });
});

describe('a channel', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("sends a small group's every change at once, one frame per batch, as before", async () => {
    const { bus, channel, recorded } = channelWith(BIG_GROUP_MEMBERS - 1);
    await join(channel, recorded);
    bus.publish(GROUP, [tap(1)]);
    bus.publish(GROUP, [tap(2)]);
    bus.publish(GROUP, [tap(3), tap(4, 'b')]);
    for (const member of recorded) {
      expect(member.frames).toHaveLength(3);
      expect(member.seqs()).toEqual([1, 2, 3, 4]);
      expect(member.frames.every((frame) => frame.from === undefined)).toBe(true);
    }
    channel.close();
  });

  it("sends a large group's first change at once and the rest of its window folded at its end", async () => {
    const members = BIG_GROUP_MEMBERS * 3;
    const { bus, channel, recorded } = channelWith(members);
    await join(channel, recorded);
    bus.publish(GROUP, [tap(1)]);
    for (const member of recorded) expect(member.seqs()).toEqual([1]);
    for (let seq = 2; seq <= 40; seq++) bus.publish(GROUP, [tap(seq, seq % 2 ? 'a' : 'b')]);
    for (const member of recorded) expect(member.frames).toHaveLength(1);
    vi.advanceTimersByTime(windowMsFor(members));
    for (const member of recorded) {
      expect(member.frames).toHaveLength(2);
      expect(member.frames[1]?.from).toBe(2);
      expect(member.seqs()).toEqual([1, 39, 40]);
      expectContinuous(member.frames, 1);
    }
    // The values each member ends with are the counters' last.
    const last = recorded[0]?.frames[1]?.changes ?? [];
    expect(last.map((change) => change.type === 'counter.updated' && change.counter.value)).toEqual(
      [39, 40],
    );
    // A quiet window sends nothing and closes: the next change goes at once again.
    vi.advanceTimersByTime(windowMsFor(members) * 2);
    bus.publish(GROUP, [tap(41)]);
    for (const member of recorded) expect(member.seqs().at(-1)).toBe(41);
    channel.close();
  });

  it('loses nothing and never goes back across many windows of a busy large group', async () => {
    const members = BIG_GROUP_MEMBERS * 2;
    const { bus, channel, recorded } = channelWith(members);
    await join(channel, recorded);
    let value = 0;
    for (let seq = 1; seq <= 1_000; seq++) {
      value = seq;
      bus.publish(GROUP, [tap(seq, `c${seq % 3}`)]);
      if (seq % 7 === 0) vi.advanceTimersByTime(1);
    }
    vi.advanceTimersByTime(MAX_WINDOW_MS * 2);
    for (const member of recorded) {
      expectContinuous(member.frames, 1);
      expect(member.seqs().at(-1)).toBe(value);
      // Fewer frames than batches: the windows folded them.
      expect(member.frames.length).toBeLessThan(1_000);
    }
    channel.close();
  });

  it('gives a member who joins during a window only what its snapshot lacks', async () => {
    const members = BIG_GROUP_MEMBERS;
    const snapshot = { seq: 0 };
    const bus = new MemoryBus();
    const channel = new GroupChannel({
      bus,
      groupId: GROUP,
      loadSnapshot: () => Promise.resolve(snapshotAt(snapshot.seq)),
      loadGroup: () => Promise.resolve(null),
      log,
    });
    const early = Array.from({ length: members }, () => new RecordingMember());
    await join(channel, early);
    bus.publish(GROUP, [tap(1)]);
    bus.publish(GROUP, [tap(2, 'b'), tap(3)]);
    snapshot.seq = 3;
    const late = new RecordingMember();
    await channel.add(late);
    bus.publish(GROUP, [tap(4, 'b')]);
    vi.advanceTimersByTime(MAX_WINDOW_MS);
    expect(late.seqs()).toEqual([4]);
    expect(late.frames[0]?.from).toBe(4);
    expect(early[0]?.seqs()).toEqual([1, 3, 4]);
    expectContinuous(early[0]?.frames ?? [], 1);
    channel.close();
  });
});
