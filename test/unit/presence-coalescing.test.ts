/**
 * Presence broadcasts are coalesced per group (src/server/live/presence.ts, coalesce.ts): however
 * many renames, a group's list goes to its sockets and over the bus at most once per window (the
 * first change at once), and the last list sent is always the current one.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { PresenceMember } from '../../src/shared/protocol.js';
import type { Bus, PresenceAnnouncement } from '../../src/server/bus/types.js';
import { Coalescer } from '../../src/server/live/coalesce.js';
import { HEARTBEAT_SLICES } from '../../src/server/live/heartbeat.js';
import {
  PRESENCE_HEARTBEAT_MS,
  PRESENCE_WINDOW_MS,
  PresenceBoard,
} from '../../src/server/live/presence.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('Coalescer', () => {
  it('flushes a quiet key at once and folds later changes into one flush per window', () => {
    const flushed: string[] = [];
    const coalescer = new Coalescer(100, (key) => flushed.push(key));
    coalescer.schedule('a');
    expect(flushed).toEqual(['a']);
    for (let i = 0; i < 50; i++) coalescer.schedule('a');
    coalescer.schedule('b');
    expect(flushed).toEqual(['a', 'b']);
    vi.advanceTimersByTime(100);
    expect(flushed).toEqual(['a', 'b', 'a']);
    // A window without changes sends nothing and forgets the key: the next change goes at once.
    vi.advanceTimersByTime(500);
    expect(flushed).toEqual(['a', 'b', 'a']);
    coalescer.schedule('a');
    expect(flushed).toEqual(['a', 'b', 'a', 'a']);
    coalescer.close();
  });
});

describe('PresenceBoard', () => {
  function fakeBus(published: PresenceAnnouncement[]): Bus {
    return {
      publishPresence: (groupId: string, list: () => readonly PresenceMember[]) => {
        const members = [...list()];
        published.push({
          instanceId: 'me',
          groupId,
          members: structuredClone(members),
          count: members.length,
        });
      },
      onPresence: () => () => undefined,
    } as unknown as Bus;
  }

  /** A board on a bus that only hears other instances; `frames` are its broadcasts' member ids. */
  function listeningBoard() {
    const listeners: ((announcement: PresenceAnnouncement) => void)[] = [];
    const bus = {
      publishPresence: () => undefined,
      onPresence: (listener: (announcement: PresenceAnnouncement) => void) => {
        listeners.push(listener);
        return () => undefined;
      },
    } as unknown as Bus;
    const frames: string[][] = [];
    const board = new PresenceBoard(bus, (_groupId, { members }) => {
      frames.push(members.map((m) => m.id));
    });
    const hear = (announcement: PresenceAnnouncement) => {
      for (const listener of listeners) listener(announcement);
    };
    return { hear, frames, board };
  }

  it('sends a storm of renames as at most one frame per window, locally and over the bus, last name winning', () => {
    const published: PresenceAnnouncement[] = [];
    const frames: PresenceMember[][] = [];
    const board = new PresenceBoard(fakeBus(published), (_groupId, { members }) => {
      frames.push(structuredClone(members));
    });
    const sockets = Array.from({ length: 30 }, () => ({}));
    sockets.forEach((socket, i) => {
      board.join('g', socket, { id: `m${i}`, name: `M${i}` });
    });
    // One second of 30 sockets renaming 20 times a second: 600 renames.
    const steps = 20;
    for (let step = 0; step < steps; step++) {
      sockets.forEach((socket, i) => {
        board.rename('g', socket, `M${i}-${step}`);
      });
      vi.advanceTimersByTime(1000 / steps);
    }
    vi.advanceTimersByTime(PRESENCE_WINDOW_MS);
    const perSecond = 1000 / PRESENCE_WINDOW_MS + 1;
    // The joins and renames together lasted 1 s plus one window.
    expect(frames.length).toBeLessThanOrEqual(perSecond + 1);
    expect(published.length).toBeLessThanOrEqual(perSecond + 1);
    const last = sockets.map((_s, i) => `M${i}-${steps - 1}`).sort((a, b) => a.localeCompare(b));
    expect(frames.at(-1)?.map((m) => m.name)).toEqual(last);
    expect(
      published
        .at(-1)
        ?.members.map((m) => m.name)
        .sort((a, b) => a.localeCompare(b)),
    ).toEqual(last);
    board.close();
  });

  it('announces the last member leaving', () => {
    const published: PresenceAnnouncement[] = [];
    const frames: PresenceMember[][] = [];
    const board = new PresenceBoard(fakeBus(published), (_groupId, { members }) => {
      frames.push(members);
    });
    const socket = {};
    board.join('g', socket, { id: 'a', name: 'Ada' });
    board.leave('g', socket);
    vi.advanceTimersByTime(PRESENCE_WINDOW_MS);
    expect(frames.at(-1)).toEqual([]);
    expect(published.at(-1)?.members).toEqual([]);
    board.close();
  });

  it('re-announces every group once per heartbeat, spread over it rather than all in one turn', () => {
    const published: PresenceAnnouncement[] = [];
    const board = new PresenceBoard(fakeBus(published), () => undefined);
    const groups = Array.from({ length: 600 }, (_g, i) => `g${i}`);
    for (const groupId of groups) board.join(groupId, {}, { id: 'a', name: 'Ada' });
    vi.advanceTimersByTime(PRESENCE_WINDOW_MS * 2);
    published.length = 0; // the joins' own announcements
    const perTick: number[] = [];
    for (let tick = 0; tick < HEARTBEAT_SLICES; tick++) {
      const before = published.length;
      vi.advanceTimersByTime(PRESENCE_HEARTBEAT_MS / HEARTBEAT_SLICES);
      perTick.push(published.length - before);
    }
    expect(new Set(published.map((a) => a.groupId))).toEqual(new Set(groups));
    expect(published).toHaveLength(groups.length);
    expect(Math.max(...perTick)).toBe(groups.length / HEARTBEAT_SLICES);
    board.close();
  });

  it("drops another instance's list once it stops renewing it, and tells this instance's sockets", () => {
    const { hear, frames, board } = listeningBoard();
    hear({ instanceId: 'alive', groupId: 'g', members: [{ id: 'c', name: 'Cy' }], count: 1 });
    hear({ instanceId: 'gone', groupId: 'g', members: [{ id: 'b', name: 'Bo' }], count: 1 });
    vi.advanceTimersByTime(PRESENCE_WINDOW_MS);
    expect(frames.at(-1)).toEqual(['b', 'c']);
    // "alive" renews every heartbeat; "gone" never does again. Its list lives 3 heartbeats.
    for (let beat = 0; beat < 5; beat++) {
      vi.advanceTimersByTime(PRESENCE_HEARTBEAT_MS);
      hear({ instanceId: 'alive', groupId: 'g', members: [{ id: 'c', name: 'Cy' }], count: 1 });
    }
    vi.advanceTimersByTime(PRESENCE_WINDOW_MS);
    expect(frames.at(-1)).toEqual(['c']);
    expect(board.presenceOf('g').members.map((m) => m.id)).toEqual(['c']);
    board.close();
  });

  it("tells this instance's sockets when the last other instance's list of a group expires", () => {
    const { hear, frames, board } = listeningBoard();
    hear({ instanceId: 'gone', groupId: 'g', members: [{ id: 'b', name: 'Bo' }], count: 1 });
    expect(frames).toEqual([['b']]);
    // Nothing is heard again: the expiry sweep alone must send the empty list.
    vi.advanceTimersByTime(PRESENCE_HEARTBEAT_MS * 5);
    expect(frames.at(-1)).toEqual([]);
    board.close();
  });
});
