import { describe, expect, it } from 'vitest';
import { MESSAGES } from '../../src/shared/messages.js';
import { OPERATION_SESSION_WINDOW } from '../../src/shared/limits.js';
import { fingerprintOf } from '../../src/server/domain/operation-ids.js';
import type { StoredOperationId } from '../../src/server/domain/commit-io.js';
import type { Operation } from '../../src/server/domain/operations.js';
import { commit, counterRow, groupRow, tap, type World } from '../helpers/domain.js';

const SESSION = 'session1';

const world = (extra: Partial<World> = {}): World => ({
  groups: [groupRow('g')],
  counters: [counterRow('g', 'c', { value: 10 })],
  ...extra,
});

/** The row a coalesced tap keeps: a reference to its counter, no entry of its own. */
const tapOf = (opId: string, fingerprint: string | null): StoredOperationId => ({
  groupId: 'g',
  opId,
  result: { kind: 'counterRef', counterId: 'c' },
  fingerprint,
  activityId: null,
});

const rename = (opId: string, name: string): Operation => ({
  groupId: 'g',
  opId,
  mutation: { kind: 'updateCounter', counterId: 'c', patch: { name } },
});

describe('domain: opaque operation ids', () => {
  it('fingerprints a tap by its direction, times and counter; anything else by a hash', () => {
    expect(
      fingerprintOf({ kind: 'adjustCounter', counterId: 'c', direction: 'increment', times: 3 }),
    ).toBe('+3@c');
    const a = fingerprintOf({
      kind: 'updateCounter',
      counterId: 'c',
      patch: { name: 'x', value: 1 },
    });
    const b = fingerprintOf({
      kind: 'updateCounter',
      counterId: 'c',
      patch: { value: 1, name: 'x' },
    });
    expect(a).toBe(b);
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('answers a tap applied in an earlier batch again, with the counter as it is now', () => {
    const result = commit(world({ operationIds: [tapOf('tap-1', '+1@c')] }), [
      tap('c', 'increment', { opId: 'tap-1' }),
    ]);
    expect(result.requests[0]?.operationIds).toEqual([{ groupId: 'g', opId: 'tap-1' }]);
    expect(result.outcomes).toEqual([
      {
        ok: true,
        result: {
          kind: 'counter',
          counter: counterRow('g', 'c', { value: 10 }).counter,
          created: false,
        },
        changes: [],
        replayed: true,
      },
    ]);
    expect(result.writes).toMatchObject({
      counters: [],
      groups: [],
      operationIds: [],
      entries: [],
    });
  });

  it('answers any other change from its stored answer, and refuses the id reused for another', () => {
    const stored = { kind: 'deleted', counterId: 'gone' } as const;
    const result = commit(
      world({
        operationIds: [
          {
            groupId: 'g',
            opId: 'op-1',
            result: stored,
            fingerprint: fingerprintOf(rename('op-1', 'A').mutation),
            activityId: 7,
          },
        ],
      }),
      [rename('op-1', 'A'), rename('op-1', 'B')],
    );
    expect(result.outcomes).toEqual([
      { ok: true, result: stored, changes: [], replayed: true },
      { ok: false, code: 'operation_id_reused', message: MESSAGES.operationIdReused },
    ]);
  });

  it('replays a row stored before fingerprints whatever it is sent with', () => {
    const result = commit(world({ operationIds: [tapOf('old', null)] }), [
      tap('c', 'decrement', { opId: 'old' }),
    ]);
    expect(result.outcomes[0]).toMatchObject({ ok: true, replayed: true });
  });

  it('applies an id repeated in one batch once: the repeat answers like the first', () => {
    const result = commit(world(), [rename('op-2', 'A'), rename('op-2', 'A'), rename('op-2', 'B')]);
    const first = result.outcomes[0];
    expect(first).toMatchObject({ ok: true, replayed: false, changes: [{ seq: 11 }] });
    expect(result.outcomes[1]).toEqual({ ...first, changes: [], replayed: true });
    expect(result.outcomes[2]).toEqual({
      ok: false,
      code: 'operation_id_reused',
      message: MESSAGES.operationIdReused,
    });
    expect(result.writes.operationIds).toHaveLength(1);
    expect(result.writes.groups).toEqual([
      {
        ...groupRow('g'),
        seq: 11,
        alertsChanged: false,
        logHead: expect.stringMatching(/^[0-9a-f]{64}$/) as unknown,
      },
    ]);
  });
});

describe('domain: numbered operation ids', () => {
  const numbered = (n: number) => tap('c', 'increment', { opId: `${SESSION}.${String(n)}` });
  /** The session applied 8, 9 and 10 (bits 0–2 below the highest). */
  const sessions = [{ groupId: 'g', session: SESSION, high: 10, seen: '7' }];

  it("replays a number the session's window holds, applies a new one and moves the window", () => {
    const result = commit(world({ sessions }), [numbered(9), numbered(12), numbered(5)]);
    expect(result.requests[0]).toMatchObject({
      sessions: [{ groupId: 'g', session: SESSION }],
      operationIds: [],
    });
    expect(result.outcomes[0]).toMatchObject({ ok: true, replayed: true, changes: [] });
    expect(result.outcomes[1]).toMatchObject({ ok: true, replayed: false });
    expect(result.outcomes[2]).toMatchObject({ ok: true, replayed: false });
    expect(result.writes.counters[0]?.counter.value).toBe(12);
    // 12 applied: bits for 12, 10, 9, 8 and 5 (12 − 7).
    expect(result.writes.sessions).toEqual([
      { groupId: 'g', session: SESSION, high: 12, seen: (0b10011101).toString(16) },
    ]);
    // Numbered taps keep no operation-id row of their own.
    expect(result.writes.operationIds).toEqual([]);
  });

  it('refuses a number too far behind the window to tell, never applying it twice', () => {
    const ahead = [{ groupId: 'g', session: SESSION, high: 600, seen: '1' }];
    const result = commit(world({ sessions: ahead }), [numbered(600 - OPERATION_SESSION_WINDOW)]);
    expect(result.outcomes).toEqual([
      { ok: false, code: 'operation_expired', message: MESSAGES.operationExpired },
    ]);
    expect(result.writes.sessions).toEqual([]);
  });

  it('does not mark a refused tap: its retry is checked again', () => {
    const capped = world({
      sessions: [],
      counters: [counterRow('g', 'c', { value: 10, max: 10 })],
    });
    const result = commit(capped, [numbered(1)]);
    expect(result.outcomes[0]).toMatchObject({ ok: false, code: 'limit_reached' });
    expect(result.writes.sessions).toEqual([]);
  });
});
