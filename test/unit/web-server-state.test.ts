/**
 * The web client's copy of the server state (src/web/live/serverState.ts): a pure reducer over
 * the join snapshot, live changes and this tab's answers, that never goes backwards (counter
 * versions, group change numbers) and keeps deleted counters deleted (tombstones).
 */
import { describe, expect, it } from 'vitest';
import type { Counter, Group } from '../../src/shared/api.js';
import type { Change } from '../../src/shared/protocol.js';
import type { Op, OpResult } from '../../src/web/live/ops.js';
import {
  applyOrder,
  initialServerState,
  placedIn,
  reduce,
  wasDeleted,
  type ServerEvent,
  type ServerState,
} from '../../src/web/live/serverState.js';

const group: Group = {
  id: 'g1',
  name: 'team',
  displayName: 'Team',
  profileImageUrl: null,
  timeZone: 'UTC',
  weekStart: 1,
  sectionLimits: {},
};

function counter(id: string, version: number, fields: Partial<Counter> = {}): Counter {
  return {
    id,
    name: id.toUpperCase(),
    description: '',
    value: 0,
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
    allTime: 0,
    createdAt: `2026-01-01T00:00:0${id.at(-1) ?? 0}.000Z`,
    version,
    ...fields,
  };
}

/** Applies events in turn and returns the last state. */
function run(state: ServerState, ...events: ServerEvent[]): ServerState {
  return events.reduce((current, event) => reduce(current, event).state, state);
}

const changes = (...list: Change[]): ServerEvent => ({ type: 'changes', changes: list });
const snapshot = (seq: number, counters: Counter[], of: Group = group): ServerEvent => ({
  type: 'snapshot',
  group: of,
  seq,
  counters,
});
/** The ids of the counters held, in the order the grid shows them. */
/** This tab's operations, as the lanes hand them over with their answers. */
const tapOp: Op = {
  kind: 'adjust',
  opId: 'op-1',
  counterId: 'a1',
  direction: 'increment',
  times: 1,
  delta: 1,
  sent: true,
};
const answer = (op: Op, result: OpResult, wasPending = true): ServerEvent => ({
  type: 'answer',
  op,
  result,
  wasPending,
});

const ids = (state: ServerState) => state.order.filter((id) => state.counters.has(id));

