/**
 * Dates in the member's language for the panels and dialogs. Apart from format.ts, which the
 * group screen's first load carries: these words are needed only once a panel opens (ADR 38).
 */
import { dateLocale } from './format.js';

/**
 * An ISO weekday's name (1 = Monday … 7 = Sunday) in the member's language: "Monday", "lundi",
 * "月曜日"; null for any other number.
 */
export function weekdayName(isoWeekday: number): string | null {
  if (!Number.isInteger(isoWeekday) || isoWeekday < 1 || isoWeekday > 7) return null;
  // 1 January 2024 was a Monday: the day `isoWeekday - 1` after it has that weekday.
  const date = Date.UTC(2024, 0, isoWeekday);
  return new Intl.DateTimeFormat(dateLocale(), { weekday: 'long', timeZone: 'UTC' }).format(date);
}
