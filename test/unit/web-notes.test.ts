/**
 * Which noted changes the history dialog and a member's detail show, and where the chart marks
 * them (docs/product.md#notes-and-earlier-times).
 */
import { describe, expect, it } from 'vitest';
import type { ActivityEntry } from '../../src/shared/activity.js';
import { chartMarks, countedTime, notesInScope, pastSince } from '../../src/web/lib/notes.js';

let nextId = 100;
function entry(
  at: string,
  extra: { countedAt?: string; note?: string; link?: string; kind?: 'counter.updated' } = {},
): ActivityEntry {
  const base = {
    id: nextId--,
    seq: 1,
    at,
    actor: 'Ada',
    counterId: 'c1',
    counterName: 'Coffees',
    value: 1,
    undoOf: null,
    undoneBy: null,
    ...(extra.note === undefined ? {} : { note: extra.note }),
    ...(extra.link === undefined ? {} : { link: { id: 'l1', label: extra.link } }),
  };
  if (extra.kind === 'counter.updated') return { ...base, kind: 'counter.updated', changes: [] };
  return {
    ...base,
    kind: 'counter.adjusted',
    delta: 1,
    increments: 1,
    decrements: 0,
    reachedGoal: null,
    ...(extra.countedAt === undefined ? {} : { countedAt: extra.countedAt }),
  };
}

const morning = Date.parse('2026-11-27T06:00:00Z');

describe('noted changes', () => {
  it('belong to the time they were counted for, else to when they were recorded', () => {
    expect(countedTime(entry('2026-11-27T10:00:00Z', { countedAt: '2026-11-26T18:00:00Z' }))).toBe(
      Date.parse('2026-11-26T18:00:00Z'),
    );
    expect(countedTime(entry('2026-11-27T10:00:00Z', { note: 'x' }))).toBe(
      Date.parse('2026-11-27T10:00:00Z'),
    );
    expect(countedTime(entry('2026-11-27T10:00:00Z', { kind: 'counter.updated', note: 'x' }))).toBe(
      Date.parse('2026-11-27T10:00:00Z'),
    );
  });

  it('in a range: a count for yesterday entered this morning is out, one for this morning entered tomorrow is in', () => {
    const forYesterday = entry('2026-11-27T09:00:00Z', { countedAt: '2026-11-26T18:00:00Z' });
    const forThisMorning = entry('2026-11-28T09:00:00Z', { countedAt: '2026-11-27T07:00:00Z' });
    const noted = entry('2026-11-27T08:00:00Z', { note: 'table 4' });
    const all = [forThisMorning, noted, forYesterday];
    expect(notesInScope(all, { since: morning })).toEqual([forThisMorning, noted]);
    expect(notesInScope(all, { since: null })).toEqual(all);
  });

  it('of a tap link, or of the group’s own link (null), or of either (undefined)', () => {
    const throughGate = entry('2026-11-27T08:00:00Z', { note: 'gate', link: 'Gate B' });
    const own = entry('2026-11-27T07:00:00Z', { note: 'own' });
    expect(notesInScope([throughGate, own], { since: null, link: 'Gate B' })).toEqual([
      throughGate,
    ]);
    expect(notesInScope([throughGate, own], { since: null, link: null })).toEqual([own]);
    expect(notesInScope([throughGate, own], { since: null })).toHaveLength(2);
  });

  it('stop being asked for once a page reaches a change recorded before the range', () => {
    const recordedBefore = entry('2026-11-27T05:00:00Z', { note: 'early' });
    const recordedAfter = entry('2026-11-27T09:00:00Z', { countedAt: '2026-11-26T18:00:00Z' });
    expect(pastSince([recordedAfter], morning)).toBe(false);
    expect(pastSince([recordedAfter, recordedBefore], morning)).toBe(true);
    expect(pastSince([recordedBefore], null)).toBe(false);
    expect(pastSince([], morning)).toBe(false);
  });

  it('are marked on the chart at their time, once each, within its span', () => {
    const from = Date.parse('2026-11-26T00:00:00Z');
    const to = Date.parse('2026-11-27T12:00:00Z');
    const marks = chartMarks(
      [
        entry('2026-11-27T10:00:00Z', { note: 'a' }),
        entry('2026-11-27T10:00:00Z', { note: 'b' }),
        entry('2026-11-27T11:00:00Z', { countedAt: '2026-11-26T18:00:00Z' }),
        entry('2026-11-25T11:00:00Z', { note: 'before the chart' }),
      ],
      from,
      to,
    );
    expect(marks).toEqual([Date.parse('2026-11-26T18:00:00Z'), Date.parse('2026-11-27T10:00:00Z')]);
  });
});
