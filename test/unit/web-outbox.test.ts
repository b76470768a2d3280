/**
 * The offline outbox's stored form (src/web/live/outbox.ts): what is read back from localStorage
 * is untrusted (another version, another tab, a hand edit), so only well-formed operations are
 * restored, and the page counts waiting changes tap by tap.
 */
import { describe, expect, it } from 'vitest';
import { MESSAGES } from '../../src/shared/messages.js';
import { changeCount } from '../../src/web/live/ops.js';
import { outboxKey, outboxOwner, parseEntry, parseStoredOp } from '../../src/web/live/outbox.js';

const adjust = {
  kind: 'adjust',
  opId: 'op_1',
  counterId: 'c1',
  direction: 'increment',
  times: 3,
  delta: 3,
  name: 'Laps',
};

describe('parseStoredOp', () => {
  it('restores each kind of change as it was queued', () => {
    expect(parseStoredOp(adjust)).toEqual(adjust);
    expect(
      parseStoredOp({ kind: 'patch', opId: 'op-2', counterId: 'c1', patch: { name: 'Teas' } }),
    ).toEqual({ kind: 'patch', opId: 'op-2', counterId: 'c1', patch: { name: 'Teas' } });
    expect(
      parseStoredOp({ kind: 'patch', opId: 'op3', counterId: 'c1', patch: { thumbnailUrl: null } }),
    ).toMatchObject({ patch: { thumbnailUrl: null } });
    expect(parseStoredOp({ kind: 'delete', opId: 'op4', counterId: 'c1' })).toEqual({
      kind: 'delete',
      opId: 'op4',
      counterId: 'c1',
    });
    expect(parseStoredOp({ kind: 'create', opId: 'op5' })).toEqual({ kind: 'create', opId: 'op5' });
    expect(
      parseStoredOp({
        kind: 'group',
        opId: 'op6',
        patch: { displayName: 'Team', profileImageUrl: null },
      }),
    ).toEqual({
      kind: 'group',
      opId: 'op6',
      patch: { displayName: 'Team', profileImageUrl: null },
    });
  });

  it('restores goals, limits, periods, sections, time zones, reorders and section maximums', () => {
    const patch = {
      goal: 100,
      min: 0,
      max: null,
      reset: 'weekly',
      startValue: 5,
      section: 'Entrances',
    };
    expect(parseStoredOp({ kind: 'patch', opId: 'p1', counterId: 'c1', patch })).toEqual({
      kind: 'patch',
      opId: 'p1',
      counterId: 'c1',
      patch,
    });
    expect(
      parseStoredOp({ kind: 'patch', opId: 'p2', counterId: 'c1', patch: { section: null } }),
    ).toMatchObject({ patch: { section: null } });
    expect(
      parseStoredOp({
        kind: 'group',
        opId: 'g1',
        patch: { timeZone: 'Europe/Berlin', weekStart: 7 },
      }),
    ).toMatchObject({ patch: { timeZone: 'Europe/Berlin', weekStart: 7 } });
    expect(parseStoredOp({ kind: 'reorder', opId: 'r1', counterIds: ['b', 'a'] })).toEqual({
      kind: 'reorder',
      opId: 'r1',
      counterIds: ['b', 'a'],
    });
    expect(parseStoredOp({ kind: 'section', opId: 's1', section: 'Hall', max: 250 })).toEqual({
      kind: 'section',
      opId: 's1',
      section: 'Hall',
      max: 250,
    });
    expect(parseStoredOp({ kind: 'section', opId: 's2', section: 'Hall', max: null })).toEqual({
      kind: 'section',
      opId: 's2',
      section: 'Hall',
      max: null,
    });
  });

  it('drops the in-memory flag a stored operation must not carry back', () => {
    expect(parseStoredOp({ ...adjust, sent: false })).not.toHaveProperty('sent');
  });

  it.each([
    ['no operation id', { ...adjust, opId: undefined }],
    ['an operation id the server would refuse', { ...adjust, opId: 'has space' }],
    ['an unknown kind', { ...adjust, kind: 'reset' }],
    ['no counter', { ...adjust, counterId: '' }],
    ['an unknown direction', { ...adjust, direction: 'sideways' }],
    ['zero taps', { ...adjust, times: 0 }],
    ['a fractional tap count', { ...adjust, times: 1.5 }],
    ['a delta that is not a number', { ...adjust, delta: '3' }],
    [
      'a patch of an unknown field',
      { kind: 'patch', opId: 'a', counterId: 'c', patch: { id: 'x' } },
    ],
    [
      'a patch with a wrong type',
      { kind: 'patch', opId: 'a', counterId: 'c', patch: { value: '9' } },
    ],
    ['an empty patch', { kind: 'patch', opId: 'a', counterId: 'c', patch: {} }],
    [
      'a patch of a property every object inherits',
      { kind: 'patch', opId: 'a', counterId: 'c', patch: JSON.parse('{"toString":"x"}') as object },
    ],
    ['a group patch of a counter field', { kind: 'group', opId: 'a', patch: { value: 1 } }],
    [
      'a reset period that does not exist',
      { kind: 'patch', opId: 'a', counterId: 'c', patch: { reset: 'yearly' } },
    ],
    ['a fractional goal', { kind: 'patch', opId: 'a', counterId: 'c', patch: { goal: 1.5 } }],
    [
      'a start value of none',
      { kind: 'patch', opId: 'a', counterId: 'c', patch: { startValue: null } },
    ],
    ['a week start in words', { kind: 'group', opId: 'a', patch: { weekStart: 'Monday' } }],
    ['a reorder naming a counter twice', { kind: 'reorder', opId: 'a', counterIds: ['x', 'x'] }],
    ['a reorder without its list', { kind: 'reorder', opId: 'a' }],
    ['a reorder naming no counter', { kind: 'reorder', opId: 'a', counterIds: ['x', ''] }],
    ['a section without a name', { kind: 'section', opId: 'a', section: ' ', max: 1 }],
    ['a negative section maximum', { kind: 'section', opId: 'a', section: 'Hall', max: -1 }],
    ['a section maximum that is missing', { kind: 'section', opId: 'a', section: 'Hall' }],
    ['not an object', 'adjust'],
    ['null', null],
  ])('refuses %s', (_label, value) => {
    expect(parseStoredOp(value)).toBeNull();
  });
});

