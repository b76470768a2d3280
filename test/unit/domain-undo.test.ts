import { describe, expect, it } from 'vitest';
import type { ActivityEntry } from '../../src/shared/activity.js';
import { MESSAGES } from '../../src/shared/messages.js';
import type { Operation } from '../../src/server/domain/operations.js';
import { snapshotOf } from '../../src/server/domain/activity.js';
import { commit, counterRow, groupRow, tap, type World } from '../helpers/domain.js';

const base = {
  seq: 5,
  at: '2026-03-10T11:00:00.000Z',
  actor: 'Bo',
  undoOf: null,
  undoneBy: null,
};

/** Bo's +3 on counter c, entry 40. */
const plusThree: ActivityEntry = {
  kind: 'counter.adjusted',
  id: 40,
  ...base,
  counterId: 'c',
  counterName: 'c',
  value: 10,
  delta: 3,
  increments: 3,
  decrements: 0,
  reachedGoal: null,
};

const world = (
  entries: ActivityEntry[],
  counters = [counterRow('g', 'c', { value: 10 })],
): World => ({
  groups: [groupRow('g'), groupRow('h')],
  counters,
  entries: entries.map((entry) => ({ groupId: 'g', entry })),
});

const undoEntry = (entryId: number, groupId = 'g'): Operation => ({
  groupId,
  actor: 'Ada',
  mutation: { kind: 'undoEntry', entryId },
});

