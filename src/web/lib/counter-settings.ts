/**
 * The counter settings form (goal, limits, period, start value, section) and the group settings
 * form (time zone, first day of the week) as pure functions: what the fields show, what they mean,
 * and the one patch they save. The browser checks what the server checks (src/shared/api.ts), with
 * the same messages, so a refusal is rare and never a surprise.
 */
import { dateLocale } from '../i18n/format.js';
import type { Counter } from '../../shared/api.js';
import { RESET_PERIODS, type ResetPeriod } from '../../shared/fields.js';
import { MAX_VALUE, MIN_VALUE, SECTION_NAME_MAX_LENGTH } from '../../shared/limits.js';
import { t } from '@lingui/core/macro';
import { notAnInteger } from '../i18n/messages.js';
import { sanitizeText } from '../../shared/rules.js';
import type { CounterPatch } from '../live/ops.js';

export type SettingsField = 'goal' | 'min' | 'max' | 'reset' | 'startValue' | 'section';

/** The form's fields as typed: numbers as text (blank: none), the period '' for none. */
export interface SettingsDraft {
  goal: string;
  min: string;
  max: string;
  reset: ResetPeriod | '';
  startValue: string;
  section: string;
}

type SettingsCounter = Pick<Counter, 'value' | SettingsField>;

const asText = (value: number | null) => (value === null ? '' : String(value));

export function draftOf(counter: SettingsCounter): SettingsDraft {
  return {
    goal: asText(counter.goal),
    min: asText(counter.min),
    max: asText(counter.max),
    reset: counter.reset ?? '',
    startValue: String(counter.startValue),
    section: counter.section ?? '',
  };
}

export function isResetPeriod(text: string): text is ResetPeriod {
  return (RESET_PERIODS as readonly string[]).includes(text);
}

type Parsed = { ok: true; value: number | null } | { ok: false; message: string };

/**
 * A whole number in the exact range, or null when blank. Unlike the card's inline number fields,
 * which fall back to the current value (docs/product.md#numbers), nothing falls back silently: the
 * dialog can say what is wrong.
 */
export function parseOptionalInteger(text: string): Parsed {
  const trimmed = text.trim();
  if (trimmed === '') return { ok: true, value: null };
  if (!/^[+-]?\d+$/.test(trimmed)) return { ok: false, message: notAnInteger() };
  const value = Number(trimmed);
  if (!Number.isSafeInteger(value) || value < MIN_VALUE || value > MAX_VALUE) {
    return { ok: false, message: t`Counter value out of range` };
  }
  return { ok: true, value };
}

/** A section name as the server stores it: sanitised, cut to its length; blank is none. */
export function sectionOf(text: string): string | null {
  const name = Array.from(sanitizeText(text)).slice(0, SECTION_NAME_MAX_LENGTH).join('');
  return name === '' ? null : name;
}

export type SettingsResult =
  { ok: true; patch: CounterPatch } | { ok: false; errors: Partial<Record<SettingsField, string>> };

/**
 * The draft checked and turned into one patch holding only what changed (empty: nothing to save).
 * min ≤ max, the current value within them, and for a counter that resets its start value too:
 * the server refuses otherwise (src/server/domain/limits.ts counterRefusal).
 */
export function settingsPatch(draft: SettingsDraft, counter: SettingsCounter): SettingsResult {
  const errors: Partial<Record<SettingsField, string>> = {};
  const number = (field: 'goal' | 'min' | 'max' | 'startValue') => {
    const parsed = parseOptionalInteger(draft[field]);
    if (parsed.ok) return parsed.value;
    errors[field] = parsed.message;
    return null;
  };
  const goal = number('goal');
  const min = number('min');
  const max = number('max');
  // The start value is never none: blank means the default, 0.
  let startValue = number('startValue') ?? 0;
  if (Object.keys(errors).length > 0) return { ok: false, errors };

  if (min !== null && max !== null && min > max) {
    errors.min = t`The minimum cannot be greater than the maximum.`;
  } else {
    const inside = (value: number) =>
      (min === null || value >= min) && (max === null || value <= max);
    // A counter that resets returns to its start value, so that must be inside the limits (the
    // server checks it only then). One nobody touched moves with the limits (a minimum of 10 on
    // a counter starting at the default 0 starts it at 10); a typed one is the member's to fix.
    const resets = draft.reset !== '';
    const typed = draft.startValue.trim() !== String(counter.startValue);
    if (resets && !inside(startValue) && !typed) {
      startValue = Math.min(Math.max(startValue, min ?? startValue), max ?? startValue);
    }
    if (resets && !inside(startValue)) {
      errors.startValue = t`The start value must be between the minimum and the maximum.`;
    } else if (!inside(counter.value)) {
      errors[min !== null && counter.value < min ? 'min' : 'max'] =
        t`The value must stay between the minimum and the maximum.`;
    }
  }
  if (Object.keys(errors).length > 0) return { ok: false, errors };

  const next: Pick<Counter, SettingsField> = {
    goal,
    min,
    max,
    reset: draft.reset === '' ? null : draft.reset,
    startValue,
    section: sectionOf(draft.section),
  };
  const patch: CounterPatch = {};
  for (const field of Object.keys(next) as SettingsField[]) {
    if (next[field] !== counter[field]) Object.assign(patch, { [field]: next[field] });
  }
  return { ok: true, patch };
}

/** The section names in use, for the field's suggestions: sorted, each once. */
export function sectionNames(counters: readonly Pick<Counter, 'section'>[]): string[] {
  const names = new Set<string>();
  for (const counter of counters) if (counter.section !== null) names.add(counter.section);
  return [...names].sort((a, b) => a.localeCompare(b));
}

// ---- Group settings ------------------------------------------------------------------------------

/**
 * The ISO weekdays' names in the member's language, Monday first (index 0 is a group's weekStart
 * 1): Intl's, from the week of Monday 1 January 2024.
 */
export function weekdayNames(): string[] {
  const format = new Intl.DateTimeFormat(dateLocale(), { weekday: 'long', timeZone: 'UTC' });
  return Array.from({ length: 7 }, (_, index) => format.format(Date.UTC(2024, 0, 1 + index)));
}

export interface TimeZoneOptions {
  /** Offered first: the group's zone, this browser's, UTC (each once). */
  suggested: string[];
  /** Every zone the browser knows, UTC included, sorted. */
  all: string[];
}

/**
 * The time zone choices: `supported` is Intl.supportedValuesOf('timeZone') (Chromium leaves UTC
 * out of it, so it is added).
 */
export function timeZoneOptions(
  current: string,
  browserZone: string | undefined,
  supported: readonly string[],
): TimeZoneOptions {
  const suggested = [...new Set([current, browserZone ?? 'UTC', 'UTC'])];
  const all = [...new Set([...supported, 'UTC', current])].sort((a, b) => a.localeCompare(b));
  return { suggested, all };
}

/** "Europe/Berlin" → "Europe / Berlin", "America/Argentina/Buenos_Aires" → "… / Buenos Aires". */
export function zoneLabel(zone: string): string {
  return zone.replaceAll('_', ' ').split('/').join(' / ');
}