describe('join snapshot, then live changes', () => {
  it('starts with the joined group and no counter list', () => {
    const state = initialServerState(group, 3);
    expect(state.group).toBe(group);
    expect(state.loaded).toBe(false);
    expect(ids(state)).toEqual([]);
  });

  it('fills the list from the snapshot and applies the changes after it', () => {
    let state = run(
      initialServerState(group, 3),
      snapshot(5, [counter('a1', 2), counter('b2', 5)]),
    );
    expect(state.loaded).toBe(true);
    expect(ids(state)).toEqual(['a1', 'b2']);

    const renamed = { ...group, displayName: 'Book club' };
    state = run(
      state,
      changes(
        { type: 'counter.updated', seq: 6, counter: counter('a1', 6, { value: 4 }) },
        { type: 'counter.created', seq: 7, counter: counter('c3', 7) },
        { type: 'group.updated', seq: 8, group: renamed },
      ),
    );
    expect(state.counters.get('a1')?.value).toBe(4);
    expect(ids(state)).toEqual(['a1', 'b2', 'c3']);
    expect(state.group).toEqual(renamed);
    expect(state.groupSeq).toBe(8);
  });

  it('fills the list from the HTTP list when it comes first, and ignores a list after that', () => {
    let state = run(initialServerState(group, 3), {
      type: 'list',
      counters: [counter('a1', 1)],
    });
    expect(ids(state)).toEqual(['a1']);
    state = run(state, snapshot(5, [counter('a1', 1), counter('b2', 4)]));
    const after = reduce(state, { type: 'list', counters: [counter('z9', 1)] });
    expect(after.state).toBe(state);
    expect(ids(after.state)).toEqual(['a1', 'b2']);
  });

  it('keeps the objects a snapshot repeats unchanged, so their cards need not render again', () => {
    const limited: Group = { ...group, sectionLimits: { Bar: 50 } };
    const listed = [counter('a1', 1), counter('b2', 4, { section: 'Bar' })];
    const before = run(initialServerState(limited, 3), { type: 'list', counters: listed });
    // A reconnect's snapshot: equal copies of a1, b2 and the group, and a new value of c3.
    const after = run(
      before,
      snapshot(
        6,
        [counter('a1', 1), counter('b2', 4, { section: 'Bar' }), counter('c3', 6, { value: 2 })],
        { ...group, sectionLimits: { Bar: 50 } },
      ),
    );
    expect(after.counters.get('a1')).toBe(before.counters.get('a1'));
    expect(after.counters.get('b2')).toBe(before.counters.get('b2'));
    expect(after.counters.get('c3')?.value).toBe(2);
    expect(after.group).toBe(limited);

    // A field that changed without a new version (a period that rolled over) is taken.
    const rolled = run(
      after,
      snapshot(7, [counter('a1', 1, { periodStart: '2026-02-01T00:00:00.000Z' })]),
    );
    expect(rolled.counters.get('a1')?.periodStart).toBe('2026-02-01T00:00:00.000Z');
    expect(rolled.counters.get('a1')).not.toBe(before.counters.get('a1'));
  });

  it('puts a counter it did not have last, where the server puts new counters', () => {
    // b2 was created before c3, but the group's order (not creation time) decides.
    const state = run(
      initialServerState(group, 0),
      snapshot(5, [counter('c3', 3), counter('a1', 1)]),
      changes({ type: 'counter.created', seq: 6, counter: counter('b2', 6) }),
    );
    expect(ids(state)).toEqual(['c3', 'a1', 'b2']);
  });

  it('never modifies the state it is given', () => {
    const before = run(initialServerState(group, 0), snapshot(5, [counter('a1', 1)]));
    const counters = new Map(before.counters);
    const order = [...before.order];
    reduce(before, changes({ type: 'counter.deleted', seq: 6, counterId: 'a1' }));
    reduce(before, changes({ type: 'counter.created', seq: 7, counter: counter('b2', 7) }));
    expect(before.counters).toEqual(counters);
    expect(before.order).toEqual(order);
    expect(before.deleted.size).toBe(0);
  });
});

describe('stale and duplicate changes', () => {
  const start = () =>
    run(initialServerState(group, 0), snapshot(10, [counter('a1', 9, { value: 9 })]));

  it('ignores a counter copy older than the one held', () => {
    const state = run(
      start(),
      changes({ type: 'counter.updated', seq: 8, counter: counter('a1', 8, { value: 1 }) }),
    );
    expect(state.counters.get('a1')?.value).toBe(9);
  });

  it('inserts a counter announced twice once', () => {
    const created = counter('b2', 11);
    const state = run(
      start(),
      changes({ type: 'counter.created', seq: 11, counter: created }),
      changes({ type: 'counter.created', seq: 11, counter: created }),
    );
    expect(ids(state)).toEqual(['a1', 'b2']);
  });

  it('ignores a group change no newer than the group held', () => {
    const state = run(
      start(),
      changes({ type: 'group.updated', seq: 10, group: { ...group, displayName: 'Old' } }),
    );
    expect(state.group.displayName).toBe('Team');
  });

  it('keeps what an HTTP answer showed newer than a snapshot taken before it', () => {
    const answered = counter('a1', 12, { value: 12 });
    const createdMeanwhile = counter('b2', 13);
    const state = run(
      start(),
      answer(tapOp, answered),
      answer({ kind: 'create', opId: 'op-2', sent: true }, createdMeanwhile),
      snapshot(11, [counter('a1', 10, { value: 10 })], { ...group, displayName: 'Later' }),
    );
    expect(state.counters.get('a1')).toBe(answered);
    expect(ids(state)).toEqual(['a1', 'b2']);
    expect(state.group.displayName).toBe('Later');
  });

  it('keeps the group when a snapshot is older than the group change held', () => {
    const state = run(
      start(),
      changes({ type: 'group.updated', seq: 12, group: { ...group, displayName: 'New' } }),
      snapshot(11, [counter('a1', 9)], { ...group, displayName: 'Stale' }),
    );
    expect(state.group.displayName).toBe('New');
  });
});

