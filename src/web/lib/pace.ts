/**
 * How fast a counter is moving and, with a goal or a maximum, when it gets there at this pace
 * (docs/product.md#pace). Computed in the browser from the live change stream the page already
 * receives (no requests of its own): the store records each counter's value as changes arrive,
 * these pure functions read the record.
 *
 * The pace is the net value change per minute over a sliding window (the last PACE_WINDOW_MS).
 * A counter seen for less than the window is measured over the time it was seen, but never
 * less than PACE_MIN_SPAN_MS, so a quick burst right after the page opened is not stretched into
 * an absurd rate. Once nothing changed for a whole window the pace is gone (idle shows nothing).
 */
import { t } from '@lingui/core/macro';
import type { Counter } from '../../shared/api.js';
import { goalProgress } from './capacity.js';
import { formatNumber } from '../i18n/format.js';

/** The sliding window the pace is measured over, ms. */
export const PACE_WINDOW_MS = 60_000;
/** The shortest time a pace is measured over, ms (see above). */
export const PACE_MIN_SPAN_MS = 20_000;
/** At most this many values are kept per counter (a very fast count keeps the newest). */
export const PACE_MAX_SAMPLES = 120;
/** Forecasts further away than this say nothing (a pace that slow predicts nothing useful). */
export const FORECAST_MAX_MINUTES = 99 * 60;
/**
 * A value moving more than this many steps in one change was set (typed in, a period reset), not
 * tapped: the record starts again from it instead of counting it as pace.
 */
export const SET_JUMP_STEPS = 50;

type CounterValue = Pick<Counter, 'value' | 'incrementStep' | 'decrementStep'>;

export interface PaceSample {
  /** When the value was seen, ms (Date.now()). */
  time: number;
  value: number;
}

/**
 * Each counter's recent values, oldest first. A counter's list is replaced (never changed in
 * place) when it changes, so a component can tell by identity whether to render again.
 */
export class PaceTracker {
  private readonly samples = new Map<string, readonly PaceSample[]>();

  /** The counter's recorded values, oldest first (the same array until the next change). */
  samplesOf(counterId: string): readonly PaceSample[] {
    return this.samples.get(counterId) ?? NO_SAMPLES;
  }

  /**
   * The counter has `value` at `time`, from a live change or an answer: recorded when it differs
   * from the last value seen (the first one is the starting point, not a change).
   */
  observe(counterId: string, time: number, value: number): void {
    const list = this.samples.get(counterId);
    const last = list?.at(-1);
    if (list && last?.value === value) return;
    this.samples.set(counterId, trim([...(list ?? []), { time, value }], time));
  }

  /**
   * The counter has `value` after a full reload (a snapshot after reconnecting): a different value
   * means changes this page did not see as they happened, so the record starts again from it.
   */
  restart(counterId: string, time: number, value: number): void {
    const last = this.samples.get(counterId)?.at(-1);
    if (last?.value === value) return;
    this.samples.set(counterId, [{ time, value }]);
  }

  /**
   * Records what changed between two states of the group's counters (the store calls it on each
   * server event), the second seen at `time`. `reload`: it is a full snapshot (after
   * reconnecting), see `restart`.
   */
  follow(
    before: ReadonlyMap<string, CounterValue>,
    after: ReadonlyMap<string, CounterValue>,
    { time, reload }: { time: number; reload: boolean },
  ): void {
    for (const [id, counter] of after) {
      if (counter === before.get(id) && this.samples.has(id)) continue;
      const last = this.samples.get(id)?.at(-1);
      const step = Math.max(1, counter.incrementStep, counter.decrementStep);
      if (reload || (last && Math.abs(counter.value - last.value) > SET_JUMP_STEPS * step)) {
        this.restart(id, time, counter.value);
      } else {
        this.observe(id, time, counter.value);
      }
    }
  }

  forget(counterId: string): void {
    this.samples.delete(counterId);
  }
}

const NO_SAMPLES: readonly PaceSample[] = Object.freeze([]);

/**
 * Keeps what the window needs: the samples inside it plus the last one before it (the value the
 * window starts from), at most PACE_MAX_SAMPLES.
 */
export function trim(list: PaceSample[], now: number): PaceSample[] {
  const start = now - PACE_WINDOW_MS;
  let first = 0;
  while (first + 1 < list.length && (list[first + 1]?.time ?? Infinity) <= start) first += 1;
  const kept = first > 0 ? list.slice(first) : list;
  return kept.length > PACE_MAX_SAMPLES ? kept.slice(-PACE_MAX_SAMPLES) : kept;
}

