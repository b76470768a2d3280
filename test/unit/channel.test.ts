/** The per-group sequencer: members get every change once, in change-number order. */
import { describe, expect, it, vi } from 'vitest';
import type { FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import { MemoryBus } from '../../src/server/bus/memory.js';
import { GroupChannel, type ChannelMember } from '../../src/server/live/channel.js';
import type { GroupRecord } from '../../src/server/store/types.js';
import type { Counter, GroupView } from '../../src/shared/api.js';
import type { Change, ServerMessage } from '../../src/shared/protocol.js';
import { emptySnapshotAt, GROUP_CALENDAR_DEFAULTS, noPurpose } from '../helpers/fixtures.js';
import type { SharedFrame } from '../../src/server/live/corked.js';
import { frameText } from '../helpers/frames.js';

const log = pino({ level: 'silent' }) as unknown as FastifyBaseLogger;
const GROUP = 'g1';

function counterChange(seq: number): Change {
  const counter: Counter = {
    id: 'c1',
    name: 'C',
    description: '',
    value: seq,
    incrementStep: 1,
    decrementStep: 1,
    thumbnailUrl: null,
    ...noPurpose(seq),
    createdAt: new Date(0).toISOString(),
    version: seq,
  };
  return { type: 'counter.updated', seq, counter };
}

const snapshotAt = (seq: number) => emptySnapshotAt(seq, GROUP);

/** The group's stored key hash, as the channel's access re-check reads it. */
let storedKeyHash = 'old-key-hash';
const groupRecord = (): GroupRecord => ({
  id: GROUP,
  name: 'g',
  displayName: 'g',
  profileImageUrl: null,
  ...GROUP_CALENDAR_DEFAULTS,
  keyHash: storedKeyHash,
  viewKeyHash: null,
  tapLinks: [],
});

class RecordingMember implements ChannelMember {
  readonly received: (ServerMessage | { type: 'ready'; seq: number })[] = [];
  revoked = false;
  constructor(private readonly keyHash = 'old-key-hash') {}
  stillOpens(group: GroupRecord): boolean {
    return group.keyHash === this.keyHash;
  }
  revoke(): void {
    this.revoked = true;
  }
  sendSnapshot(snapshot: GroupView): void {
    this.received.push({ type: 'ready', seq: snapshot.seq });
  }
  sendFrame(frame: string | SharedFrame): void {
    this.received.push(JSON.parse(frameText(frame)) as ServerMessage);
  }
  seesPart(): boolean {
    return false;
  }
  sendChanges(changes: readonly Change[]): void {
    this.received.push({ type: 'changes', changes: [...changes] });
  }
  seqs(): number[] {
    return this.received.flatMap((m) => (m.type === 'changes' ? m.changes.map((c) => c.seq) : []));
  }
  readies(): number {
    return this.received.filter((m) => m.type === 'ready').length;
  }
}

function setup(snapshotSeq: () => number, gapTimeoutMs = 50) {
  const bus = new MemoryBus();
  let loads = 0;
  const channel = new GroupChannel({
    bus,
    groupId: GROUP,
    loadSnapshot: () => {
      loads += 1;
      return Promise.resolve(snapshotAt(snapshotSeq()));
    },
    loadGroup: () => Promise.resolve(groupRecord()),
    log,
    gapTimeoutMs,
  });
  return { bus, channel, loads: () => loads };
}

describe('group channel sequencer', () => {
  it('closes members whose key no longer opens the group after an access change, keeps the others', async () => {
    storedKeyHash = 'old-key-hash';
    const { bus, channel } = setup(() => 0);
    const before = new RecordingMember('old-key-hash');
    const after = new RecordingMember('new-key-hash');
    await channel.add(before);
    storedKeyHash = 'new-key-hash';
    await channel.add(after);
    bus.publish(GROUP, [{ type: 'group.accessChanged', seq: 1 }]);
    await vi.waitFor(() => {
      expect(before.revoked).toBe(true);
    });
    expect(after.revoked).toBe(false);
    bus.publish(GROUP, [counterChange(2)]);
    expect(after.seqs()).toEqual([1, 2]);
    expect(before.seqs()).toEqual([1]);
    channel.close();
    storedKeyHash = 'old-key-hash';
  });

  it('delivers in-order changes as they come', async () => {
    const { bus, channel } = setup(() => 0);
    const member = new RecordingMember();
    await channel.add(member);
    bus.publish(GROUP, [counterChange(1), counterChange(2)]);
    bus.publish(GROUP, [counterChange(3)]);
    expect(member.seqs()).toEqual([1, 2, 3]);
    channel.close();
  });

  it('holds a change that arrives before an older one and delivers both in order', async () => {
    const { bus, channel } = setup(() => 0);
    const member = new RecordingMember();
    await channel.add(member);
    bus.publish(GROUP, [counterChange(2)]);
    expect(member.seqs()).toEqual([]);
    bus.publish(GROUP, [counterChange(1)]);
    expect(member.seqs()).toEqual([1, 2]);
    channel.close();
  });

  it('drops duplicates and changes already in the snapshot', async () => {
    const { bus, channel } = setup(() => 5);
    const member = new RecordingMember();
    await channel.add(member);
    bus.publish(GROUP, [counterChange(4), counterChange(5), counterChange(6)]);
    bus.publish(GROUP, [counterChange(6)]);
    expect(member.seqs()).toEqual([6]);
    channel.close();
  });

  it('resends a snapshot when a missing change never arrives', async () => {
    let seq = 0;
    const { bus, channel } = setup(() => seq, 30);
    const member = new RecordingMember();
    await channel.add(member);
    seq = 3; // changes 1..3 were committed; 1 and 2 never reach this instance
    bus.publish(GROUP, [counterChange(3)]);
    await expect.poll(() => member.readies()).toBe(2);
    bus.publish(GROUP, [counterChange(4)]);
    expect(member.seqs()).toEqual([4]);
    channel.close();
  });

  it('gives a member that joins later only changes newer than its snapshot', async () => {
    let seq = 0;
    const { bus, channel } = setup(() => seq);
    const first = new RecordingMember();
    await channel.add(first);
    bus.publish(GROUP, [counterChange(1)]);
    seq = 1;
    const second = new RecordingMember();
    await channel.add(second);
    bus.publish(GROUP, [counterChange(2)]);
    expect(first.seqs()).toEqual([1, 2]);
    expect(second.seqs()).toEqual([2]);
    channel.close();
  });

  it('keeps changes that arrive while a snapshot loads and sends the newer ones after it', async () => {
    const bus = new MemoryBus();
    let release: (snapshot: GroupView) => void = () => undefined;
    const channel = new GroupChannel({
      bus,
      groupId: GROUP,
      loadSnapshot: () =>
        new Promise<GroupView>((resolve) => {
          release = resolve;
        }),
      loadGroup: () => Promise.resolve(groupRecord()),
      log,
    });
    const member = new RecordingMember();
    const adding = channel.add(member);
    bus.publish(GROUP, [counterChange(1), counterChange(2)]);
    release(snapshotAt(1));
    await adding;
    expect(member.received[0]).toEqual({ type: 'ready', seq: 1 });
    expect(member.seqs()).toEqual([2]);
    channel.close();
  });

  it('resync sends every member a fresh snapshot and continues from it', async () => {
    let seq = 2;
    const { bus, channel } = setup(() => seq);
    const member = new RecordingMember();
    await channel.add(member);
    seq = 10;
    await channel.resync();
    bus.publish(GROUP, [counterChange(9), counterChange(11)]);
    expect(member.readies()).toBe(2);
    expect(member.seqs()).toEqual([11]);
    channel.close();
  });
});
