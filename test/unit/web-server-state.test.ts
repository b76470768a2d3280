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
  initialServerState,
  reduce,
  wasDeleted,
  type ServerEvent,
  type ServerState,
} from '../../src/web/live/serverState.js';

const group: Group = { id: 'g1', name: 'team', displayName: 'Team', profileImageUrl: null };

function counter(id: string, version: number, fields: Partial<Counter> = {}): Counter {
  return {
    id,
    name: id.toUpperCase(),
    description: '',
    value: 0,
    incrementStep: 1,
    decrementStep: 1,
    thumbnailUrl: null,
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

  it('keeps creation order when a counter arrives out of order', () => {
    const state = run(
      initialServerState(group, 0),
      snapshot(5, [counter('a1', 1), counter('c3', 3)]),
      changes({ type: 'counter.created', seq: 6, counter: counter('b2', 6) }),
    );
    expect(ids(state)).toEqual(['a1', 'b2', 'c3']);
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
