/**
 * A counter's pace and forecast (src/web/lib/pace.ts, docs/product.md#pace).
 */
import { describe, expect, it } from 'vitest';
import {
  forecastLabel,
  minutesTo,
  PACE_MAX_SAMPLES,
  PACE_MIN_SPAN_MS,
  PACE_WINDOW_MS,
  paceLabel,
  paceOf,
  paceSpoken,
  paceTarget,
  PaceTracker,
  paceView,
  type PaceSample,
} from '../../src/web/lib/pace.js';

const T0 = 1_700_000_000_000;
const s = (seconds: number, value: number): PaceSample => ({ time: T0 + seconds * 1000, value });
const at = (seconds: number) => T0 + seconds * 1000;
const counter = { value: 0, goal: null, startValue: 0, max: null } as {
  value: number;
  goal: number | null;
  startValue: number;
  max: number | null;
};
const steps = { incrementStep: 1, decrementStep: 1 };

describe('paceOf', () => {
  it('is nothing without a change', () => {
    expect(paceOf([], at(0))).toBe(0);
    expect(paceOf([s(0, 5)], at(10))).toBe(0);
  });

  it('is the net change over the whole window once the counter was seen that long', () => {
    // Seen at 0 s with 0; 12 taps in the last minute.
    const samples = [s(0, 0), ...Array.from({ length: 12 }, (_, i) => s(100 + i, i + 1))];
    expect(paceOf(samples, at(115))).toBe(12);
  });

  it('starts the window from the last value before it', () => {
    const samples = [s(0, 0), s(10, 50), s(80, 51), s(85, 53)];
    // Window 30…90 s: from 50 (seen at 10 s) to 53.
    expect(paceOf(samples, at(90))).toBe(3);
  });

  it('measures a counter seen for less than a window over the time seen, at least the minimum', () => {
    // 10 taps 5 s after the page opened: over PACE_MIN_SPAN_MS (20 s), 30 per minute.
    expect(paceOf([s(0, 0), s(5, 10)], at(5))).toBe(30);
    // 40 s after it opened: over 40 s.
    expect(paceOf([s(0, 0), s(39, 10)], at(40))).toBe(15);
    expect(PACE_MIN_SPAN_MS).toBeLessThan(PACE_WINDOW_MS);
  });

  it('decays as the changes slide out of the window, and is gone after a whole idle window', () => {
    const samples = [s(0, 0), s(100, 5), s(130, 10)];
    expect(paceOf(samples, at(131))).toBe(10);
    // 100 s is out of the window at 161 s: 5 → 10.
    expect(paceOf(samples, at(161))).toBe(5);
    expect(paceOf(samples, at(130 + 60))).toBe(0);
    expect(paceOf(samples, at(500))).toBe(0);
  });

  it('is negative while counting down, and nets out changes both ways', () => {
    expect(paceOf([s(0, 100), s(70, 94)], at(80))).toBe(-6);
    expect(paceOf([s(0, 0), s(70, 3), s(75, 0)], at(80))).toBe(0);
  });
});

describe('labels', () => {
  it('rounds to a whole number from 10 up and one decimal below, never -0', () => {
    expect(paceLabel(12.4)).toBe('12/min');
    expect(paceLabel(1234.4)).toBe('1,234/min');
    expect(paceLabel(0.54)).toBe('0.5/min');
    expect(paceLabel(-3)).toBe('\u22123/min');
    expect(paceLabel(0.04)).toBeNull();
    expect(paceLabel(-0.04)).toBeNull();
    expect(paceLabel(0)).toBeNull();
    expect(paceSpoken(12)).toBe('12 per minute');
    expect(paceSpoken(-2.5)).toBe('down 2.5 per minute');
  });

  it('forecasts in minutes, at least one, and in hours from an hour', () => {
    expect(forecastLabel(0.2)).toBe('about 1 min');
    expect(forecastLabel(2.4)).toBe('about 2 min');
    expect(forecastLabel(2.6)).toBe('about 3 min');
    expect(forecastLabel(59.4)).toBe('about 59 min');
    expect(forecastLabel(59.6)).toBe('about 1 h');
    expect(forecastLabel(150)).toBe('about 3 h');
  });
});

