/**
 * The calendar of counters that reset: when a day, week or month starts in a group's time
 * zone. Luxon does the calendar and time-zone arithmetic (daylight saving days last 23 or 25
 * hours; a zone may skip midnight, where the day starts at the first instant that exists).
 * docs/decisions/0019-counters-with-a-purpose.md says how resets stay exact across instances.
 */
import { DateTime } from 'luxon';
import type { ResetPeriod } from '../../shared/fields.js';

/** How a group counts its periods: its time zone and first day of the week (ISO 1–7). */
export interface Calendar {
  timeZone: string;
  weekStart: number;
}

export interface PeriodBounds {
  /** Epoch ms of the period's first instant. */
  start: number;
  /** Epoch ms of the next period's first instant (this period ends just before it). */
  end: number;
}

const UNIT = { daily: 'day', weekly: 'week', monthly: 'month' } as const;

/** The first instant of the period holding `at` (epoch ms). */
function startOf(at: DateTime, reset: ResetPeriod, weekStart: number): DateTime {
  const day = at.startOf('day');
  switch (reset) {
    case 'daily':
      return day;
    case 'weekly':
      // Back to the group's first day of the week (Luxon's own weeks start on Monday).
      return day.minus({ days: (day.weekday - weekStart + 7) % 7 }).startOf('day');
    case 'monthly':
      return at.startOf('month');
  }
}

/** The period of `reset` that holds the instant `at` (epoch ms), in the group's calendar. */
export function periodAt(at: number, reset: ResetPeriod, calendar: Calendar): PeriodBounds {
  const local = DateTime.fromMillis(at, { zone: calendar.timeZone });
  // A zone Luxon cannot load (never stored: the API refuses unknown zones) counts in UTC.
  const zoned = local.isValid ? local : DateTime.fromMillis(at, { zone: 'utc' });
  const start = startOf(zoned, reset, calendar.weekStart);
  const end = startOf(start.plus({ [UNIT[reset]]: 1 }), reset, calendar.weekStart);
  return { start: start.toMillis(), end: end.toMillis() };
}