/**
 * The net value change per minute over the window ending at `now`; 0 when there is nothing to
 * measure (no change seen in the window, or only the starting point).
 */
export function paceOf(samples: readonly PaceSample[], now: number): number {
  const start = now - PACE_WINDOW_MS;
  const latest = samples.at(-1);
  if (!latest || samples.length < 2 || latest.time <= start) return 0;
  // The value the window starts from: the last one seen at or before its start, else the oldest.
  let base = samples[0] as PaceSample;
  for (const sample of samples) {
    if (sample.time > start) break;
    base = sample;
  }
  const change = latest.value - base.value;
  if (change === 0) return 0;
  const span = Math.min(PACE_WINDOW_MS, Math.max(PACE_MIN_SPAN_MS, now - base.time));
  return (change * 60_000) / span;
}

/** "12/min", "0.5/min", "−3/min" (a real minus sign); null when the pace rounds to nothing. */
export function paceLabel(perMinute: number): string | null {
  const shown = roundPace(perMinute);
  if (shown === 0) return null;
  const magnitude = formatNumber(Math.abs(shown));
  return `${shown < 0 ? '\u2212' : ''}${magnitude}/min`;
}

/** What a screen reader hears for the pace: "12 per minute", "down 3 per minute". */
export function paceSpoken(perMinute: number): string | null {
  const shown = roundPace(perMinute);
  if (shown === 0) return null;
  const magnitude = formatNumber(Math.abs(shown));
  return shown < 0 ? t`down ${magnitude} per minute` : t`${magnitude} per minute`;
}

/** Whole numbers from 10 up, one decimal below (0.04 is nothing). */
function roundPace(perMinute: number): number {
  const rounded =
    Math.abs(perMinute) >= 10 ? Math.round(perMinute) : Math.round(perMinute * 10) / 10;
  return rounded === 0 ? 0 : rounded; // no −0
}

/**
 * The value the count is heading for: the goal while it is not reached, else the maximum while
 * below it; null when there is neither.
 */
export function paceTarget(
  counter: Pick<Counter, 'value' | 'goal' | 'startValue' | 'max'>,
): number | null {
  const progress = goalProgress(counter);
  if (progress && !progress.reached) return progress.goal;
  if (counter.max !== null && counter.value < counter.max) return counter.max;
  return null;
}

/**
 * Minutes until `target` at `perMinute`, or null when the pace does not move toward it (idle,
 * the other way, already there) or it is too far away to say.
 */
export function minutesTo(value: number, target: number, perMinute: number): number | null {
  const remaining = target - value;
  if (remaining === 0 || perMinute === 0 || Math.sign(remaining) !== Math.sign(perMinute)) {
    return null;
  }
  const minutes = remaining / perMinute;
  return minutes > FORECAST_MAX_MINUTES ? null : minutes;
}

/** "about 3 min" (at least 1), from an hour "about 2 h". */
export function forecastLabel(minutes: number): string {
  if (minutes < 59.5) {
    const shown = formatNumber(Math.max(1, Math.round(minutes)));
    return t`about ${shown} min`;
  }
  const hours = formatNumber(Math.max(1, Math.round(minutes / 60)));
  return t`about ${hours} h`;
}

const forecastText = (when: string) => t`at this pace: reached in ${when}`;

export interface PaceView {
  /** "12/min". */
  pace: string;
  /** "12 per minute". */
  spoken: string;
  /** "at this pace: reached in about 3 min", or null. */
  forecast: string | null;
}

/** What a card shows for the counter's pace at `now`, or null (idle: nothing at all). */
export function paceView(
  counter: Pick<Counter, 'value' | 'goal' | 'startValue' | 'max'>,
  samples: readonly PaceSample[],
  now: number,
): PaceView | null {
  const perMinute = paceOf(samples, now);
  const pace = paceLabel(perMinute);
  const spoken = paceSpoken(perMinute);
  if (pace === null || spoken === null) return null;
  const target = paceTarget(counter);
  const minutes = target === null ? null : minutesTo(counter.value, target, perMinute);
  return {
    pace,
    spoken,
    forecast: minutes === null ? null : forecastText(forecastLabel(minutes)),
  };
}
