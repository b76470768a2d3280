/**
 * The web app's words and shapes for the activity log (ADR 7): activity entries read at a glance,
 * undo toasts, relative times, export file names, sparkline and chart geometry, merging of activity
 * pages.
 */
import { describe, expect, it } from 'vitest';
import type { ActivityEntry, CounterSnapshot } from '../../src/shared/activity.js';
import { mergeEntries } from '../../src/web/components/ActivityPanel.js';
import { sparkPath } from '../../src/web/components/GroupExtras.js';
import {
  niceTicks,
  timeLabel,
  timeStep,
  timeTicks,
} from '../../src/web/components/HistoryChart.js';
import { fileNameOf } from '../../src/web/lib/activity.js';
import { ApiRequestError } from '../../src/web/lib/api.js';
import {
  describeOp,
  entrySentence,
  relativeTime,
  undoErrorMessage,
} from '../../src/web/lib/describe.js';
import type { Op } from '../../src/web/live/ops.js';

const base = {
  seq: 1,
  at: '2026-03-01T12:00:00.000Z',
  actor: 'Ada',
  undoOf: null,
  undoneBy: null,
};
const counterBase = { ...base, counterId: 'c1', counterName: 'Coffees', value: 5 };
const snapshot: CounterSnapshot = {
  id: 'c1',
  name: 'Coffees',
  description: '',
  value: 7,
  incrementStep: 1,
  decrementStep: 1,
  thumbnailUrl: null,
  goal: null,
  min: null,
  max: null,
  reset: null,
  startValue: 0,
  section: null,
  periodStart: null,
  createdAt: '2026-03-01T11:00:00.000Z',
};

const adjusted = (id: number, delta: number, extra: Partial<ActivityEntry> = {}): ActivityEntry =>
  ({
    kind: 'counter.adjusted',
    id,
    ...counterBase,
    delta,
    increments: Math.max(delta, 0),
    decrements: Math.max(-delta, 0),
    reachedGoal: null,
    ...extra,
  }) as ActivityEntry;

const none = new Map<number, ActivityEntry>();

describe('activity entries read at a glance', () => {
  it('taps: "Ada +5 on Coffees", "Ada −2 on Coffees"', () => {
    expect(entrySentence(adjusted(1, 5), none)).toBe('Ada +5 on Coffees');
    expect(entrySentence(adjusted(1, -2), none)).toBe('Ada \u22122 on Coffees');
  });

  it('edits: rename, set value, steps, description, thumbnail', () => {
    const updated = (changes: unknown[]): ActivityEntry =>
      ({ kind: 'counter.updated', id: 2, ...counterBase, changes }) as ActivityEntry;
    expect(entrySentence(updated([{ field: 'name', from: 'Coffees', to: 'Teas' }]), none)).toBe(
      'Ada renamed Coffees → Teas',
    );
    expect(entrySentence(updated([{ field: 'value', from: 3, to: 12 }]), none)).toBe(
      'Ada set Coffees to 12',
    );
    expect(entrySentence(updated([{ field: 'incrementStep', from: 1, to: 5 }]), none)).toBe(
      'Ada set the increment step of Coffees to 5',
    );
    expect(entrySentence(updated([{ field: 'description', from: 'x', to: '' }]), none)).toBe(
      'Ada cleared the description of Coffees',
    );
    expect(
      entrySentence(updated([{ field: 'thumbnailUrl', from: null, to: 'https://x/y.png' }]), none),
    ).toBe('Ada added a thumbnail to Coffees');
    expect(
      entrySentence(updated([{ field: 'thumbnailUrl', from: 'https://x/y.png', to: null }]), none),
    ).toBe('Ada removed the thumbnail of Coffees');
  });

  it('created, deleted and group edits', () => {
    const created = { kind: 'counter.created', id: 3, ...counterBase, counter: snapshot };
    const deleted = { ...created, kind: 'counter.deleted', value: null };
    expect(entrySentence(created as ActivityEntry, none)).toBe('Ada created Coffees');
    expect(entrySentence(deleted as ActivityEntry, none)).toBe('Ada deleted Coffees');
    const group = {
      kind: 'group.updated',
      id: 4,
      ...base,
      counterId: null,
      counterName: null,
      value: null,
      changes: [{ field: 'displayName', from: 'old', to: 'Book club' }],
    } as ActivityEntry;
    expect(entrySentence(group, none)).toBe('Ada changed the group name to Book club');
  });

  it('an undo names what it took back, with its author when that entry is loaded', () => {
    const original = adjusted(10, 5, { undoneBy: 11 });
    const undo = adjusted(11, -5, { actor: 'Bob', undoOf: 10 });
    expect(entrySentence(undo, new Map([[10, original]]))).toBe('Bob undid Ada +5 on Coffees');
    // Original on a page not loaded: rebuilt from the undo itself.
    expect(entrySentence(undo, none)).toBe('Bob undid +5 on Coffees');
    const restore = {
      kind: 'counter.created',
      id: 12,
      ...counterBase,
      actor: 'Bob',
      undoOf: 9,
      counter: snapshot,
    } as ActivityEntry;
    expect(entrySentence(restore, none)).toBe('Bob undid deleted Coffees');
    const renameBack = {
      kind: 'counter.updated',
      id: 13,
      ...counterBase,
      counterName: 'Teas',
      actor: 'Bob',
      undoOf: 8,
      changes: [{ field: 'name', from: 'Teas', to: 'Coffees' }],
    } as ActivityEntry;
    expect(entrySentence(renameBack, none)).toBe('Bob undid renamed Coffees → Teas');
  });
});