describe('deleted counters', () => {
  const start = () =>
    run(initialServerState(group, 0), snapshot(10, [counter('a1', 9), counter('b2', 10)]));

  it('removes a deleted counter and says so, so its pending changes go too', () => {
    const { state, removed } = reduce(
      start(),
      changes({ type: 'counter.deleted', seq: 11, counterId: 'a1' }),
    );
    expect(ids(state)).toEqual(['b2']);
    expect(removed).toEqual(['a1']);
    expect(wasDeleted(state, 'a1')).toBe(true);
  });

  it('ignores late events of a deleted counter, and takes it back when an undo restores it', () => {
    let state = run(
      start(),
      changes({ type: 'counter.deleted', seq: 11, counterId: 'a1' }),
      changes({ type: 'counter.updated', seq: 11, counter: counter('a1', 11) }),
    );
    expect(ids(state)).toEqual(['b2']);
    state = run(state, changes({ type: 'counter.created', seq: 12, counter: counter('a1', 12) }));
    // Back in its place: never reordered, the group is in creation order.
    expect(ids(state)).toEqual(['a1', 'b2']);
    expect(wasDeleted(state, 'a1')).toBe(false);
  });

  it('holds this tab’s own delete against every copy until the change that deleted it is known', () => {
    let state = run(start(), { type: 'counterGone', counterId: 'a1' });
    // The snapshot was taken before the delete: its copy of the counter is old news.
    state = run(state, snapshot(10, [counter('a1', 9), counter('b2', 10)]));
    expect(ids(state)).toEqual(['b2']);
    state = run(
      state,
      changes({ type: 'counter.deleted', seq: 11, counterId: 'a1' }),
      changes({ type: 'counter.created', seq: 14, counter: counter('a1', 14) }),
    );
    expect(ids(state)).toEqual(['a1', 'b2']);
  });

  it('deletes the counters a snapshot no longer has, unless created after it', () => {
    const { state, removed } = reduce(start(), snapshot(12, [counter('b2', 10)]));
    expect(ids(state)).toEqual(['b2']);
    expect(removed).toEqual(['a1']);
    // Deleted at or before the snapshot's change number 12: a late copy of it stays out.
    const late = run(
      state,
      changes({ type: 'counter.updated', seq: 12, counter: counter('a1', 12) }),
    );
    expect(late.counters.has('a1')).toBe(false);
  });
});

