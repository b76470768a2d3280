/**
 * The words of counters with a purpose (ADR 19) in the activity log and the undo toast: goals
 * reached, limits, periods and resets, order, sections, the group's time zone and first day of the
 * week.
 */
import { describe, expect, it } from 'vitest';
import type { ActivityEntry, FieldChange } from '../../src/shared/activity.js';
import { ApiRequestError } from '../../src/web/lib/api.js';
import {
  action,
  describeOp,
  entrySentence,
  originalOf,
  undoErrorMessage,
} from '../../src/web/lib/describe.js';
import type { Op } from '../../src/web/live/ops.js';

const base = {
  seq: 1,
  at: '2026-11-24T12:00:00.000Z',
  actor: 'Ada',
  undoOf: null,
  undoneBy: null,
};
const counterBase = { ...base, counterId: 'c1', counterName: 'Coffees', value: 5 };
const none = new Map<number, ActivityEntry>();

const adjusted = (delta: number, reachedGoal: number | null, extra = {}): ActivityEntry => ({
  kind: 'counter.adjusted',
  id: 1,
  ...counterBase,
  delta,
  increments: Math.max(delta, 0),
  decrements: Math.max(-delta, 0),
  reachedGoal,
  ...extra,
});

const updated = (...changes: FieldChange[]): ActivityEntry => ({
  kind: 'counter.updated',
  id: 2,
  ...counterBase,
  changes,
});

const groupUpdated = (...changes: FieldChange[]): ActivityEntry => ({
  kind: 'group.updated',
  id: 3,
  ...base,
  counterId: null,
  counterName: null,
  value: null,
  changes,
});

const reset = (
  periodStart: string,
  periodEnd: string,
  final: number,
  value = 0,
): ActivityEntry => ({
  kind: 'counter.reset',
  id: 4,
  ...counterBase,
  actor: 'Tally',
  value,
  final,
  periodStart,
  periodEnd,
});

describe('goals in the log', () => {
  it('a tap that reached the goal says so; later taps do not', () => {
    expect(entrySentence(adjusted(5, 100), none)).toBe(
      'Ada +5 on Coffees — reached the goal of 100',
    );
    expect(entrySentence(adjusted(-3, 0), none)).toBe(
      'Ada \u22123 on Coffees — reached the goal of 0',
    );
    expect(entrySentence(adjusted(1, null), none)).toBe('Ada +1 on Coffees');
  });

  it('setting and removing a goal', () => {
    expect(action(updated({ field: 'goal', from: null, to: 100 }))).toBe(
      'set the goal of Coffees to 100',
    );
    expect(action(updated({ field: 'goal', from: 100, to: null }))).toBe(
      'removed the goal of Coffees',
    );
  });
});

describe('limits, periods and start values in the log', () => {
  it('minimum and maximum, set and removed, several in one entry', () => {
    expect(action(updated({ field: 'min', from: null, to: 0 }))).toBe(
      'set the minimum of Coffees to 0',
    );
    expect(action(updated({ field: 'max', from: 120, to: null }))).toBe(
      'removed the maximum of Coffees',
    );
    expect(
      action(updated({ field: 'min', from: 0, to: null }, { field: 'max', from: null, to: 300 })),
    ).toBe('removed the minimum of Coffees, set the maximum of Coffees to 300');
  });

  it('the automatic reset and the start value', () => {
    expect(action(updated({ field: 'reset', from: null, to: 'daily' }))).toBe(
      'set Coffees to reset daily',
    );
    expect(action(updated({ field: 'reset', from: 'daily', to: 'weekly' }))).toBe(
      'set Coffees to reset weekly',
    );
    expect(action(updated({ field: 'reset', from: 'monthly', to: null }))).toBe(
      'stopped the automatic reset of Coffees',
    );
    expect(action(updated({ field: 'startValue', from: 0, to: 10 }))).toBe(
      'set the start value of Coffees to 10',
    );
  });

  it('Tally’s resets say which period ended and at what', () => {
    expect(entrySentence(reset('2026-11-23T00:00:00Z', '2026-11-24T00:00:00Z', 12), none)).toBe(
      'Tally reset Coffees: the day ended at 12',
    );
    // Berlin's 25-hour autumn day is still a day.
    expect(action(reset('2026-10-24T22:00:00Z', '2026-10-25T23:00:00Z', 3))).toBe(
      'reset Coffees: the day ended at 3',
    );
    expect(action(reset('2026-11-16T00:00:00Z', '2026-11-23T00:00:00Z', 40))).toBe(
      'reset Coffees: the week ended at 40',
    );
    expect(action(reset('2026-10-01T00:00:00Z', '2026-11-01T00:00:00Z', -7))).toBe(
      'reset Coffees: the month ended at -7',
    );
    // Back to a start value other than 0; a period cut short.
    expect(action(reset('2026-11-23T00:00:00Z', '2026-11-24T00:00:00Z', 12, 50))).toBe(
      'reset Coffees to 50: the day ended at 12',
    );
    expect(action(reset('2026-11-23T00:00:00Z', '2026-11-23T09:00:00Z', 2))).toBe(
      'reset Coffees: the period ended at 2',
    );
  });
});

