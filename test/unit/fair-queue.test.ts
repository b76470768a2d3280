/**
 * The commit queue's order on its own: clients are served in turn, and within a client its
 * groups; each client's operations of one group stay in arrival order; while several clients
 * wait, no client gives more than its share to one batch.
 */
import { describe, expect, it } from 'vitest';
import { CONTENDED_CLIENT_SHARE, FairQueue } from '../../src/server/fair-queue.js';

interface Item {
  at: number;
  id: string;
}

function queueOf(items: [client: string, group: string, id: string][]): FairQueue<Item> {
  const queue = new FairQueue<Item>();
  items.forEach(([client, group, id], index) => {
    queue.push(client, group, { at: index, id });
  });
  return queue;
}

const ids = (items: Item[]) => items.map((item) => item.id);

describe('the fair commit queue', () => {
  it('is a plain queue for one client and one group', () => {
    const queue = queueOf([
      ['a', 'g', '1'],
      ['a', 'g', '2'],
      ['a', 'g', '3'],
    ]);
    expect(ids(queue.take(2))).toEqual(['1', '2']);
    expect(queue.oldestAt).toBe(2);
    expect(ids(queue.take(10))).toEqual(['3']);
    expect(queue.size).toBe(0);
    expect(queue.oldestAt).toBeUndefined();
  });

  it('serves a client that arrived last in the first batch, however much another has queued', () => {
    const flood: [string, string, string][] = Array.from({ length: 5_000 }, (_v, i) => [
      'greedy',
      'own',
      `g${String(i)}`,
    ]);
    const queue = queueOf([...flood, ['member', 'other', 'tap']]);
    const first = queue.take(2_000);
    expect(ids(first)).toContain('tap');
    // The greedy client gives at most its share while someone else waits.
    expect(first.length).toBe(CONTENDED_CLIENT_SHARE + 1);
    expect(queue.queuedOf('greedy')).toBe(5_000 - CONTENDED_CLIENT_SHARE);
    // Alone again, it fills whole batches, in its own order.
    const next = queue.take(2_000);
    expect(next.length).toBe(2_000);
    expect(next[0]?.id).toBe(`g${String(CONTENDED_CLIENT_SHARE)}`);
  });

  it('keeps each client’s operations of one group in arrival order, and takes groups in turn', () => {
    const queue = queueOf([
      ['a', 'g1', 'a1'],
      ['a', 'g1', 'a2'],
      ['a', 'g1', 'a3'],
      ['a', 'g2', 'b1'],
      ['b', 'g1', 'c1'],
    ]);
    const taken = ids(queue.take(3));
    expect(taken).toHaveLength(3);
    expect(taken).toContain('c1');
    expect(taken).toContain('b1');
    const rest = ids(queue.take(10));
    const all = [...taken, ...rest];
    expect(all.filter((id) => id.startsWith('a'))).toEqual(['a1', 'a2', 'a3']);
    expect(all).toHaveLength(5);
  });

  it('knows each client’s waiting count, and the oldest arrival of what is left', () => {
    const queue = queueOf([
      ['a', 'g', '1'],
      ['b', 'g', '2'],
      ['a', 'g', '3'],
    ]);
    expect(queue.queuedOf('a')).toBe(2);
    expect(queue.clientCount).toBe(2);
    queue.take(2);
    expect(queue.size).toBe(1);
    expect(queue.oldestAt).toBe(2);
  });
});
