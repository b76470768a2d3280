import { describe, expect, it } from 'vitest';
import { MESSAGES } from '../../src/shared/messages.js';
import type { Operation, StoreMutation } from '../../src/server/domain/operations.js';
import { commit, counterRow, groupRow, type World } from '../helpers/domain.js';

/** Three counters: `b` placed first, then `a` and `c` by age. */
const world = (limits: Record<string, number> = {}): World => ({
  groups: [groupRow('g', { sectionLimits: limits })],
  counters: [
    counterRow('g', 'a', { value: 4, section: 'Bar', createdAt: '2026-03-01T09:00:00.000Z' }),
    counterRow('g', 'b', { value: 5, section: 'Bar' }, { position: 0 }),
    counterRow('g', 'c', { value: 1, createdAt: '2026-03-02T09:00:00.000Z' }),
  ],
});

const op = (mutation: StoreMutation): Operation => ({ groupId: 'g', actor: 'Ada', mutation });

describe('domain: group settings', () => {
  it('reorders every counter of the group, read whole, and records both orders', () => {
    const result = commit(world(), [op({ kind: 'reorderCounters', counterIds: ['c', 'a', 'b'] })]);
    expect(result.requests[0]?.groupCounters).toEqual(['g']);
    expect(result.outcomes).toEqual([
      {
        ok: true,
        result: { kind: 'order', counterIds: ['c', 'a', 'b'] },
        changes: [{ type: 'counters.reordered', seq: 11, counterIds: ['c', 'a', 'b'] }],
        replayed: false,
      },
    ]);
    expect(result.writes.counters.map(({ counter, position }) => [counter.id, position])).toEqual([
      ['a', 1],
      ['b', 2],
      ['c', 0],
    ]);
    expect(result.writes.entries[0]?.draft).toMatchObject({
      kind: 'counters.reordered',
      detail: { from: ['b', 'a', 'c'], to: ['c', 'a', 'b'] },
    });
  });

  it('refuses an order that leaves out or repeats a counter', () => {
    const result = commit(world(), [
      op({ kind: 'reorderCounters', counterIds: ['a', 'b'] }),
      op({ kind: 'reorderCounters', counterIds: ['a', 'a', 'b'] }),
    ]);
    const refused = { ok: false, code: 'invalid_order', message: MESSAGES.invalidOrder };
    expect(result.outcomes).toEqual([refused, refused]);
    expect(result.writes.groups).toEqual([]);
  });

  it('takes section names that are also names of object machinery as any other name', () => {
    const names = ['toString', 'constructor', '__proto__', 'hasOwnProperty'];
    const result = commit(world(), [
      ...names.map((section) => op({ kind: 'createCounter', fields: { section } })),
      op({ kind: 'updateSection', section: '__proto__', max: 3 }),
      op({ kind: 'updateSection', section: 'toString', max: 2 }),
    ]);
    expect(result.outcomes.map((outcome) => outcome.ok)).toEqual([
      true,
      true,
      true,
      true,
      true,
      true,
    ]);
    const limits = result.writes.groups[0]?.record.sectionLimits ?? {};
    expect(Object.entries(limits)).toEqual([
      ['__proto__', 3],
      ['toString', 2],
    ]);
    expect(Object.getPrototypeOf(limits)).toBe(Object.prototype);
  });

  it("sets a section's maximum, never below its total, and clears it", () => {
    const set = commit(world(), [
      op({ kind: 'updateSection', section: 'Bar', max: 8 }),
      op({ kind: 'updateSection', section: 'Bar', max: 9 }),
    ]);
    expect(set.requests[1]?.sections).toEqual([{ groupId: 'g', section: 'Bar' }]);
    expect(set.outcomes[0]).toEqual({
      ok: false,
      code: 'limit_reached',
      message: MESSAGES.sectionLimitBelowTotal('Bar', 9),
    });
    expect(set.outcomes[1]).toMatchObject({
      ok: true,
      changes: [{ type: 'group.updated', seq: 11, group: { sectionLimits: { Bar: 9 } } }],
    });
    expect(set.writes.groups).toEqual([
      {
        ...groupRow('g', { sectionLimits: { Bar: 9 } }),
        seq: 11,
        alertsChanged: false,
        logHead: expect.stringMatching(/^[0-9a-f]{64}$/) as unknown,
      },
    ]);
    expect(set.writes.entries[0]?.draft.detail).toEqual([
      { field: 'sectionMax', section: 'Bar', from: null, to: 9 },
    ]);

    const cleared = commit(world({ Bar: 9 }), [
      op({ kind: 'updateSection', section: 'Bar', max: null }),
    ]);
    expect(cleared.writes.groups[0]?.record.sectionLimits).toEqual({});
  });

  it("edits the group's fields without showing its key hashes", () => {
    const result = commit(world(), [
      op({ kind: 'updateGroup', patch: { displayName: 'The Bar' } }),
    ]);
    const {
      keyHash: _key,
      viewKeyHash: _view,
      tapLinks: _links,
      ...group
    } = groupRow('g', {
      displayName: 'The Bar',
    }).record;
    expect(result.outcomes).toEqual([
      {
        ok: true,
        result: { kind: 'group', group },
        changes: [{ type: 'group.updated', seq: 11, group }],
        replayed: false,
      },
    ]);
    expect(result.writes.entries[0]?.draft.detail).toEqual([
      { field: 'displayName', from: 'g', to: 'The Bar' },
    ]);
  });

  it("moves every resetting counter's midnight with a new time zone", () => {
    const daily = counterRow(
      'g',
      'd',
      { reset: 'daily', periodStart: '2026-03-10T00:00:00.000Z' },
      { nextResetAt: Date.UTC(2026, 2, 11) },
    );
    const result = commit({ groups: [groupRow('g')], counters: [daily] }, [
      op({ kind: 'updateGroup', patch: { timeZone: 'Asia/Tokyo' } }),
    ]);
    expect(result.requests[0]?.groupCounters).toEqual(['g']);
    // Midnight in Tokyo (UTC+9) after 2026-03-10 12:00 UTC: 2026-03-10 15:00 UTC.
    expect(result.writes.counters[0]?.nextResetAt).toBe(Date.UTC(2026, 2, 10, 15));
    expect(result.writes.groups[0]?.record.timeZone).toBe('Asia/Tokyo');
  });

  it('rotates the access key: announced, never logged, the view link follows', () => {
    const result = commit({ groups: [groupRow('g', { viewKeyHash: 'old-view' })], counters: [] }, [
      op({ kind: 'rotateKey', keyHash: 'new-key', viewKeyHash: 'new-view' }),
    ]);
    expect(result.outcomes[0]).toMatchObject({
      ok: true,
      changes: [{ type: 'group.accessChanged', seq: 11 }],
    });
    expect(result.writes.groups[0]?.record).toMatchObject({
      keyHash: 'new-key',
      viewKeyHash: 'new-view',
    });
    expect(result.writes.entries).toEqual([]);
  });
});