describe('order and sections in the log', () => {
  it('reordering', () => {
    const reordered: ActivityEntry = {
      kind: 'counters.reordered',
      id: 5,
      ...base,
      counterId: null,
      counterName: null,
      value: null,
      from: ['a', 'b'],
      to: ['b', 'a'],
    };
    expect(entrySentence(reordered, none)).toBe('Ada reordered the counters');
  });

  it('moving a counter into, between and out of sections', () => {
    expect(action(updated({ field: 'section', from: null, to: 'Entrances' }))).toBe(
      'moved Coffees to section Entrances',
    );
    expect(action(updated({ field: 'section', from: 'Entrances', to: 'Exits' }))).toBe(
      'moved Coffees to section Exits',
    );
    expect(action(updated({ field: 'section', from: 'Entrances', to: null }))).toBe(
      'took Coffees out of section Entrances',
    );
  });

  it('a section’s maximum names its section', () => {
    expect(
      action(groupUpdated({ field: 'sectionMax', section: 'Entrances', from: null, to: 300 })),
    ).toBe('set the maximum of section Entrances to 300');
    expect(
      action(groupUpdated({ field: 'sectionMax', section: 'Entrances', from: 300, to: null })),
    ).toBe('removed the maximum of section Entrances');
  });
});

describe('the group’s time zone and week in the log', () => {
  it('time zone and first day of the week', () => {
    expect(
      entrySentence(groupUpdated({ field: 'timeZone', from: 'UTC', to: 'Europe/Berlin' }), none),
    ).toBe("Ada set the group's time zone to Europe/Berlin");
    expect(action(groupUpdated({ field: 'weekStart', from: 1, to: 7 }))).toBe(
      'made weeks start on Sunday',
    );
    expect(action(groupUpdated({ field: 'weekStart', from: 7, to: 1 }))).toBe(
      'made weeks start on Monday',
    );
    expect(action(groupUpdated({ field: 'weekStart', from: 7, to: 9 }))).toBe(
      'changed the first day of the week',
    );
  });
});

