/**
 * What a card says about its counter's purpose (goal, limits, period), as pure functions of the
 * counter so they can be tested without a browser. A counter without a goal, a limit or a period
 * gets null from each of them: its card shows none of those lines.
 */
import type { Counter } from '../../shared/api.js';
import type { ResetPeriod } from '../../shared/fields.js';
import { capacityState } from '../../shared/capacity.js';
import { t } from '@lingui/core/macro';
import { formatNumber, numbersInOrder } from '../i18n/format.js';

const count = formatNumber;
const clamp01 = (n: number) => Math.min(1, Math.max(0, n));

export interface GoalProgress {
  goal: number;
  /** Share of the way from the start value to the goal, 0…1 (1 once reached). */
  fraction: number;
  /** The value is at or past the goal, in the goal's direction. */
  reached: boolean;
  /** "12 / 20". */
  label: string;
  /** What a screen reader hears for the bar: "12 of 20, 60 %". */
  valueText: string;
}

/**
 * Progress toward the goal. A goal at or above the start value is counted up to (reached when
 * value ≥ goal); a goal below it is counted down to (reached when value ≤ goal).
 */
export function goalProgress(
  counter: Pick<Counter, 'value' | 'goal' | 'startValue'>,
): GoalProgress | null {
  const { value, goal, startValue } = counter;
  if (goal === null) return null;
  const up = goal >= startValue;
  const reached = up ? value >= goal : value <= goal;
  const span = Math.abs(goal - startValue);
  const done = up ? value - startValue : startValue - value;
  const fraction = reached ? 1 : span === 0 ? 0 : clamp01(done / span);
  return {
    goal,
    fraction,
    reached,
    label: numbersInOrder(`${count(value)} / ${count(goal)}`),
    valueText: goalValueText(count(value), count(goal), Math.floor(fraction * 100)),
  };
}

export type CapacityLevel = 'room' | 'near' | 'full';

export interface Capacity {
  level: CapacityLevel;
  max: number;
  /** Room left below the maximum (never negative). */
  left: number;
  /** How full, 0…1, from the minimum (or 0 without one) to the maximum. */
  fraction: number;
  /** "8 left", "Nearly full · 2 left", "Full". */
  label: string;
}

/**
 * A counter with a maximum reads as capacity: room left, nearly full or full by the shared rule
 * (shared/capacity.ts), with how much is left and the share of the way to the maximum.
 */
export function capacityOf(counter: Pick<Counter, 'value' | 'min' | 'max'>): Capacity | null {
  const { value, min, max } = counter;
  const state = capacityState(counter);
  if (max === null || state === null) return null;
  const floor = min ?? 0;
  const span = max - floor;
  const full = state === 'full';
  const fraction = full ? 1 : span > 0 ? clamp01((value - floor) / span) : 0;
  const left = Math.max(0, max - value);
  const level: CapacityLevel = state === 'nearlyFull' ? 'near' : state;
  const label =
    level === 'full'
      ? fullText()
      : level === 'near'
        ? nearlyFullText(count(left))
        : leftText(count(left));
  return { level, max, left, fraction, label };
}

/** The value sits at (or below) its minimum: a decrement would be refused. */
export function atMinimum(counter: Pick<Counter, 'value' | 'min'>): boolean {
  return counter.min !== null && counter.value <= counter.min;
}

/** A section with a maximum (the group's sectionLimits) and its counters' live total. */
export interface SectionRoom {
  max: number;
  total: number;
}

/**
 * Why the increment or decrement button cannot be used now, or null when it can: the next step
 * would take the value past a limit, or its section's total past the section's maximum, and the
 * server would refuse it whole (409 limit_reached).
 */
export function blockedReason(
  counter: Pick<Counter, 'value' | 'min' | 'max' | 'incrementStep' | 'decrementStep' | 'section'>,
  direction: 'increment' | 'decrement',
  section: SectionRoom | null = null,
): string | null {
  const { value, min, max } = counter;
  if (direction === 'decrement') {
    if (min === null || value - counter.decrementStep >= min) return null;
    const minimum = formatNumber(min);
    return t`Limit reached: this counter cannot go below ${minimum}.`;
  }
  if (max !== null && value + counter.incrementStep > max) {
    const maximum = formatNumber(max);
    return t`Limit reached: this counter cannot go above ${maximum}.`;
  }
  if (
    section !== null &&
    counter.section !== null &&
    section.total + counter.incrementStep > section.max
  ) {
    const sectionName = counter.section;
    const maximum = formatNumber(section.max);
    return t`Limit reached: ${sectionName} cannot hold more than ${maximum} in total.`;
  }
  return null;
}

/**
 * How far the value can still move when a whole step cannot: 29 of 30 with a step of 5 still has
 * room for 1. 0 when the step is not blocked or nothing is left. The server refuses a tap that
 * would pass a limit whole (it never stops halfway), so the card offers this remainder as an edit
 * of the value, which the server checks against the same limits and section maximum.
 */
export function partialRoom(
  counter: Pick<Counter, 'value' | 'min' | 'max' | 'incrementStep' | 'decrementStep' | 'section'>,
  direction: 'increment' | 'decrement',
  section: SectionRoom | null = null,
): number {
  if (blockedReason(counter, direction, section) === null) return 0;
  if (direction === 'decrement') {
    return counter.min === null ? 0 : Math.max(0, counter.value - counter.min);
  }
  let room = counter.max === null ? Number.POSITIVE_INFINITY : counter.max - counter.value;
  if (section !== null && counter.section !== null) {
    room = Math.min(room, section.max - section.total);
  }
  return Number.isFinite(room) ? Math.max(0, room) : 0;
}

/**
 * A typed value kept inside the counter's limits, as inline number fields are raised to their
 * minimum (docs/product.md#numbers).
 */
export function clampToLimits(value: number, counter: Pick<Counter, 'min' | 'max'>): number {
  let result = value;
  if (counter.max !== null && result > counter.max) result = counter.max;
  if (counter.min !== null && result < counter.min) result = counter.min;
  return result;
}

export const resetLabel = (reset: ResetPeriod): string =>
  reset === 'daily' ? t`Resets daily` : reset === 'weekly' ? t`Resets weekly` : t`Resets monthly`;

/** "1,840 of 2,000, 92 %": a goal bar's value in words (the numbers already formatted). */
const goalValueText = (value: string, goal: string, percent: number) =>
  t`${value} of ${goal}, ${percent} %`;

/** The capacity's words, shared by a card and a section ("Full", "Nearly full · 20 left"). */
export const fullText = () => t`Full`;
export const nearlyFullText = (left: string) => t`Nearly full · ${left} left`;
export const leftText = (left: string) => t`${left} left`;

export interface PeriodFigures {
  /** "Resets daily". */
  label: string;
  /** The value now: what this period has counted (from the start value). */
  thisPeriod: string;
  /** Every ended period's final value plus this one's (the server's `allTime`). */
  allTime: string;
}

export function periodFigures(
  counter: Pick<Counter, 'value' | 'reset' | 'allTime'>,
): PeriodFigures | null {
  if (counter.reset === null) return null;
  return {
    label: resetLabel(counter.reset),
    thisPeriod: count(counter.value),
    allTime: count(counter.allTime),
  };
}
