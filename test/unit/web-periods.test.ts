/**
 * Periods in the web app (ADR 19): calendar arithmetic in a group's time zone (the "By member"
 * ranges) and the period list of a counter's history dialog, from fixture periods.
 */
import { describe, expect, it } from 'vitest';
import type { CounterPeriod } from '../../src/shared/activity.js';
import {
  periodKind,
  periodLabel,
  periodRows,
  startOfDay,
  startOfPeriod,
} from '../../src/web/lib/periods.js';

const iso = (t: number) => new Date(t).toISOString();

describe('period kinds, told by their length', () => {
  it('a day is 23 to 25 hours, a week 7 days, a month 28 to 31 days', () => {
    expect(periodKind('2026-11-23T00:00:00Z', '2026-11-24T00:00:00Z')).toBe('day');
    // Berlin's autumn daylight saving day is 25 hours long, its spring one 23.
    expect(periodKind('2026-10-24T22:00:00Z', '2026-10-25T23:00:00Z')).toBe('day');
    expect(periodKind('2026-03-28T23:00:00Z', '2026-03-29T22:00:00Z')).toBe('day');
    expect(periodKind('2026-11-16T00:00:00Z', '2026-11-23T00:00:00Z')).toBe('week');
    expect(periodKind('2026-02-01T00:00:00Z', '2026-03-01T00:00:00Z')).toBe('month');
    expect(periodKind('2026-01-01T00:00:00Z', '2026-02-01T00:00:00Z')).toBe('month');
    // Cut short (the counter's reset changed mid-period): none of them.
    expect(periodKind('2026-11-23T00:00:00Z', '2026-11-23T15:00:00Z')).toBeNull();
    expect(periodKind('2026-11-01T00:00:00Z', '2026-11-11T00:00:00Z')).toBeNull();
    expect(periodKind('nonsense', '2026-11-11T00:00:00Z')).toBeNull();
  });
});

describe('midnights in a time zone', () => {
  const calendarDay = (year: number, month: number, day: number) => ({ year, month, day });

  it('finds the UTC instant of a local midnight, daylight saving time included', () => {
    expect(iso(startOfDay(calendarDay(2026, 11, 23), 'UTC'))).toBe('2026-11-23T00:00:00.000Z');
    expect(iso(startOfDay(calendarDay(2026, 11, 23), 'Europe/Berlin'))).toBe(
      '2026-11-22T23:00:00.000Z',
    );
    expect(iso(startOfDay(calendarDay(2026, 7, 1), 'Europe/Berlin'))).toBe(
      '2026-06-30T22:00:00.000Z',
    );
    expect(iso(startOfDay(calendarDay(2026, 11, 23), 'America/New_York'))).toBe(
      '2026-11-23T05:00:00.000Z',
    );
    expect(iso(startOfDay(calendarDay(2026, 11, 23), 'Asia/Kolkata'))).toBe(
      '2026-11-22T18:30:00.000Z',
    );
    // The day daylight saving time ends in New York (1 Nov 2026): midnight is still EDT.
    expect(iso(startOfDay(calendarDay(2026, 11, 1), 'America/New_York'))).toBe(
      '2026-11-01T04:00:00.000Z',
    );
  });

  it('where clocks skip midnight, the day starts when it begins (01:00)', () => {
    // Santiago springs forward at 24:00 on Saturday 5 Sep 2026: 6 Sep has no 00:00 and begins
    // at 01:00 local (−03), which is 04:00 UTC.
    expect(iso(startOfDay(calendarDay(2026, 9, 6), 'America/Santiago'))).toBe(
      '2026-09-06T04:00:00.000Z',
    );
  });

  it('today, this week (from the chosen first day) and this month, in the group’s zone', () => {
    // Wednesday 25 Nov 2026, 00:30 in Berlin (still Tuesday 24 Nov in UTC).
    const now = Date.parse('2026-11-24T23:30:00Z');
    expect(iso(startOfPeriod(now, 'day', { timeZone: 'Europe/Berlin' }))).toBe(
      '2026-11-24T23:00:00.000Z',
    );
    expect(iso(startOfPeriod(now, 'day', { timeZone: 'UTC' }))).toBe('2026-11-24T00:00:00.000Z');
    // Weeks from Monday: Monday 23 Nov. From Sunday: Sunday 22 Nov. From Wednesday: today.
    expect(iso(startOfPeriod(now, 'week', { timeZone: 'Europe/Berlin', weekStart: 1 }))).toBe(
      '2026-11-22T23:00:00.000Z',
    );
    expect(iso(startOfPeriod(now, 'week', { timeZone: 'Europe/Berlin', weekStart: 7 }))).toBe(
      '2026-11-21T23:00:00.000Z',
    );
    expect(iso(startOfPeriod(now, 'week', { timeZone: 'Europe/Berlin', weekStart: 3 }))).toBe(
      '2026-11-24T23:00:00.000Z',
    );
    expect(iso(startOfPeriod(now, 'month', { timeZone: 'Europe/Berlin' }))).toBe(
      '2026-10-31T23:00:00.000Z',
    );
    // Across a year and a month boundary: Friday 1 Jan 2027, weeks from Monday.
    const newYear = Date.parse('2027-01-01T10:00:00Z');
    expect(iso(startOfPeriod(newYear, 'week', { timeZone: 'UTC', weekStart: 1 }))).toBe(
      '2026-12-28T00:00:00.000Z',
    );
    expect(iso(startOfPeriod(newYear, 'month', { timeZone: 'UTC' }))).toBe(
      '2027-01-01T00:00:00.000Z',
    );
  });
});

