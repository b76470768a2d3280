/**
 * What the group screen shows (src/web/live/view.ts): the server's copy with this tab's queued
 * reorders and section maximums applied on top.
 */
import { describe, expect, it } from 'vitest';
import type { Group } from '../../src/shared/api.js';
import type { Op } from '../../src/web/live/ops.js';
import { groupWithPending, orderWithPending } from '../../src/web/live/view.js';

const group: Group = {
  id: 'g1',
  name: 'team',
  displayName: 'Team',
  profileImageUrl: null,
  timeZone: 'UTC',
  weekStart: 1,
  sectionLimits: { Hall: 250, Bar: 40 },
};

const reorder = (opId: string, counterIds: string[]): Op => ({
  kind: 'reorder',
  opId,
  counterIds,
  sent: false,
});

describe('orderWithPending', () => {
  it('shows the latest queued reorder at once', () => {
    const ops = [reorder('r1', ['c', 'a', 'b']), reorder('r2', ['b', 'c', 'a'])];
    expect(orderWithPending(['a', 'b', 'c'], ops)).toEqual(['b', 'c', 'a']);
  });

  it('keeps counters the reorder does not know after the ones it lists, and skips deleted ones', () => {
    expect(orderWithPending(['a', 'b', 'c', 'd'], [reorder('r1', ['c', 'x', 'a'])])).toEqual([
      'c',
      'a',
      'b',
      'd',
    ]);
  });

  it('is the server order itself without a queued reorder', () => {
    const order = ['a', 'b'];
    expect(orderWithPending(order, [])).toBe(order);
  });
});

describe('groupWithPending', () => {
  it('sets and clears section maximums as queued, other sections untouched', () => {
    const ops: Op[] = [
      { kind: 'section', opId: 's1', section: 'Hall', max: 300, sent: true },
      { kind: 'section', opId: 's2', section: 'Bar', max: null, sent: false },
      { kind: 'section', opId: 's3', section: 'Door', max: 0, sent: false },
    ];
    expect(groupWithPending(group, ops).sectionLimits).toEqual({ Hall: 300, Door: 0 });
    expect(group.sectionLimits).toEqual({ Hall: 250, Bar: 40 });
  });

  it('applies group patches and section maximums in the order they were made', () => {
    const ops: Op[] = [
      { kind: 'group', opId: 'g', patch: { displayName: 'Crew' }, sent: false },
      { kind: 'section', opId: 's', section: 'Hall', max: 10, sent: false },
    ];
    expect(groupWithPending(group, ops)).toMatchObject({
      displayName: 'Crew',
      sectionLimits: { Hall: 10, Bar: 40 },
    });
  });
});
