/**
 * Presence broadcasts are coalesced per group (src/server/live/presence.ts, coalesce.ts): however
 * many renames, a group's list goes to its sockets and over the bus at most once per window (the
 * first change at once), and the last list sent is always the current one.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { PresenceMember } from '../../src/shared/protocol.js';
import type { Bus, PresenceAnnouncement } from '../../src/server/bus/types.js';
import { Coalescer } from '../../src/server/live/coalesce.js';
import { PRESENCE_WINDOW_MS, PresenceBoard } from '../../src/server/live/presence.js';

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
      publishPresence: (groupId: string, members: PresenceMember[]) => {
        published.push({ instanceId: 'me', groupId, members: structuredClone(members) });
      },
      onPresence: () => () => undefined,
    } as unknown as Bus;
  }

  it('sends a storm of renames as at most one frame per window, locally and over the bus, last name winning', () => {
    const published: PresenceAnnouncement[] = [];
    const frames: PresenceMember[][] = [];
    const board = new PresenceBoard(fakeBus(published), (_groupId, members) => {
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
    const board = new PresenceBoard(fakeBus(published), (_groupId, members) => {
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
});