describe('forecast direction', () => {
  it('heads for the goal while not reached, else the maximum', () => {
    expect(paceTarget(counter)).toBeNull();
    expect(paceTarget({ ...counter, goal: 20 })).toBe(20);
    expect(paceTarget({ ...counter, value: 20, goal: 20 })).toBeNull();
    expect(paceTarget({ ...counter, value: 20, goal: 20, max: 30 })).toBe(30);
    expect(paceTarget({ ...counter, value: 30, max: 30 })).toBeNull();
    // A goal below the start value is counted down to.
    expect(paceTarget({ ...counter, value: 80, startValue: 100, goal: 50 })).toBe(50);
  });

  it('forecasts only when the pace moves toward the target', () => {
    expect(minutesTo(10, 40, 10)).toBe(3);
    expect(minutesTo(10, 40, -10)).toBeNull();
    expect(minutesTo(10, 40, 0)).toBeNull();
    expect(minutesTo(80, 50, -10)).toBe(3);
    expect(minutesTo(40, 40, 10)).toBeNull();
    // Too far to say anything useful.
    expect(minutesTo(0, 1_000_000, 0.1)).toBeNull();
  });

  it('puts it together for a card, and shows nothing when idle', () => {
    const samples = [s(0, 0), s(5, 10)];
    expect(paceView({ ...counter, value: 10, goal: 100 }, samples, at(5))).toEqual({
      pace: '30/min',
      spoken: '30 per minute',
      forecast: 'at this pace: reached in about 3 min',
    });
    expect(paceView({ ...counter, value: 10 }, samples, at(5))?.forecast).toBeNull();
    expect(paceView({ ...counter, value: 10, goal: 5 }, samples, at(5))?.forecast).toBeNull();
    expect(paceView({ ...counter, value: 10, goal: 100 }, samples, at(200))).toBeNull();
  });
});

describe('PaceTracker', () => {
  it('records the first value as the start and each different value after it', () => {
    const tracker = new PaceTracker();
    tracker.observe('a', at(0), 1);
    const first = tracker.samplesOf('a');
    tracker.observe('a', at(1), 1);
    expect(tracker.samplesOf('a')).toBe(first);
    tracker.observe('a', at(2), 2);
    expect(tracker.samplesOf('a')).toEqual([s(0, 1), s(2, 2)]);
    expect(tracker.samplesOf('a')).not.toBe(first);
    expect(tracker.samplesOf('b')).toEqual([]);
  });

  it('keeps the window and the value before it, at most PACE_MAX_SAMPLES', () => {
    const tracker = new PaceTracker();
    for (let i = 0; i <= 200; i += 1) tracker.observe('a', at(i), i);
    const kept = tracker.samplesOf('a');
    expect(kept[0]).toEqual(s(140, 140));
    expect(kept.at(-1)).toEqual(s(200, 200));
    for (let i = 0; i < 500; i += 1) tracker.observe('b', at(0) + i, i);
    expect(tracker.samplesOf('b')).toHaveLength(PACE_MAX_SAMPLES);
  });

  it('follows the store: changed counters only, a snapshot or a set value restarts', () => {
    const tracker = new PaceTracker();
    const a0 = { ...steps, value: 0 };
    tracker.follow(new Map(), new Map([['a', a0]]), { time: at(0), reload: false });
    const a1 = { ...steps, value: 3 };
    tracker.follow(new Map([['a', a0]]), new Map([['a', a1]]), { time: at(10), reload: false });
    expect(tracker.samplesOf('a')).toEqual([s(0, 0), s(10, 3)]);
    // Unchanged counter objects are not looked at again.
    tracker.follow(new Map([['a', a1]]), new Map([['a', a1]]), { time: at(20), reload: false });
    expect(tracker.samplesOf('a')).toHaveLength(2);
    // A value typed in (far more than a few taps) is no pace.
    const typed = { ...steps, value: 500 };
    tracker.follow(new Map([['a', a1]]), new Map([['a', typed]]), { time: at(30), reload: false });
    expect(tracker.samplesOf('a')).toEqual([s(30, 500)]);
    // A snapshot after reconnecting: changes missed meanwhile are no pace either.
    tracker.follow(new Map(), new Map([['a', { ...steps, value: 510 }]]), {
      time: at(40),
      reload: true,
    });
    expect(tracker.samplesOf('a')).toEqual([s(40, 510)]);
    tracker.forget('a');
    expect(tracker.samplesOf('a')).toEqual([]);
  });
});