describe('parseEntry', () => {
  it('keeps the operations that parse and skips the rest', () => {
    const text = JSON.stringify({ v: 1, savedAt: 1_700_000_000_000, ops: [adjust, { kind: 'x' }] });
    expect(parseEntry(text)).toEqual({ savedAt: 1_700_000_000_000, ops: [adjust] });
  });

  it.each([
    ['nothing stored', null],
    ['text that is not JSON', '{"v":1,'],
    ['another format version', JSON.stringify({ v: 2, savedAt: 1, ops: [adjust] })],
    ['no list of operations', JSON.stringify({ v: 1, savedAt: 1, ops: 'x' })],
  ])('reads %s as no entry', (_label, text) => {
    expect(parseEntry(text)).toBeNull();
  });
});

describe('waiting changes', () => {
  it('counts every tap of a coalesced operation and one per edit', () => {
    expect(changeCount([])).toBe(0);
    expect(changeCount([{ kind: 'adjust', times: 5 }])).toBe(5);
    expect(changeCount([{ kind: 'adjust', times: 2 }, { kind: 'patch' }, { kind: 'create' }])).toBe(
      4,
    );
  });

  it('says how many changes wait, in words', () => {
    expect(MESSAGES.changesWaiting(1)).toBe('1 change waiting');
    expect(MESSAGES.changesWaiting(5)).toBe('5 changes waiting');
    expect(MESSAGES.changesWaiting(1200)).toBe('1,200 changes waiting');
  });

  it('keeps one entry per group and tab', () => {
    expect(outboxKey('coffee-club', 'ab12')).toBe('tally:outbox:coffee-club:ab12');
  });

  it('keeps a tap link’s taps apart from the group’s, so another key never sends them', () => {
    const group = outboxKey(outboxOwner('coffee-club', null), 'ab12');
    const link = outboxKey(outboxOwner('coffee-club', 'gate-b'), 'ab12');
    expect(link).not.toBe(group);
    // The group's own entries are found by the prefix `tally:outbox:coffee-club:`.
    expect(link.startsWith('tally:outbox:coffee-club:')).toBe(false);
  });
});
