import type { GroupView } from '../../src/shared/api.js';

/**
 * The fields of goals, limits, periods, order and sections (ADR 19), at the values a group or
 * counter has before anyone sets them: for hand-written fixtures of unit tests.
 */
export const GROUP_CALENDAR_DEFAULTS = {
  timeZone: 'UTC',
  weekStart: 1,
  sectionLimits: {},
} as const;

/** A counter without goal, limits, period or section; `allTime` equals its value. */
export const noPurpose = (value: number) => ({
  goal: null,
  min: null,
  max: null,
  reset: null,
  startValue: 0,
  section: null,
  periodStart: null,
  allTime: value,
});

/** A group `g` (id `groupId`) with no counters, as its snapshot at change number `seq`. */
export function emptySnapshotAt(seq: number, groupId = 'g1'): GroupView {
  return {
    group: {
      id: groupId,
      name: 'g',
      displayName: 'g',
      profileImageUrl: null,
      ...GROUP_CALENDAR_DEFAULTS,
    },
    counters: [],
    seq,
  };
}