describe('this tab’s own operations', () => {
  it('names the operation ids the applied changes carry, so they stop being pending', () => {
    const start = run(initialServerState(group, 0), snapshot(1, [counter('a1', 1)]));
    const { confirmed } = reduce(
      start,
      changes(
        { type: 'counter.updated', seq: 2, opIds: ['op-1', 'op-2'], counter: counter('a1', 2) },
        { type: 'counter.updated', seq: 3, counter: counter('a1', 3) },
        { type: 'group.updated', seq: 4, opIds: ['op-3'], group },
      ),
    );
    expect(confirmed).toEqual(['op-1', 'op-2', 'op-3']);
  });

  it('names an operation id even when its change is older than what is held', () => {
    // The HTTP answer came first: the change confirms the same operation and is no news.
    const start = run(
      initialServerState(group, 0),
      snapshot(1, [counter('a1', 1)]),
      answer(tapOp, counter('a1', 2, { value: 1 })),
    );
    const { state, confirmed } = reduce(
      start,
      changes({ type: 'counter.updated', seq: 2, opIds: ['op-1'], counter: counter('a1', 2) }),
    );
    expect(confirmed).toEqual(['op-1']);
    expect(state.counters.get('a1')?.value).toBe(1);
  });

  it('takes the answer to a counter change, unless it holds a newer copy', () => {
    const start = run(initialServerState(group, 0), snapshot(5, [counter('a1', 5)]));
    expect(
      run(start, answer(tapOp, counter('a1', 6, { value: 1 }))).counters.get('a1')?.value,
    ).toBe(1);
    const newer = run(
      start,
      changes({ type: 'counter.updated', seq: 7, counter: counter('a1', 7, { value: 2 }) }),
      answer(tapOp, counter('a1', 6, { value: 1 }), false),
    );
    expect(newer.counters.get('a1')?.value).toBe(2);
  });

  it('adds the counter this tab created from its answer, before the live change', () => {
    const created = counter('b2', 6);
    const { state } = reduce(
      run(initialServerState(group, 0), snapshot(5, [counter('a1', 5)])),
      answer({ kind: 'create', opId: 'op-2', sent: true }, created),
    );
    expect(ids(state)).toEqual(['a1', 'b2']);
  });

  it('removes a counter on the answer to this tab’s delete, and says so', () => {
    const { state, removed } = reduce(
      run(initialServerState(group, 0), snapshot(5, [counter('a1', 5)])),
      answer({ kind: 'delete', opId: 'op-3', counterId: 'a1', sent: true }, undefined),
    );
    expect(ids(state)).toEqual([]);
    expect(removed).toEqual(['a1']);
    expect(wasDeleted(state, 'a1')).toBe(true);
  });

  it('takes the answer to a group change only while no live change carrying it has come', () => {
    const renamed = { ...group, displayName: 'Renamed' };
    const rename: Op = {
      kind: 'group',
      opId: 'op-4',
      patch: { displayName: 'Renamed' },
      sent: true,
    };
    expect(run(initialServerState(group, 4), answer(rename, renamed)).group).toBe(renamed);

    const later = { ...group, displayName: 'Later' };
    const afterChange = run(
      initialServerState(group, 4),
      changes({ type: 'group.updated', seq: 5, opIds: ['op-4'], group: renamed }),
      changes({ type: 'group.updated', seq: 6, group: later }),
      answer(rename, renamed, false),
    );
    expect(afterChange.group).toBe(later);
  });
});

