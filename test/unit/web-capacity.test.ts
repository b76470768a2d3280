/**
 * What a card says about its counter's goal, limits and period (src/web/lib/capacity.ts).
 */
import { describe, expect, it } from 'vitest';
import { MESSAGES } from '../../src/shared/messages.js';
import {
  atMinimum,
  blockedReason,
  capacityOf,
  clampToLimits,
  goalProgress,
  partialRoom,
  periodFigures,
} from '../../src/web/lib/capacity.js';

const counter = {
  value: 0,
  goal: null,
  min: null,
  max: null,
  reset: null,
  startValue: 0,
  allTime: 0,
  incrementStep: 1,
  decrementStep: 1,
  section: null,
} as const;

describe('a counter without goal, limits or period', () => {
  it('shows none of them', () => {
    expect(goalProgress(counter)).toBeNull();
    expect(capacityOf(counter)).toBeNull();
    expect(periodFigures(counter)).toBeNull();
    expect(atMinimum(counter)).toBe(false);
  });

  it('never blocks a tap, even far below zero (no floor without a minimum)', () => {
    expect(blockedReason({ ...counter, value: -1e12 }, 'decrement')).toBeNull();
    expect(blockedReason({ ...counter, value: 1e12 }, 'increment')).toBeNull();
  });
});

describe('goal progress', () => {
  it('counts up from the start value: 12 of 20 is 60 % and not reached', () => {
    const progress = goalProgress({ ...counter, value: 12, goal: 20 });
    expect(progress).toMatchObject({ fraction: 0.6, reached: false, label: '12 / 20' });
    expect(progress?.valueText).toBe('12 of 20, 60 %');
  });

  it('is reached at the goal and stays reached past it, the bar full', () => {
    expect(goalProgress({ ...counter, value: 20, goal: 20 })).toMatchObject({
      fraction: 1,
      reached: true,
    });
    expect(goalProgress({ ...counter, value: 25, goal: 20 })).toMatchObject({
      fraction: 1,
      reached: true,
    });
  });

  it('measures from the start value, not from zero', () => {
    expect(goalProgress({ ...counter, startValue: 10, value: 15, goal: 20 })?.fraction).toBe(0.5);
  });

  it('counts down to a goal below the start value (reached when the value is at or below it)', () => {
    const down = { ...counter, startValue: 100, goal: 0 };
    expect(goalProgress({ ...down, value: 75 })).toMatchObject({ fraction: 0.25, reached: false });
    expect(goalProgress({ ...down, value: 0 })).toMatchObject({ fraction: 1, reached: true });
    expect(goalProgress({ ...down, value: -3 })?.reached).toBe(true);
  });

  it('shows no progress below the start value (never a negative bar)', () => {
    expect(goalProgress({ ...counter, value: -5, goal: 10 })?.fraction).toBe(0);
  });

  it('writes big numbers with separators', () => {
    expect(goalProgress({ ...counter, value: 1234, goal: 10000 })?.label).toBe('1,234 / 10,000');
  });
});

describe('capacity', () => {
  it('says the room left below 90 %', () => {
    expect(capacityOf({ ...counter, value: 12, max: 20 })).toMatchObject({
      level: 'room',
      left: 8,
      label: '8 left',
    });
  });

  it('is nearly full from exactly 90 % of the maximum (18 of 20, 63 of 70)', () => {
    expect(capacityOf({ ...counter, value: 17, max: 20 })?.level).toBe('room');
    expect(capacityOf({ ...counter, value: 18, max: 20 })).toMatchObject({
      level: 'near',
      left: 2,
      label: 'Nearly full · 2 left',
    });
    // 0.9 × 70 is 63.00000000000001 in floating point: the share is a division instead.
    expect(capacityOf({ ...counter, value: 63, max: 70 })?.level).toBe('near');
    expect(capacityOf({ ...counter, value: 62, max: 70 })?.level).toBe('room');
  });

  it('is full at the maximum, with nothing left', () => {
    expect(capacityOf({ ...counter, value: 20, max: 20 })).toMatchObject({
      level: 'full',
      left: 0,
      fraction: 1,
      label: 'Full',
    });
  });

  it('fills from the minimum when there is one', () => {
    expect(capacityOf({ ...counter, value: 100, min: 100, max: 110 })).toMatchObject({
      level: 'room',
      fraction: 0,
    });
    expect(capacityOf({ ...counter, value: 109, min: 100, max: 110 })?.level).toBe('near');
  });

  it('has no nearly-full state when the maximum is not above the floor', () => {
    expect(capacityOf({ ...counter, value: -1, max: 0 })).toMatchObject({
      level: 'room',
      left: 1,
    });
    expect(capacityOf({ ...counter, value: 0, max: 0 })?.level).toBe('full');
  });
});

