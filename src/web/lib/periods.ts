/**
 * Calendar arithmetic in a group's time zone, with nothing but Intl: when today, this
 * week and this month began for the "By member" ranges, what an ended period is called ("Mon
 * 23 Nov", "Week of Mon 16 Nov", "November 2026") and the rows of a counter's period list. A
 * date library would cost the lazy chunks ~20 KB gzip for the few lines below. Pure functions:
 * unit-tested in test/unit/web-periods.test.ts.
 */
import { t } from '@lingui/core/macro';
import type { CounterPeriod } from '../../shared/activity.js';
import type { Counter } from '../../shared/api.js';
import { dateLocale } from '../i18n/format.js';

export type PeriodKind = 'day' | 'week' | 'month';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/**
 * What kind of period ran from `start` to `end` (ISO or epoch ms), told by its length: a day is
 * 23 to 25 hours (daylight saving time), a week 7 days ± 1 hour, a month 28 to 31 days ± 1 hour;
 * anything else (a period cut short when a counter's reset changed) is none of them.
 */
export function periodKind(start: string | number, end: string | number): PeriodKind | null {
  const from = typeof start === 'number' ? start : Date.parse(start);
  const to = typeof end === 'number' ? end : Date.parse(end);
  const span = to - from;
  if (!Number.isFinite(span)) return null;
  if (span >= 23 * HOUR && span <= 25 * HOUR) return 'day';
  if (Math.abs(span - 7 * DAY) <= HOUR) return 'week';
  if (span >= 28 * DAY - HOUR && span <= 31 * DAY + HOUR) return 'month';
  return null;
}

/** The kind of period a counter's `reset` makes. */
export const RESET_KIND = { daily: 'day', weekly: 'week', monthly: 'month' } as const;

interface Wall {
  year: number;
  /** 1–12 */
  month: number;
  day: number;
  /** ISO: 1 = Monday … 7 = Sunday. */
  weekday: number;
  hour: number;
  minute: number;
  second: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/** The wall clock of instant `t` in `timeZone`. */
function wallOf(t: number, timeZone: string): Wall {
  let format = formatters.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, format);
  }
  const parts: Record<string, string> = {};
  for (const part of format.formatToParts(t)) parts[part.type] = part.value;
  const year = Number(parts.year);
  const month = Number(parts.month);
  const day = Number(parts.day);
  return {
    year,
    month,
    day,
    // getUTCDay counts from Sunday = 0; ISO from Monday = 1.
    weekday: ((new Date(Date.UTC(year, month - 1, day)).getUTCDay() + 6) % 7) + 1,
    hour: Number(parts.hour),
    minute: Number(parts.minute),
    second: Number(parts.second),
  };
}

/** How far `timeZone`'s clock is ahead of UTC at instant `t`, ms. */
function offsetAt(t: number, timeZone: string): number {
  const wall = wallOf(t, timeZone);
  const asUtc = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second);
  return asUtc - (t - (((t % 1000) + 1000) % 1000));
}

/** A calendar day: `month` 1–12. */
export type CalendarDay = Pick<Wall, 'year' | 'month' | 'day'>;

/**
 * The first instant of the calendar day `year-month-day` in `timeZone`: its midnight, or where
 * daylight saving time skips midnight (clocks jump from 00:00 to 01:00) the moment the day
 * begins. Tries the offsets in force 12 hours either side and keeps the earliest candidate that
 * falls on that day.
 */
export function startOfDay({ year, month, day }: CalendarDay, timeZone: string): number {
  const wall = Date.UTC(year, month - 1, day);
  const candidates = [
    wall - offsetAt(wall - 12 * HOUR, timeZone),
    wall - offsetAt(wall + 12 * HOUR, timeZone),
  ];
  const onDay = candidates.filter((t) => {
    const seen = wallOf(t, timeZone);
    return seen.year === year && seen.month === month && seen.day === day;
  });
  return Math.min(...(onDay.length > 0 ? onDay : candidates));
}

/**
 * When the day, week (starting on `weekStart`, ISO 1 = Monday … 7 = Sunday; Monday unless given)
 * or month that holds `now` began in `timeZone`: the same midnights the server resets counters at.
 * A Group has both settings.
 */