describe('the order of the counters', () => {
  const start = () =>
    run(
      initialServerState(group, 0),
      snapshot(10, [counter('a1', 1), counter('b2', 2), counter('c3', 3)]),
    );
  const reordered = (seq: number, counterIds: string[], opIds?: string[]): Change => ({
    type: 'counters.reordered',
    seq,
    counterIds,
    ...(opIds ? { opIds } : {}),
  });

  it('follows the order of the list and of the snapshot, not creation times', () => {
    const listed = run(initialServerState(group, 0), {
      type: 'list',
      counters: [counter('c3', 3), counter('a1', 1)],
    });
    expect(ids(listed)).toEqual(['c3', 'a1']);
    const snapped = run(
      listed,
      snapshot(5, [counter('b2', 2), counter('c3', 3), counter('a1', 1)]),
    );
    expect(ids(snapped)).toEqual(['b2', 'c3', 'a1']);
  });

  it('applies a newer reorder and confirms the operation that made it', () => {
    const { state, confirmed } = reduce(
      start(),
      changes(reordered(11, ['c3', 'a1', 'b2'], ['op-9'])),
    );
    expect(ids(state)).toEqual(['c3', 'a1', 'b2']);
    expect(state.orderSeq).toBe(11);
    expect(confirmed).toEqual(['op-9']);
  });

  it('ignores a reorder no newer than the order held', () => {
    const state = run(
      start(),
      changes(reordered(12, ['b2', 'c3', 'a1'])),
      changes(reordered(11, ['c3', 'a1', 'b2'])),
      changes(reordered(10, ['a1', 'c3', 'b2'])),
    );
    expect(ids(state)).toEqual(['b2', 'c3', 'a1']);
  });

  it('keeps counters a reorder does not list after the listed ones, in their relative order', () => {
    const state = run(
      start(),
      changes(
        { type: 'counter.created', seq: 11, counter: counter('d4', 11) },
        reordered(12, ['c3', 'a1', 'gone']),
      ),
    );
    expect(ids(state)).toEqual(['c3', 'a1', 'b2', 'd4']);
    expect(state.counters.has('gone')).toBe(false);
  });

  it('brings a counter an undo restores back among the unplaced ones by creation time', () => {
    // d4 and e5 were created after the reorder (unplaced): b2, restored, goes between them by its
    // creation time, after every counter the reorder placed, as the server lists it.
    const state = run(
      start(),
      changes(reordered(11, ['c3', 'a1', 'b2'])),
      changes({ type: 'counter.deleted', seq: 12, counterId: 'b2' }),
      changes({ type: 'counter.created', seq: 13, counter: counter('a4', 13) }),
      changes({ type: 'counter.created', seq: 14, counter: counter('e5', 14) }),
      changes({ type: 'counter.created', seq: 15, counter: counter('b2', 15) }),
    );
    expect(ids(state)).toEqual(['c3', 'a1', 'b2', 'a4', 'e5']);
  });

  it('tells the placed counters of a list by its tail in creation order', () => {
    const listed = (...list: Counter[]) => [...placedIn(list)];
    expect(listed()).toEqual([]);
    expect(listed(counter('a1', 1), counter('b2', 2), counter('c3', 3))).toEqual([]);
    expect(listed(counter('c3', 3), counter('a1', 1), counter('b2', 2))).toEqual(['c3']);
    const fromList = run(initialServerState(group, 0), {
      type: 'list',
      counters: [counter('c3', 3), counter('a1', 1)],
    });
    expect([...fromList.placed]).toEqual(['c3']);
    expect(
      ids(run(fromList, changes({ type: 'counter.created', seq: 5, counter: counter('b2', 5) }))),
    ).toEqual(['c3', 'a1', 'b2']);
  });

  it('puts a counter created after a reorder last', () => {
    const state = run(
      start(),
      changes(reordered(11, ['c3', 'b2', 'a1'])),
      changes({ type: 'counter.created', seq: 12, counter: counter('d4', 12) }),
    );
    expect(ids(state)).toEqual(['c3', 'b2', 'a1', 'd4']);
  });

  it('takes the answer to this tab’s reorder only while no live change carrying it has come', () => {
    const op: Op = { kind: 'reorder', opId: 'op-5', counterIds: ['b2', 'a1', 'c3'], sent: true };
    expect(ids(run(start(), answer(op, { counterIds: ['b2', 'a1', 'c3'] })))).toEqual([
      'b2',
      'a1',
      'c3',
    ]);
    const later = run(
      start(),
      changes(reordered(11, ['b2', 'a1', 'c3'], ['op-5'])),
      changes(reordered(12, ['c3', 'b2', 'a1'])),
      answer(op, { counterIds: ['b2', 'a1', 'c3'] }, false),
    );
    expect(ids(later)).toEqual(['c3', 'b2', 'a1']);
  });

  it('keeps a reorder seen live after the snapshot it was not yet in', () => {
    const state = run(
      start(),
      changes(reordered(14, ['c3', 'b2', 'a1'])),
      // A snapshot taken before the reorder (seq 13), with a counter deleted meanwhile.
      snapshot(13, [counter('a1', 1), counter('c3', 3)]),
    );
    expect(ids(state)).toEqual(['c3', 'a1']);
  });

  it('takes the snapshot order when the snapshot is newer than the order held', () => {
    const state = run(
      start(),
      changes(reordered(11, ['c3', 'b2', 'a1'])),
      snapshot(15, [counter('b2', 2), counter('a1', 1), counter('c3', 3)]),
    );
    expect(ids(state)).toEqual(['b2', 'a1', 'c3']);
  });

  it('answers a section maximum with the group while no live change carrying it has come', () => {
    const withLimit = { ...group, sectionLimits: { Hall: 250 } };
    const op: Op = { kind: 'section', opId: 'op-6', section: 'Hall', max: 250, sent: true };
    expect(run(initialServerState(group, 4), answer(op, withLimit)).group).toBe(withLimit);
  });
});

