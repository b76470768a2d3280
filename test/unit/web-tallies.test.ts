/**
 * The "By member" leaderboard from GET …/tallies rows (docs/product.md#per-member-tallies).
 */
import { describe, expect, it } from 'vitest';
import type { Tally } from '../../src/shared/api.js';
import { describeRange } from '../../src/web/components/MembersPanel.js';
import { leaderboard, signedNet } from '../../src/web/lib/tallies.js';

const row = (member: string, counterId: string, increments: number, decrements: number): Tally => ({
  member,
  link: null,
  counterId,
  increments,
  decrements,
  net: increments - decrements,
});

describe('the By member leaderboard', () => {
  const rows = [
    row('Ada', 'coffees', 5, 1),
    row('Ada', 'teas', 2, 0),
    row('Bob', 'coffees', 3, 0),
    row('Bob', 'teas', 10, 2),
    row('Cy', 'teas', 0, 4),
  ];

  it('sums each member over every counter and ranks by net', () => {
    expect(leaderboard(rows)).toEqual([
      { rank: 1, member: 'Bob', increments: 13, decrements: 2, net: 11 },
      { rank: 2, member: 'Ada', increments: 7, decrements: 1, net: 6 },
      { rank: 3, member: 'Cy', increments: 0, decrements: 4, net: -4 },
    ]);
  });

  it('of one counter, keeps only that counter’s rows and the members who touched it', () => {
    expect(leaderboard(rows, 'coffees')).toEqual([
      { rank: 1, member: 'Ada', increments: 5, decrements: 1, net: 4 },
      { rank: 2, member: 'Bob', increments: 3, decrements: 0, net: 3 },
    ]);
    expect(leaderboard(rows, 'nothing')).toEqual([]);
    expect(leaderboard([])).toEqual([]);
  });

  it('members with the same net share a rank, the next rank skips ("1, 2, 2, 4")', () => {
    const tied = leaderboard([
      row('Dee', 'a', 9, 0),
      row('Eve', 'a', 4, 0),
      row('Fay', 'a', 6, 2),
      row('Gus', 'a', 1, 0),
    ]);
    expect(tied.map(({ rank, member }) => [rank, member])).toEqual([
      [1, 'Dee'],
      // Same net 4: more added first.
      [2, 'Fay'],
      [2, 'Eve'],
      [4, 'Gus'],
    ]);
  });

  it('leaves out a member whose rows add up to nothing done', () => {
    expect(leaderboard([row('Ada', 'a', 0, 0), row('Bob', 'a', 1, 1)])).toEqual([
      { rank: 1, member: 'Bob', increments: 1, decrements: 1, net: 0 },
    ]);
  });

  it('writes nets with their sign, a real minus and thousands separators', () => {
    expect(signedNet(3)).toBe('+3');
    expect(signedNet(-1200)).toBe('\u22121,200');
    expect(signedNet(0)).toBe('0');
  });
});

describe('the board’s caption', () => {
  const now = Date.parse('2026-11-25T10:00:00Z');

  it('says which range, from when, in the group’s zone', () => {
    expect(describeRange({ range: 'all', since: null }, null, { timeZone: 'UTC', now }).title).toBe(
      'All time',
    );
    const today = describeRange({ range: 'day', since: Date.parse('2026-11-24T23:00:00Z') }, null, {
      timeZone: 'Europe/Berlin',
      now,
    });
    expect(today.title).toBe('Today');
    expect(today.detail).toMatch(/^Since 00:00 \(Europe\/Berlin\)\. /);
    const week = describeRange({ range: 'week', since: Date.parse('2026-11-22T23:00:00Z') }, null, {
      timeZone: 'Europe/Berlin',
      now,
    });
    expect(week.title).toBe('This week');
    expect(week.detail).toMatch(/^Since Mon 23 Nov, 00:00 \(Europe\/Berlin\)\. /);
  });

  it('a counter’s own period is named after its reset', () => {
    const since = Date.parse('2026-11-25T00:00:00Z');
    expect(
      describeRange(
        { range: 'period', since },
        { name: 'Laps', reset: 'daily' },
        { timeZone: 'UTC', now },
      ),
    ).toEqual({
      title: 'This period (today)',
      detail: 'Since 00:00 (UTC). Taps, steps included; typed values and undone taps do not count.',
    });
    expect(
      describeRange(
        { range: 'period', since: Date.parse('2026-11-01T00:00:00Z') },
        { name: 'Laps', reset: 'monthly' },
        { timeZone: 'UTC', now },
      ).title,
    ).toBe('This period (this month)');
  });
});