export function startOfPeriod(
  now: number,
  kind: PeriodKind,
  { timeZone, weekStart = 1 }: { timeZone: string; weekStart?: number },
): number {
  const today = wallOf(now, timeZone);
  if (kind === 'month') return startOfDay({ ...today, day: 1 }, timeZone);
  const back = kind === 'week' ? (today.weekday - weekStart + 7) % 7 : 0;
  // Calendar arithmetic on a UTC date: no time zone can make it skip or repeat a day.
  const date = new Date(Date.UTC(today.year, today.month - 1, today.day - back));
  const day = {
    year: date.getUTCFullYear(),
    month: date.getUTCMonth() + 1,
    day: date.getUTCDate(),
  };
  return startOfDay(day, timeZone);
}

/**
 * "Mon 23 Nov" (with the year when it is not `now`'s: "Wed 31 Dec 2025"), in `timeZone`; in
 * another language, as Intl writes that date there ("Mo., 23. Nov.", "11月23日(月)").
 */
export function dayLabel(t: number, timeZone: string, now = Date.now()): string {
  const sameYear = wallOf(t, timeZone).year === wallOf(now, timeZone).year;
  const locale = dateLocale();
  const format = new Intl.DateTimeFormat(locale, {
    timeZone,
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    ...(sameYear ? {} : { year: 'numeric' }),
  });
  if (locale !== 'en-GB') return format.format(t);
  // English from the parts: Intl's punctuation between them differs with the year
  // ("Wed, 31 Dec 2025"), and the app has always written them with spaces alone.
  const parts = format.formatToParts(t);
  const part = (type: Intl.DateTimeFormatPartTypes) =>
    parts.find((candidate) => candidate.type === type)?.value;
  return [part('weekday'), part('day'), part('month'), part('year')]
    .filter((text) => text !== undefined)
    .join(' ');
}

/** "14:05" in `timeZone`, as the member's language writes a time. */
export function timeOfDay(time: number, timeZone: string): string {
  return new Intl.DateTimeFormat(dateLocale(), {
    timeZone,
    hour: '2-digit',
    minute: '2-digit',
  }).format(time);
}

/**
 * What an ended period is called: "Mon 23 Nov" for a day, "Week of Mon 16 Nov" for a week,
 * "November 2026" for a month, "23 Nov – 2 Dec" for anything else (a period cut short).
 */
export function periodLabel(period: CounterPeriod, timeZone: string, now = Date.now()): string {
  const start = Date.parse(period.start);
  const end = Date.parse(period.end);
  switch (periodKind(start, end)) {
    case 'day':
      return dayLabel(start, timeZone, now);
    case 'week': {
      const day = dayLabel(start, timeZone, now);
      return t`Week of ${day}`;
    }
    case 'month':
      return new Intl.DateTimeFormat(dateLocale(), {
        timeZone,
        month: 'long',
        year: 'numeric',
      }).format(start);
    case null: {
      const from = dayLabel(start, timeZone, now);
      // The last instant before the end: a period ending at midnight ends the day before.
      const to = dayLabel(end - 1, timeZone, now);
      return t`${from} – ${to}`;
    }
  }
}

/**
 * "Today", "This week", "This month": what the current period of a counter is called, read in
 * the language of the moment (getters: the words follow a language switch).
 */
export const CURRENT_PERIOD_LABEL: Readonly<Record<PeriodKind, string>> = {
  get day() {
    return t`Today`;
  },
  get week() {
    return t`This week`;
  },
  get month() {
    return t`This month`;
  },
};

export interface PeriodRow {
  key: string;
  label: string;
  value: number;
  /** The period running now (its value is the counter's). */
  current: boolean;
  /** |value| as a share of the largest |value| of the list, 0–1 (the bar's length). */
  share: number;
}

/**
 * A counter's period list, newest first: the period running now (the counter's value, since its
 * periodStart), then the ended ones as the server keeps them (already newest first), labelled in
 * `timeZone` as of `now` (Date.now() unless given).
 */
export function periodRows(
  counter: Pick<Counter, 'value' | 'reset' | 'periodStart'>,
  periods: readonly CounterPeriod[],
  { timeZone, now = Date.now() }: { timeZone: string; now?: number },
): PeriodRow[] {
  const rows: Omit<PeriodRow, 'share'>[] = [];
  if (counter.reset !== null) {
    rows.push({
      key: `current-${counter.periodStart ?? ''}`,
      label: CURRENT_PERIOD_LABEL[RESET_KIND[counter.reset]],
      value: counter.value,
      current: true,
    });
  }
  for (const period of periods) {
    rows.push({
      key: period.start,
      label: periodLabel(period, timeZone, now),
      value: period.value,
      current: false,
    });
  }
  const largest = Math.max(0, ...rows.map((row) => Math.abs(row.value)));
  return rows.map((row) => ({ ...row, share: largest === 0 ? 0 : Math.abs(row.value) / largest }));
}