describe('undo toast texts', () => {
  const op = (fields: Partial<Op>): Op => ({ opId: 'x', sent: true, ...fields }) as Op;
  it('describes this tab’s own changes', () => {
    expect(describeOp(op({ kind: 'adjust', name: 'Coffees', delta: 5 }))).toBe('+5 on Coffees');
    expect(describeOp(op({ kind: 'delete', name: 'Coffees' }))).toBe('Deleted Coffees');
    expect(describeOp(op({ kind: 'patch', name: 'Coffees', patch: { name: 'Teas' } }))).toBe(
      'Renamed Coffees → Teas',
    );
    expect(describeOp(op({ kind: 'patch', name: 'Coffees', patch: { value: 12 } }))).toBe(
      'Set Coffees to 12',
    );
    expect(describeOp(op({ kind: 'group', patch: { displayName: 'Book club' } }))).toBe(
      'Changed the group name to Book club',
    );
    expect(describeOp(op({ kind: 'create' }))).toBe('Added a counter');
  });

  it('explains why an undo did not happen', () => {
    expect(
      undoErrorMessage(new ApiRequestError(409, { code: 'already_undone', message: 'x' })),
    ).toBe('This change was already undone.');
    expect(
      undoErrorMessage(new ApiRequestError(404, { code: 'counter_not_found', message: 'x' })),
    ).toMatch(/counter no longer exists/);
    expect(
      undoErrorMessage(new ApiRequestError(422, { code: 'value_out_of_range', message: 'x' })),
    ).toMatch(/out of range/);
    expect(
      undoErrorMessage(new ApiRequestError(404, { code: 'activity_not_found', message: 'x' })),
    ).toMatch(/no longer be undone/);
  });
});

describe('relative times', () => {
  const now = Date.parse('2026-03-10T12:00:00Z');
  it('just now, minutes, hours, days, then a date', () => {
    expect(relativeTime(now - 20_000, now)).toBe('just now');
    expect(relativeTime(now - 2 * 60_000, now)).toBe('2 min ago');
    expect(relativeTime(now - 3 * 3_600_000, now)).toBe('3 h ago');
    expect(relativeTime(now - 4 * 86_400_000, now)).toBe('4 d ago');
    expect(relativeTime(Date.parse('2026-02-01T12:00:00Z'), now)).toBe('1 Feb');
    expect(relativeTime(Date.parse('2025-02-01T12:00:00Z'), now)).toBe('1 Feb 2025');
    // A clock slightly behind the server's: never "in the future".
    expect(relativeTime(now + 5_000, now)).toBe('just now');
  });
});

describe('export file names (Content-Disposition)', () => {
  it('reads quoted, bare and RFC 5987 names, and keeps only a base name', () => {
    expect(fileNameOf('attachment; filename="team-counters.csv"')).toBe('team-counters.csv');
    expect(fileNameOf('attachment; filename=team-export.json')).toBe('team-export.json');
    expect(fileNameOf(`attachment; filename="a.csv"; filename*=UTF-8''caf%C3%A9.csv`)).toBe(
      'café.csv',
    );
    expect(fileNameOf('attachment; filename="../../etc/passwd"')).toBe('passwd');
    expect(fileNameOf('attachment')).toBeNull();
    expect(fileNameOf(null)).toBeNull();
  });
});

describe('sparkline and chart geometry', () => {
  it('draws a rising line corner to corner, a flat one in the middle', () => {
    expect(sparkPath([0, 10]).line).toBe('M0.0 22.0L100.0 2.0');
    expect(sparkPath([4]).line).toBe('M0.0 12.0L100.0 12.0');
    expect(sparkPath([]).line).toBe('');
  });

  it('picks round axis ticks', () => {
    expect(niceTicks(0, 100)).toEqual([0, 20, 40, 60, 80, 100]);
    expect(niceTicks(0, 3)).toEqual([0, 1, 2, 3]);
    expect(niceTicks(-7, 12)).toEqual([-5, 0, 5, 10]);
    expect(niceTicks(5, 5)).toEqual([5]);
    const hour = 3_600_000;
    const from = Date.parse('2026-03-01T09:20:00');
    const step = timeStep(from, from + 6 * hour, 4);
    expect(step).toBe(3 * hour);
    const ticks = timeTicks(from, from + 6 * hour, step);
    expect(ticks.map((tick) => timeLabel(tick, step, 6 * hour))).toEqual(['12:00', '15:00']);
    // Across midnight: the date where the day changes, times in between.
    const night = Date.parse('2026-03-01T20:10:00');
    const nightStep = timeStep(night, night + 12 * hour, 4);
    expect(
      timeTicks(night, night + 12 * hour, nightStep).map((tick) =>
        timeLabel(tick, nightStep, 12 * hour),
      ),
    ).toEqual(['21:00', '2 Mar', '03:00', '06:00']);
  });
});

describe('activity pages', () => {
  it('merges newer entries in front, each id once, marking what an undo took back', () => {
    const held = [adjusted(5, 1), adjusted(4, 1)];
    const merged = mergeEntries(
      held,
      [adjusted(7, -1, { undoOf: 5 }), adjusted(6, 1), adjusted(5, 1)],
      'newer',
    );
    expect(merged.map((entry) => entry.id)).toEqual([7, 6, 5, 4]);
    expect(merged.find((entry) => entry.id === 5)?.undoneBy).toBe(7);
    const older = mergeEntries(merged, [adjusted(3, 1), adjusted(4, 1)], 'older');
    expect(older.map((entry) => entry.id)).toEqual([7, 6, 5, 4, 3]);
  });
});