describe('undo entries of the new kinds', () => {
  it('an undone goal-reaching tap reads as the tap, without a goal it cannot know', () => {
    const undo = adjusted(-5, null, { id: 9, actor: 'Bob', undoOf: 1 });
    expect(entrySentence(undo, none)).toBe('Bob undid +5 on Coffees');
    const original = originalOf(undo);
    expect(original).toMatchObject({ delta: 5, increments: 5, decrements: 0, reachedGoal: null });
    // With the original loaded, its own words, goal included.
    expect(entrySentence(undo, new Map([[1, adjusted(5, 100)]]))).toBe(
      'Bob undid Ada +5 on Coffees — reached the goal of 100',
    );
  });

  it('an undone reorder restores the order before it', () => {
    const undo: ActivityEntry = {
      kind: 'counters.reordered',
      id: 10,
      ...base,
      actor: 'Bob',
      undoOf: 5,
      counterId: null,
      counterName: null,
      value: null,
      from: ['b', 'a'],
      to: ['a', 'b'],
    };
    expect(originalOf(undo)).toMatchObject({ from: ['a', 'b'], to: ['b', 'a'] });
    expect(entrySentence(undo, none)).toBe('Bob undid reordered the counters');
  });

  it('undone field changes swap back, a section’s maximum keeping its section', () => {
    const undo = {
      ...groupUpdated({ field: 'sectionMax', section: 'Entrances', from: 300, to: null }),
      undoOf: 3,
      actor: 'Bob',
    };
    expect(entrySentence(undo, none)).toBe('Bob undid set the maximum of section Entrances to 300');
    const goalBack = { ...updated({ field: 'goal', from: 100, to: null }), undoOf: 2 };
    expect(entrySentence(goalBack, none)).toBe('Ada undid set the goal of Coffees to 100');
  });

  it('a reset is never an undo: it is its own original', () => {
    const entry = reset('2026-11-23T00:00:00Z', '2026-11-24T00:00:00Z', 12);
    expect(originalOf(entry)).toBe(entry);
  });
});

describe('undo toast texts of the new fields', () => {
  const op = (fields: Partial<Op>): Op => ({ opId: 'x', sent: true, ...fields }) as Op;

  it('describes this tab’s reorders and section maximums', () => {
    expect(describeOp(op({ kind: 'reorder', counterIds: ['a', 'b'] }))).toBe(
      'Reordered the counters',
    );
    expect(describeOp(op({ kind: 'section', section: 'Entrances', max: 1200 }))).toBe(
      'Set the maximum of Entrances to 1,200',
    );
    expect(describeOp(op({ kind: 'section', section: 'Entrances', max: null }))).toBe(
      'Removed the maximum of Entrances',
    );
  });

  it('describes this tab’s own changes of goals, limits, periods and sections', () => {
    expect(describeOp(op({ kind: 'patch', name: 'Coffees', patch: { goal: 100 } }))).toBe(
      'Set the goal of Coffees to 100',
    );
    expect(describeOp(op({ kind: 'patch', name: 'Coffees', patch: { max: null } }))).toBe(
      'Removed the maximum of Coffees',
    );
    expect(describeOp(op({ kind: 'patch', name: 'Coffees', patch: { min: 0, max: 10 } }))).toBe(
      'Set the minimum of Coffees to 0, set the maximum of Coffees to 10',
    );
    expect(describeOp(op({ kind: 'patch', name: 'Coffees', patch: { reset: 'daily' } }))).toBe(
      'Set Coffees to reset daily',
    );
    expect(
      describeOp(op({ kind: 'patch', name: 'Coffees', patch: { section: 'Entrances' } })),
    ).toBe('Moved Coffees to section Entrances');
    expect(describeOp(op({ kind: 'patch', name: 'Coffees', patch: { section: null } }))).toBe(
      'Took Coffees out of its section',
    );
    expect(describeOp(op({ kind: 'group', patch: { timeZone: 'Asia/Tokyo' } }))).toBe(
      "Set the group's time zone to Asia/Tokyo",
    );
    expect(describeOp(op({ kind: 'group', patch: { weekStart: 7 } }))).toBe(
      'Made weeks start on Sunday',
    );
  });

  it('a kind of change it has no words for yet still gets a sentence', () => {
    expect(describeOp({ kind: 'tidyUp', opId: 'x', sent: true } as unknown as Op)).toBe(
      'Changed the group',
    );
  });
});

describe('undo refusals: limits, automatic resets and ended periods', () => {
  it('limits and changes that cannot be undone show the server’s sentence', () => {
    expect(
      undoErrorMessage(
        new ApiRequestError(409, {
          code: 'limit_reached',
          message: 'Limit reached: this counter cannot go above 10.',
        }),
      ),
    ).toBe('Cannot undo. Limit reached: this counter cannot go above 10.');
    expect(
      undoErrorMessage(
        new ApiRequestError(409, {
          code: 'cannot_undo',
          message: 'An automatic reset cannot be undone.',
        }),
      ),
    ).toBe('An automatic reset cannot be undone.');
  });
});
