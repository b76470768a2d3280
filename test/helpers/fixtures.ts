import type { Counter, GroupView } from '../../src/shared/api.js';

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

/**
 * A Tally JSON export, as GET …/export writes it, of one counter, Coffees (in `section`), and
 * its `taps` taps of 1 by Ada, a second apart, each with a chain hash; every third with a note
 * when `notes`.
 */
export function tallyExportWithTaps(
  taps: number,
  { section = null, notes = false }: { section?: string | null; notes?: boolean } = {},
): string {
  const at = (index: number) => new Date(Date.UTC(2026, 0, 1) + index * 1_000).toISOString();
  const counter: Counter = {
    id: 'source-coffees',
    name: 'Coffees',
    description: '',
    value: taps,
    incrementStep: 1,
    decrementStep: 1,
    thumbnailUrl: null,
    ...noPurpose(taps),
    section,
    createdAt: at(0),
    version: taps,
  };
  const activity = Array.from({ length: taps }, (_, index) => ({
    kind: 'counter.adjusted' as const,
    id: index + 1,
    seq: index + 1,
    at: at(index),
    actor: 'Ada',
    ...(notes && index % 3 === 0 ? { note: `round ${String(index)}` } : {}),
    undoOf: null,
    undoneBy: null,
    counterId: counter.id,
    counterName: counter.name,
    value: index + 1,
    delta: 1,
    increments: 1,
    decrements: 0,
    reachedGoal: null,
    hash: index.toString(16).padStart(64, '0'),
  }));
  return JSON.stringify({
    exportedAt: at(taps),
    group: { id: 'source-group', name: 'source' },
    counters: [counter],
    activity,
    periods: [],
  });
}
