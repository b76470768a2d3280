import { describe, expect, it } from 'vitest';
import { MAX_VALUE } from '../../src/shared/limits.js';
import { MESSAGES } from '../../src/shared/messages.js';
import { commit, counterRow, groupRow, tap, type World } from '../helpers/domain.js';

const world = (counters: World['counters'], limits: Record<string, number> = {}): World => ({
  groups: [groupRow('g', { sectionLimits: limits })],
  counters,
});

describe('domain: taps', () => {
  it('applies a run of taps on one counter as one change, one entry per member', () => {
    const result = commit(world([counterRow('g', 'c', { value: 5, incrementStep: 2 })]), [
      tap('c', 'increment', { opId: 'a1' }),
      tap('c', 'increment', { opId: 'b1', actor: 'Bo' }),
      tap('c', 'decrement', { opId: 'a2' }),
    ]);
    // 5 + 2 + 2 − 1, all with change number 11 (the group was at 10).
    const counter = {
      ...counterRow('g', 'c', { value: 8, incrementStep: 2 }).counter,
      version: 11,
    };
    expect(result.outcomes.map((outcome) => outcome.ok)).toEqual([true, true, true]);
    expect(result.outcomes[0]).toEqual({
      ok: true,
      result: { kind: 'counter', counter, created: false },
      changes: [],
      replayed: false,
    });
    expect(result.outcomes[2]).toMatchObject({
      changes: [{ type: 'counter.updated', seq: 11, counter, opIds: ['a1', 'b1', 'a2'] }],
    });
    expect(result.writes.counters).toEqual([
      { ...counterRow('g', 'c'), counter, existed: true, onlyValue: true },
    ]);
    expect(result.writes.groups).toEqual([
      {
        ...groupRow('g'),
        seq: 11,
        alertsChanged: false,
        logHead: expect.stringMatching(/^[0-9a-f]{64}$/) as unknown,
      },
    ]);
    expect(
      result.writes.entries.map(({ draft }) => [draft.actor, draft.delta, draft.opIds]),
    ).toEqual([
      ['Ada', 1, ['a1', 'a2']],
      ['Bo', 2, ['b1']],
    ]);
    expect(result.writes.entries[0]?.draft).toMatchObject({ increments: 2, decrements: 1 });
    expect(result.writes.operationIds.map(({ opId, entry }) => [opId, entry])).toEqual([
      ['a1', 0],
      ['a2', 0],
      ['b1', 1],
    ]);
    expect(result.changes.get('g')).toHaveLength(1);
  });

  it('refuses the tap that would pass the maximum and keeps the others', () => {
    const result = commit(world([counterRow('g', 'c', { value: 8, max: 10 })]), [
      tap('c'),
      tap('c'),
      tap('c'),
      tap('c', 'decrement'),
    ]);
    expect(result.outcomes[2]).toEqual({
      ok: false,
      code: 'limit_reached',
      message: MESSAGES.limitAbove(10),
    });
    expect(result.outcomes.filter((outcome) => outcome.ok)).toHaveLength(3);
    expect(result.writes.counters[0]?.counter.value).toBe(9);
  });

  it('refuses a tap below the minimum but lets a value stored outside the limits move in', () => {
    const below = commit(world([counterRow('g', 'c', { value: 0, min: 0 })]), [
      tap('c', 'decrement'),
    ]);
    expect(below.outcomes).toEqual([
      { ok: false, code: 'limit_reached', message: MESSAGES.limitBelow(0) },
    ]);
    expect(below.writes.counters).toEqual([]);
    expect(below.writes.groups).toEqual([]);

    const outside = commit(world([counterRow('g', 'c', { value: 20, max: 10 })]), [
      tap('c', 'decrement'),
    ]);
    expect(outside.writes.counters[0]?.counter.value).toBe(19);
  });

  it('refuses a tap past the exact range', () => {
    const result = commit(world([counterRow('g', 'c', { value: MAX_VALUE })]), [tap('c')]);
    expect(result.outcomes).toEqual([
      { ok: false, code: 'value_out_of_range', message: MESSAGES.valueOutOfRange },
    ]);
  });

  it("checks a section's maximum against every counter of the section, read in a last round", () => {
    const counters = [
      counterRow('g', 'a', { value: 4, section: 'Bar' }),
      counterRow('g', 'b', { value: 5, section: 'Bar' }),
      counterRow('g', 'other', { value: 50 }),
    ];
    const result = commit(world(counters, { Bar: 10 }), [tap('a'), tap('a')]);
    expect(result.requests.map((request) => request.sections)).toEqual([
      [],
      [{ groupId: 'g', section: 'Bar' }],
    ]);
    expect(result.outcomes[1]).toEqual({
      ok: false,
      code: 'limit_reached',
      message: MESSAGES.sectionFull('Bar', 10),
    });
    expect(result.writes.counters.map(({ counter }) => [counter.id, counter.value])).toEqual([
      ['a', 5],
    ]);
  });

  it('names the member whose tap reached the goal, once per crossing', () => {
    const result = commit(world([counterRow('g', 'c', { value: 2, goal: 3 })]), [
      tap('c', 'increment', { actor: 'Bo' }),
      tap('c', 'increment', { actor: 'Ada' }),
    ]);
    expect(result.outcomes[1]).toMatchObject({ changes: [{ goalReachedBy: 'Bo' }] });
    expect(result.writes.entries.map(({ draft }) => [draft.actor, draft.detail])).toEqual([
      ['Bo', { goal: 3 }],
      ['Ada', null],
    ]);

    const there = commit(world([counterRow('g', 'c', { value: 2, goal: 3 })]), [
      tap('c'),
      tap('c', 'decrement'),
    ]);
    // Crossed and back in one run: nobody reached it.
    expect(there.outcomes[1]).toMatchObject({ changes: [{ type: 'counter.updated' }] });
    expect(there.outcomes[1]?.changes?.[0]).not.toHaveProperty('goalReachedBy');
  });

  it('answers counter_not_found and group_not_found without writing', () => {
    const result = commit(world([]), [tap('missing'), { ...tap('c'), groupId: 'nope' }]);
    expect(result.outcomes).toEqual([
      { ok: false, code: 'counter_not_found', message: MESSAGES.counterNotFound },
      { ok: false, code: 'group_not_found', message: MESSAGES.groupNotFound },
    ]);
    expect(result.writes.groups).toEqual([]);
  });
});
