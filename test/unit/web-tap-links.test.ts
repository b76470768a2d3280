/**
 * Tap links on the web (docs/product.md#tap-links): what a page may tap, the words that say what
 * a link may do, "Ada · Gate B" in the log and on the board, and a revoked link's waiting taps.
 */
import { describe, expect, it } from 'vitest';
import type { ActivityEntry } from '../../src/shared/activity.js';
import type { Tally } from '../../src/shared/api.js';
import { actorOf, describeEntry } from '../../src/web/lib/describe.js';
import { leaderboard, leaderName } from '../../src/web/lib/tallies.js';
import { rightsSummary, scopeSummary } from '../../src/web/lib/tap-link-words.js';
import { directionRefused, tapLinkSentence, tapRights } from '../../src/web/lib/tap-links.js';
import { droppedTaps } from '../../src/web/live/groupStore.js';
import { Lanes, type LaneClock, type LaneHandlers } from '../../src/web/live/lanes.js';

describe('what a page may tap', () => {
  it('the access key taps both ways, a view-only link neither, a tap link what it was made for', () => {
    expect(tapRights('full', null)).toEqual({ increment: true, decrement: true });
    expect(tapRights('view', null)).toEqual({ increment: false, decrement: false });
    expect(tapRights('tap', { can: ['increment'] })).toEqual({
      increment: true,
      decrement: false,
    });
    expect(tapRights('tap', { can: ['decrement'] })).toEqual({
      increment: false,
      decrement: true,
    });
    expect(tapRights('tap', { can: ['increment', 'decrement'] })).toEqual({
      increment: true,
      decrement: true,
    });
    // A tap page whose link is not known yet taps nothing rather than everything.
    expect(tapRights('tap', null)).toEqual({ increment: false, decrement: false });
  });

  it('answers the same object for the same rights, so memoised cards do not render again', () => {
    expect(tapRights('tap', { can: ['increment'] })).toBe(tapRights('tap', { can: ['increment'] }));
    expect(tapRights('full', null)).toBe(tapRights('tap', { can: ['decrement', 'increment'] }));
  });
});

describe('a tap link in words', () => {
  it('says its scope and rights as the owner’s list shows them', () => {
    expect(scopeSummary({ all: true })).toBe('Every counter');
    expect(scopeSummary({ section: 'Entrances' })).toBe('Section Entrances');
    expect(scopeSummary({ counterIds: ['a'] })).toBe('1 counter');
    expect(scopeSummary({ counterIds: ['a', 'b', 'c'] }, 2)).toBe('2 counters');
    expect(rightsSummary(['increment', 'decrement'])).toBe('Count up and down');
    expect(rightsSummary(['increment'])).toBe('Count up only');
    expect(rightsSummary(['decrement'])).toBe('Count down only');
  });

  it('tells its holder what the page may do, the one direction included', () => {
    expect(tapLinkSentence({ scope: { section: 'Entrances' }, can: ['increment'] }, 2)).toBe(
      'you can count the counters of Entrances, up only. Nothing else can be changed with this link.',
    );
    expect(tapLinkSentence({ scope: { all: true }, can: ['increment', 'decrement'] }, 5)).toContain(
      'you can count every counter, up and down.',
    );
    expect(tapLinkSentence({ scope: { counterIds: ['a', 'b'] }, can: ['decrement'] }, 2)).toContain(
      'you can count 2 chosen counters, down only.',
    );
    expect(directionRefused('decrement')).toBe(
      'This tap link counts up only: it cannot take away.',
    );
  });
});

describe('the member and the link in the log and on the board', () => {
  const entry = (id: number, extra: Partial<ActivityEntry> = {}): ActivityEntry =>
    ({
      kind: 'counter.adjusted',
      id,
      seq: id,
      at: '2026-11-24T12:00:00.000Z',
      actor: 'Ada',
      undoOf: null,
      undoneBy: null,
      counterId: 'c1',
      counterName: 'Gate A',
      value: 1,
      delta: 1,
      increments: 1,
      decrements: 0,
      reachedGoal: null,
      ...extra,
    }) as ActivityEntry;

  it('writes "Ada · Gate B" for a change made through a tap link, the name alone otherwise', () => {
    expect(actorOf(entry(1, { link: { id: 'l1', label: 'Gate B' } }))).toBe('Ada · Gate B');
    expect(actorOf(entry(1))).toBe('Ada');
    const tapped = entry(1, { link: { id: 'l1', label: 'Gate B' } });
    const undo = entry(2, { actor: 'Bob', undoOf: 1, delta: -1 });
    expect(describeEntry(undo, new Map([[1, tapped]]))).toEqual({
      actor: 'Bob',
      text: 'undid Ada · Gate B +1 on Gate A',
    });
  });

  const row = (member: string, link: string | null, increments: number): Tally => ({
    member,
    link,
    counterId: 'c1',
    increments,
    decrements: 0,
    net: increments,
  });

  it('keeps a member’s taps through a link apart from their own, each named', () => {
    const board = leaderboard([
      row('Ada', 'Gate B', 3),
      row('Ada', null, 1),
      row('Bob', 'Gate B', 2),
    ]);
    expect(board.map((r) => leaderName(r, 'member'))).toEqual([
      'Ada · Gate B',
      'Bob · Gate B',
      'Ada',
    ]);
    expect(leaderName({ member: '', link: undefined }, 'member')).toBe('Guest');
  });

  it('grouped by link, names each link, and the group’s own link for the rest', () => {
    const board = leaderboard([row('', 'Gate B', 5), row('', null, 2), row('', 'Gate A', 7)]);
    expect(board.map((r) => [r.rank, leaderName(r, 'link'), r.net])).toEqual([
      [1, 'Gate A', 7],
      [2, 'Gate B', 5],
      [3, 'Full access link', 2],
    ]);
  });
});

describe('a revoked link’s waiting taps', () => {
  const clock: LaneClock = {
    setTimeout: () => 0,
    clearTimeout: () => undefined,
    random: () => 0.5,
  };
  const handlers: LaneHandlers = {
    // Offline: nothing is ever answered.
    send: () => new Promise(() => undefined),
    newOpId: (() => {
      let n = 0;
      return () => `op-${String(++n)}`;
    })(),
    answered: () => undefined,
    failed: () => undefined,
    halted: () => undefined,
  };
  const tap = (counterId: string) =>
    ({
      kind: 'adjust',
      counterId,
      direction: 'increment',
      times: 1,
      delta: 1,
      name: counterId,
    }) as const;

  it('are all dropped at once, and the page says how many were not counted', () => {
    const lanes = new Lanes(handlers, clock);
    lanes.enqueue(tap('a'));
    lanes.enqueue(tap('a'));
    lanes.enqueue(tap('b'));
    const waiting = lanes.pending().count;
    expect(waiting).toBe(3);
    expect(lanes.dropAll()).toBe(3);
    expect(lanes.pending().count).toBe(0);
    expect(lanes.pendingOps()).toEqual([]);
    expect(droppedTaps(3)).toBe('The 3 taps waiting on this device were not counted.');
    expect(droppedTaps(1)).toBe('The tap waiting on this device was not counted.');
    expect(droppedTaps(0)).toBe('');
  });
});