describe('limits on the buttons', () => {
  it('blocks the increment at the maximum with the server’s sentence', () => {
    expect(blockedReason({ ...counter, value: 20, max: 20 }, 'increment')).toBe(
      MESSAGES.limitAbove(20),
    );
    expect(blockedReason({ ...counter, value: 19, max: 20 }, 'increment')).toBeNull();
    expect(blockedReason({ ...counter, value: 20, max: 20 }, 'decrement')).toBeNull();
  });

  it('blocks a step that would pass the maximum (the server refuses it whole)', () => {
    expect(blockedReason({ ...counter, value: 17, max: 20, incrementStep: 5 }, 'increment')).toBe(
      MESSAGES.limitAbove(20),
    );
  });

  it('blocks the decrement at the minimum', () => {
    const low = { ...counter, value: 0, min: 0 };
    expect(blockedReason(low, 'decrement')).toBe(MESSAGES.limitBelow(0));
    expect(atMinimum(low)).toBe(true);
    expect(blockedReason({ ...low, value: 3, decrementStep: 2 }, 'decrement')).toBeNull();
    expect(atMinimum({ ...low, value: 3 })).toBe(false);
  });

  it('blocks an increment that would take the section past its maximum', () => {
    const north = { ...counter, value: 4, section: 'North' };
    expect(blockedReason(north, 'increment', { max: 10, total: 10 })).toBe(
      MESSAGES.sectionFull('North', 10),
    );
    expect(blockedReason(north, 'increment', { max: 10, total: 9 })).toBeNull();
    // Taking away from a full section is always possible.
    expect(blockedReason(north, 'decrement', { max: 10, total: 12 })).toBeNull();
  });

  it('offers what is left when a whole step would pass a limit, and nothing otherwise', () => {
    const hall = { ...counter, value: 29, max: 30, incrementStep: 5 };
    expect(partialRoom(hall, 'increment')).toBe(1);
    expect(partialRoom({ ...hall, value: 30 }, 'increment')).toBe(0);
    expect(partialRoom({ ...hall, value: 20 }, 'increment')).toBe(0);
    const floor = { ...counter, value: 3, min: 0, decrementStep: 5 };
    expect(partialRoom(floor, 'decrement')).toBe(3);
    expect(partialRoom({ ...floor, value: 0 }, 'decrement')).toBe(0);
    // A section's room counts too, whichever is smaller.
    const north = { ...hall, value: 10, max: 40, section: 'North' };
    expect(partialRoom(north, 'increment', { max: 12, total: 10 })).toBe(2);
    expect(partialRoom({ ...north, max: 11 }, 'increment', { max: 20, total: 10 })).toBe(1);
  });

  it('keeps a typed value inside the limits', () => {
    const limited = { min: 0, max: 20 };
    expect(clampToLimits(25, limited)).toBe(20);
    expect(clampToLimits(-4, limited)).toBe(0);
    expect(clampToLimits(7, limited)).toBe(7);
    expect(clampToLimits(-4, { min: null, max: null })).toBe(-4);
  });
});

describe('period', () => {
  it('says how often it resets, this period and all time', () => {
    expect(periodFigures({ ...counter, reset: 'weekly', value: 5, allTime: 1205 })).toEqual({
      label: 'Resets weekly',
      thisPeriod: '5',
      allTime: '1,205',
    });
    expect(periodFigures({ ...counter, reset: 'daily' })?.label).toBe('Resets daily');
    expect(periodFigures({ ...counter, reset: 'monthly' })?.label).toBe('Resets monthly');
  });
});