describe('the period list of a counter', () => {
  const now = Date.parse('2026-11-25T10:00:00Z');
  const period = (start: string, end: string, value: number): CounterPeriod => ({
    counterId: 'c1',
    start,
    end,
    value,
  });

  it('names days, weeks and months in the group’s zone, with the year when not this one', () => {
    const zone = 'Europe/Berlin';
    expect(periodLabel(period('2026-11-22T23:00:00Z', '2026-11-23T23:00:00Z', 1), zone, now)).toBe(
      'Mon 23 Nov',
    );
    // The same period read in UTC would start on Sunday: the group's zone decides.
    expect(periodLabel(period('2026-11-22T23:00:00Z', '2026-11-23T23:00:00Z', 1), 'UTC', now)).toBe(
      'Sun 22 Nov',
    );
    expect(periodLabel(period('2026-11-15T23:00:00Z', '2026-11-22T23:00:00Z', 1), zone, now)).toBe(
      'Week of Mon 16 Nov',
    );
    expect(periodLabel(period('2026-09-30T22:00:00Z', '2026-10-31T23:00:00Z', 1), zone, now)).toBe(
      'October 2026',
    );
    expect(periodLabel(period('2025-12-30T23:00:00Z', '2025-12-31T23:00:00Z', 1), zone, now)).toBe(
      'Wed 31 Dec 2025',
    );
    // Cut short: from its first to its last day.
    expect(periodLabel(period('2026-11-09T23:00:00Z', '2026-11-13T23:00:00Z', 1), zone, now)).toBe(
      'Tue 10 Nov – Fri 13 Nov',
    );
  });

  it('lists the running period first as the counter’s value, then the ended ones newest first', () => {
    const rows = periodRows(
      { value: 4, reset: 'daily', periodStart: '2026-11-24T23:00:00Z' },
      [
        period('2026-11-23T23:00:00Z', '2026-11-24T23:00:00Z', 12),
        period('2026-11-22T23:00:00Z', '2026-11-23T23:00:00Z', 0),
        period('2026-11-21T23:00:00Z', '2026-11-22T23:00:00Z', -6),
      ],
      { timeZone: 'Europe/Berlin', now },
    );
    expect(rows.map(({ label, value, current }) => [label, value, current])).toEqual([
      ['Today', 4, true],
      ['Tue 24 Nov', 12, false],
      ['Mon 23 Nov', 0, false],
      ['Sun 22 Nov', -6, false],
    ]);
    // Bars: against the largest magnitude.
    expect(rows.map((row) => row.share)).toEqual([4 / 12, 1, 0, 0.5]);
  });

  it('a weekly counter without ended periods yet shows only this week; all zero draws no bars', () => {
    const rows = periodRows({ value: 0, reset: 'weekly', periodStart: null }, [], {
      timeZone: 'UTC',
      now,
    });
    expect(rows).toEqual([
      { key: 'current-', label: 'This week', value: 0, current: true, share: 0 },
    ]);
    const monthly = periodRows({ value: 3, reset: 'monthly', periodStart: null }, [], {
      timeZone: 'UTC',
      now,
    });
    expect(monthly[0]?.label).toBe('This month');
  });
});
