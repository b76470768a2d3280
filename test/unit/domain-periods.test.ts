import { describe, expect, it } from 'vitest';
import { MESSAGES } from '../../src/shared/messages.js';
import { NOW, commit, counterRow, groupRow, tap } from '../helpers/domain.js';

const MIDNIGHT = Date.UTC(2026, 2, 10);
const NEXT_MIDNIGHT = Date.UTC(2026, 2, 11);

/** A daily counter at 7 whose period (9 March, UTC) ended at midnight, before the batch's clock. */
const due = counterRow(
  'g',
  'd',
  { value: 7, startValue: 2, reset: 'daily', periodStart: '2026-03-09T00:00:00.000Z' },
  { nextResetAt: MIDNIGHT, closedTotal: 30 },
);

describe('domain: periods', () => {
  it('ends a period that is over before the batch: its taps count in the new one', () => {
    const result = commit({ groups: [groupRow('g')], counters: [due] }, [tap('d')]);
    expect(result.writes.periods).toEqual([
      { groupId: 'g', counterId: 'd', start: Date.UTC(2026, 2, 9), end: MIDNIGHT, value: 7 },
    ]);
    const [write] = result.writes.counters;
    expect(write).toMatchObject({ closedTotal: 37, nextResetAt: NEXT_MIDNIGHT, onlyValue: false });
    expect(write?.counter).toMatchObject({
      value: 3,
      periodStart: new Date(MIDNIGHT).toISOString(),
      allTime: 40,
      version: 12,
    });
    // The reset (11) is announced with the group's first outcome, before the tap's change (12).
    expect(result.outcomes[0]?.changes?.map((change) => [change.type, change.seq])).toEqual([
      ['counter.updated', 11],
      ['counter.updated', 12],
    ]);
    expect(result.writes.entries.map(({ draft }) => [draft.kind, draft.actor])).toEqual([
      ['counter.reset', 'Tally'],
      ['counter.adjusted', 'Ada'],
    ]);
    expect(result.writes.entries[0]?.draft.detail).toEqual({
      final: 7,
      periodStart: Date.UTC(2026, 2, 9),
      periodEnd: MIDNIGHT,
    });
  });

  it('announces an ended period even when the operation that read it is refused', () => {
    const result = commit({ groups: [groupRow('g')], counters: [{ ...due }] }, [
      {
        groupId: 'g',
        mutation: { kind: 'updateCounter', counterId: 'd', patch: { min: 5, max: 1 } },
      },
    ]);
    expect(result.outcomes).toEqual([
      {
        ok: false,
        code: 'validation_failed',
        message: MESSAGES.minAboveMax,
        changes: [
          {
            type: 'counter.updated',
            seq: 11,
            counter: expect.objectContaining({ id: 'd', value: 2 }) as unknown,
          },
        ],
      },
    ]);
  });

  it("answers the scheduler's resetPeriods with the counters it named", () => {
    const result = commit({ groups: [groupRow('g')], counters: [due] }, [
      { groupId: 'g', mutation: { kind: 'resetPeriods', counterIds: ['d'] } },
    ]);
    expect(result.requests[0]?.counters).toEqual(['d']);
    expect(result.outcomes[0]).toMatchObject({
      ok: true,
      result: { kind: 'order', counterIds: ['d'] },
    });
    expect(result.writes.periods).toHaveLength(1);
  });

  it("starts a new resetting counter's period in the group's calendar", () => {
    // Weeks start on Sunday (7) in New York: the week holding Tuesday 10 March.
    const result = commit(
      { groups: [groupRow('g', { timeZone: 'America/New_York', weekStart: 7 })], counters: [] },
      [{ groupId: 'g', mutation: { kind: 'createCounter', fields: { reset: 'weekly' } } }],
    );
    const [write] = result.writes.counters;
    expect(write?.counter.periodStart).toBe('2026-03-08T05:00:00.000Z');
    // Daylight saving starts on 8 March in New York: the next Sunday's midnight is UTC−4.
    expect(write?.nextResetAt).toBe(Date.UTC(2026, 2, 15, 4));
    expect(write?.counter.createdAt).toBe(new Date(NOW).toISOString());
  });

  it('keeps a running period through an edit that leaves the reset alone', () => {
    const running = counterRow(
      'g',
      'd',
      { reset: 'daily', periodStart: new Date(MIDNIGHT).toISOString() },
      { nextResetAt: NEXT_MIDNIGHT },
    );
    const result = commit({ groups: [groupRow('g')], counters: [running] }, [
      { groupId: 'g', mutation: { kind: 'updateCounter', counterId: 'd', patch: { name: 'X' } } },
      { groupId: 'g', mutation: { kind: 'updateCounter', counterId: 'd', patch: { reset: null } } },
    ]);
    const [write] = result.writes.counters;
    expect(write?.counter).toMatchObject({ name: 'X', reset: null, periodStart: null });
    expect(write?.nextResetAt).toBeNull();
    expect(result.writes.periods).toEqual([]);
  });
});
