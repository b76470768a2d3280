/**
 * The SQLite store's cache of committed counter and group rows (store/sqlite/row-cache.ts): bounded,
 * and its rows cannot be changed behind its back.
 */
import { NO_ALERTS } from '../../src/server/domain/alert-config.js';
import { describe, expect, it } from 'vitest';
import { RowCache, frozenCounter, frozenGroup } from '../../src/server/store/sqlite/row-cache.js';
import type { StoredCounter, StoredGroup } from '../../src/server/domain/commit-io.js';

describe('the row cache', () => {
  it('holds at most its limit, letting the row stored longest ago go first', () => {
    const cache = new RowCache<number>(3);
    for (const id of ['a', 'b', 'c']) cache.set(id, 1);
    cache.set('a', 2); // stored again: now the newest
    cache.set('d', 1);
    expect(cache.size).toBe(3);
    expect(cache.get('b')).toBeUndefined();
    expect([cache.get('a'), cache.get('c'), cache.get('d')]).toEqual([2, 1, 1]);
    cache.delete('a');
    cache.clear();
    expect(cache.size).toBe(0);
  });

  it('loads a missing row once and keeps it; a row that does not exist is not kept', () => {
    const cache = new RowCache<number>(3);
    let loads = 0;
    const load = () => {
      loads += 1;
      return 7;
    };
    expect(cache.getOrLoad('a', load)).toBe(7);
    expect(cache.getOrLoad('a', load)).toBe(7);
    expect(loads).toBe(1);
    expect(cache.getOrLoad('none', () => undefined)).toBeUndefined();
    expect(cache.size).toBe(1);
  });

  it('freezes the rows it keeps, so a change to one throws instead of corrupting the cache', () => {
    const counter = frozenCounter({
      groupId: 'g',
      createdSeq: 1,
      position: null,
      nextResetAt: null,
      closedTotal: 0,
      counter: { id: 'c', value: 1 } as StoredCounter['counter'],
    });
    expect(() => {
      (counter.counter as { value: number }).value = 2;
    }).toThrow(TypeError);
    const group = frozenGroup({
      seq: 1,
      record: { id: 'g', sectionLimits: { Bar: 3 } } as unknown as StoredGroup['record'],
      alerts: NO_ALERTS,
      logHead: null,
    });
    expect(() => {
      group.record.sectionLimits.Bar = 4;
    }).toThrow(TypeError);
    expect(() => {
      (group as { seq: number }).seq = 2;
    }).toThrow(TypeError);
  });
});