describe('applyOrder', () => {
  it('lists the given ids first, once each, then the others in their order', () => {
    expect(applyOrder(['a', 'b', 'c', 'd'], ['c', 'x', 'a', 'c'])).toEqual(['c', 'a', 'b', 'd']);
    expect(applyOrder(['a', 'b'], [])).toEqual(['a', 'b']);
  });
});

describe('goals reached', () => {
  const start = () =>
    run(initialServerState(group, 0), snapshot(10, [counter('a1', 10, { goal: 5, value: 4 })]));
  const reached = (seq: number, by = 'Ada'): Change => ({
    type: 'counter.updated',
    seq,
    counter: counter('a1', seq, { goal: 5, value: 5 }),
    goalReachedBy: by,
  });

  it('reports a live change that reached a goal, with who reached it', () => {
    const { goals } = reduce(start(), changes(reached(11)));
    expect(goals).toEqual([
      { seq: 11, member: 'Ada', counterId: 'a1', counterName: 'A1', goal: 5 },
    ]);
  });

  it('reports each change once: a repeat of it, or an older change, is no news', () => {
    const once = run(start(), changes(reached(11)));
    expect(reduce(once, changes(reached(11))).goals).toEqual([]);
    expect(reduce(once, changes(reached(9))).goals).toEqual([]);
  });

  it('reports it even when this tab’s own answer brought the counter first', () => {
    const answered = run(start(), answer(tapOp, counter('a1', 11, { goal: 5, value: 5 })));
    expect(reduce(answered, changes(reached(11))).goals).toHaveLength(1);
  });

  it('never reports a goal from a snapshot, nor from a change without goalReachedBy', () => {
    expect(reduce(start(), snapshot(12, [counter('a1', 12, { goal: 5, value: 5 })])).goals).toEqual(
      [],
    );
    const { goals } = reduce(
      start(),
      changes({ type: 'counter.updated', seq: 11, counter: counter('a1', 11, { goal: 5 }) }),
    );
    expect(goals).toEqual([]);
  });
});

describe("a large group's folded frame", () => {
  it('ends at the latest value, reports the goal once and confirms every id it carries', () => {
    // Changes 11 to 14 of a1 folded into 14 (docs/api.md, Large groups): the frame covers them.
    const start = run(
      initialServerState(group, 0),
      snapshot(10, [counter('a1', 10, { goal: 5, value: 4 }), counter('b2', 10)]),
    );
    const { state, goals, confirmed } = reduce(start, {
      type: 'changes',
      changes: [
        { type: 'counter.updated', seq: 12, counter: counter('b2', 12, { value: 3 }) },
        {
          type: 'counter.updated',
          seq: 14,
          opIds: ['op-1', 'op-2', 'op-3'],
          counter: counter('a1', 14, { goal: 5, value: 7 }),
          goalReachedBy: 'Ada',
        },
      ],
    });
    expect(state.counters.get('a1')?.value).toBe(7);
    expect(state.counters.get('b2')?.value).toBe(3);
    expect(goals.map((goal) => goal.seq)).toEqual([14]);
    expect(confirmed).toEqual(['op-1', 'op-2', 'op-3']);
    expect(state.changeSeq).toBe(14);
  });
});