describe('domain: undo', () => {
  it('takes back a tap by applying its opposite, whatever happened since', () => {
    const result = commit(world([plusThree]), [undoEntry(40)]);
    expect(result.requests[0]).toMatchObject({ entries: [40], countGroups: ['g'] });
    expect(result.outcomes[0]).toMatchObject({
      ok: true,
      result: { kind: 'counter', counter: { id: 'c', value: 7, version: 11 } },
    });
    expect(result.writes.entries).toEqual([
      {
        draft: expect.objectContaining({
          kind: 'counter.adjusted',
          actor: 'Ada',
          delta: -3,
        }) as unknown,
        undoOf: { id: 40 },
        undoneBy: null,
        hash: expect.stringMatching(/^[0-9a-f]{64}$/) as unknown,
      },
    ]);
    expect(result.writes.undone).toEqual([{ entryId: 40, by: 0 }]);
  });

  it('takes back an entry once: already undone before, or twice in one batch', () => {
    const before = commit(world([{ ...plusThree, undoneBy: 41 }]), [undoEntry(40)]);
    const refused = { ok: false, code: 'already_undone', message: MESSAGES.alreadyUndone };
    expect(before.outcomes).toEqual([refused]);

    const twice = commit(world([plusThree]), [undoEntry(40), { ...undoEntry(40), actor: 'Bo' }]);
    expect(twice.outcomes[1]).toEqual(refused);
    expect(twice.writes.counters[0]?.counter.value).toBe(7);
  });

  it('undoes a change made earlier in the same batch, named by its operation id', () => {
    const result = commit(world([]), [
      tap('c', 'increment', { opId: 'tap-1' }, 4),
      { groupId: 'g', actor: 'Ada', mutation: { kind: 'undoOperation', opId: 'tap-1' } },
    ]);
    expect(result.outcomes.map((outcome) => outcome.ok)).toEqual([true, true]);
    expect(result.writes.counters[0]?.counter.value).toBe(10);
    expect(
      result.writes.entries.map(({ draft, undoOf, undoneBy }) => [draft.delta, undoOf, undoneBy]),
    ).toEqual([
      [4, null, 1],
      [-4, { draft: 0 }, null],
    ]);
    expect(result.writes.undone).toEqual([]);
    expect(result.changes.get('g')?.map((change) => change.seq)).toEqual([11, 12]);
  });

  it('finds the entry of an operation id of an earlier batch in a second round of reads', () => {
    const result = commit(
      {
        ...world([plusThree]),
        operationIds: [
          {
            groupId: 'g',
            opId: 'tap-0',
            result: { kind: 'counterRef', counterId: 'c' },
            fingerprint: '+3@c',
            activityId: 40,
          },
        ],
      },
      [{ groupId: 'g', actor: 'Ada', mutation: { kind: 'undoOperation', opId: 'tap-0' } }],
    );
    expect(result.requests.map((request) => request.entries)).toEqual([[], [40]]);
    expect(result.writes.undone).toEqual([{ entryId: 40, by: 0 }]);
  });

  it('refuses what cannot be undone: a reset, a numbered tap by its id, a change of an ended period', () => {
    const reset: ActivityEntry = {
      kind: 'counter.reset',
      id: 41,
      ...base,
      actor: 'Tally',
      counterId: 'c',
      counterName: 'c',
      value: 0,
      final: 9,
      periodStart: '2026-03-09T00:00:00.000Z',
      periodEnd: '2026-03-10T00:00:00.000Z',
    };
    const inEndedPeriod = counterRow('g', 'c', {
      value: 10,
      reset: 'daily',
      periodStart: '2026-03-10T11:30:00.000Z',
    });
    const result = commit(
      {
        ...world([reset, plusThree], [inEndedPeriod]),
        sessions: [{ groupId: 'g', session: 'session1', high: 5, seen: '1' }],
      },
      [
        undoEntry(41),
        { groupId: 'g', mutation: { kind: 'undoOperation', opId: 'session1.5' } },
        undoEntry(40),
        { groupId: 'g', mutation: { kind: 'undoOperation', opId: 'session1.4' } },
      ],
    );
    expect(result.outcomes).toEqual([
      { ok: false, code: 'cannot_undo', message: MESSAGES.cannotUndoReset },
      { ok: false, code: 'cannot_undo', message: MESSAGES.undoNumberedTap },
      { ok: false, code: 'cannot_undo', message: MESSAGES.periodEnded },
      { ok: false, code: 'activity_not_found', message: MESSAGES.activityNotFound },
    ]);
  });

  it("never takes back another group's entry", () => {
    const result = commit(world([plusThree]), [undoEntry(40, 'h')]);
    expect(result.outcomes).toEqual([
      { ok: false, code: 'activity_not_found', message: MESSAGES.activityNotFound },
    ]);
  });

  it('brings a deleted counter back with its value, unless the group is full', () => {
    const gone = counterRow('g', 'old', { value: 6, section: 'Bar' }).counter;
    const deleted: ActivityEntry = {
      kind: 'counter.deleted',
      id: 42,
      ...base,
      counterId: 'old',
      counterName: 'old',
      value: null,
      counter: snapshotOf(gone),
    };
    const result = commit(world([deleted], []), [undoEntry(42)]);
    // The section it comes back to is read whole, in case the group sets it a maximum.
    expect(result.requests.at(-1)?.sections).toEqual([{ groupId: 'g', section: 'Bar' }]);
    expect(result.outcomes[0]).toMatchObject({
      ok: true,
      result: { kind: 'counter', created: true, counter: { id: 'old', value: 6, version: 11 } },
      changes: [{ type: 'counter.created', seq: 11 }],
    });
    expect(result.writes.counters[0]).toMatchObject({ existed: false, createdSeq: 11 });

    const full = commit(world([deleted]), [undoEntry(42)], { countersPerGroup: 1 });
    expect(full.outcomes).toEqual([
      { ok: false, code: 'too_many_counters', message: MESSAGES.tooManyCounters(1) },
    ]);
  });

  it('puts back the order before a reorder, counters made since after it', () => {
    const reordered: ActivityEntry = {
      kind: 'counters.reordered',
      id: 43,
      ...base,
      counterId: null,
      counterName: null,
      value: null,
      from: ['a', 'b'],
      to: ['b', 'a'],
    };
    const counters = [
      counterRow('g', 'a', {}, { position: 1 }),
      counterRow('g', 'b', {}, { position: 0 }),
      counterRow('g', 'c', { createdAt: '2026-03-05T00:00:00.000Z' }),
    ];
    const result = commit(world([reordered], counters), [undoEntry(43)]);
    expect(result.requests.at(-1)?.groupCounters).toEqual(['g']);
    expect(result.outcomes[0]).toMatchObject({
      ok: true,
      result: { kind: 'order', counterIds: ['a', 'b', 'c'] },
    });
  });
});
