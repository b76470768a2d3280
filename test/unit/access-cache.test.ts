/**
 * The in-memory cache of who may open a group (src/server/core/access-cache.ts): one row read
 * serves many key checks, and any access change — on this instance or announced by another —
 * drops the group before the next check.
 */
import { describe, expect, it } from 'vitest';
import { MemoryBus } from '../../src/server/bus/memory.js';
import { GroupAccessCache } from '../../src/server/core/access-cache.js';
import type { GroupRecord } from '../../src/server/store/types.js';
import { GROUP_CALENDAR_DEFAULTS } from '../helpers/fixtures.js';

function record(slug: string, keyHash = 'a'.repeat(64)): GroupRecord {
  return {
    id: `id-${slug}`,
    name: slug,
    displayName: slug,
    profileImageUrl: '',
    ...GROUP_CALENDAR_DEFAULTS,
    keyHash,
    viewKeyHash: null,
    tapLinks: [],
  };
}

/** A store of groups that counts its reads; a read can be held open to interleave events. */
function fakeStore() {
  const rows = new Map<string, GroupRecord>();
  const reads: string[] = [];
  let gate: Promise<void> | null = null;
  return {
    rows,
    reads,
    hold(): () => void {
      let open: () => void = () => undefined;
      gate = new Promise<void>((resolve) => {
        open = resolve;
      });
      return () => {
        gate = null;
        open();
      };
    },
    async load(slug: string): Promise<GroupRecord | null> {
      reads.push(slug);
      if (gate) await gate;
      return rows.get(slug) ?? null;
    },
  };
}

/** A bus whose reconnect the test can trigger. */
class ReconnectingBus extends MemoryBus {
  private readonly reconnects = new Set<() => void>();
  override onReconnect(listener: () => void): () => void {
    this.reconnects.add(listener);
    return () => this.reconnects.delete(listener);
  }
  reconnect(): void {
    for (const listener of this.reconnects) listener();
  }
}

const accessChanged = [{ type: 'group.accessChanged' as const, seq: 2 }];

describe('group access cache', () => {
  it('reads a group once for many key checks, and once for a burst of concurrent ones', async () => {
    const store = fakeStore();
    store.rows.set('team', record('team'));
    const cache = new GroupAccessCache((slug) => store.load(slug), new MemoryBus());
    const burst = await Promise.all(Array.from({ length: 20 }, () => cache.get('team')));
    for (let index = 0; index < 100; index++) await cache.get('team');
    expect(burst.every((access) => access?.id === 'id-team')).toBe(true);
    expect(store.reads).toEqual(['team']);
  });

  it('keeps only what a key check needs, never the editable fields', async () => {
    const store = fakeStore();
    store.rows.set('team', record('team'));
    const cache = new GroupAccessCache((slug) => store.load(slug), new MemoryBus());
    expect(await cache.get('team')).toEqual({
      id: 'id-team',
      name: 'team',
      keyHash: 'a'.repeat(64),
      viewKeyHash: null,
      tapLinks: [],
    });
  });

  it('reads the row again after an access change is published for the group', async () => {
    const store = fakeStore();
    const bus = new MemoryBus();
    store.rows.set('team', record('team'));
    store.rows.set('other', record('other'));
    const cache = new GroupAccessCache((slug) => store.load(slug), bus);
    await cache.get('team');
    await cache.get('other');
    store.rows.set('team', record('team', 'b'.repeat(64)));
    bus.publish('id-team', accessChanged);
    expect((await cache.get('team'))?.keyHash).toBe('b'.repeat(64));
    await cache.get('other');
    expect(store.reads).toEqual(['team', 'other', 'team']);
  });

  it('ignores batches without an access change', async () => {
    const store = fakeStore();
    const bus = new MemoryBus();
    store.rows.set('team', record('team'));
    const cache = new GroupAccessCache((slug) => store.load(slug), bus);
    await cache.get('team');
    bus.publish('id-team', [{ type: 'counter.deleted', seq: 3, counterId: 'c1' }]);
    await cache.get('team');
    expect(store.reads).toEqual(['team']);
  });

  it('drops every group when the feed from other instances was interrupted', async () => {
    const store = fakeStore();
    const bus = new ReconnectingBus();
    store.rows.set('team', record('team'));
    const cache = new GroupAccessCache((slug) => store.load(slug), bus);
    await cache.get('team');
    bus.reconnect();
    expect(cache.size).toBe(0);
    await cache.get('team');
    expect(store.reads).toEqual(['team', 'team']);
  });

  it('does not keep a row read while an access change was announced', async () => {
    const store = fakeStore();
    const bus = new MemoryBus();
    store.rows.set('team', record('team'));
    const cache = new GroupAccessCache((slug) => store.load(slug), bus);
    const release = store.hold();
    const reading = cache.get('team');
    // The rotation commits and is announced while the old row is on its way back.
    bus.publish('id-team', accessChanged);
    release();
    expect((await reading)?.id).toBe('id-team');
    expect(cache.size).toBe(0);
  });

  it('never keeps a missing group, so one created later is found at once', async () => {
    const store = fakeStore();
    const cache = new GroupAccessCache((slug) => store.load(slug), new MemoryBus());
    expect(await cache.get('new')).toBeNull();
    store.rows.set('new', record('new'));
    expect((await cache.get('new'))?.id).toBe('id-new');
  });

  it('holds at most maxEntries groups, dropping the least recently used', async () => {
    const store = fakeStore();
    for (const slug of ['a', 'b', 'c']) store.rows.set(slug, record(slug));
    const cache = new GroupAccessCache((slug) => store.load(slug), new MemoryBus(), {
      maxEntries: 2,
    });
    await cache.get('a');
    await cache.get('b');
    await cache.get('a');
    await cache.get('c');
    expect(cache.size).toBe(2);
    store.reads.length = 0;
    await cache.get('a');
    await cache.get('b');
    expect(store.reads).toEqual(['b']);
  });

  it('reads a group again once its entry is older than maxAgeMs', async () => {
    const store = fakeStore();
    store.rows.set('team', record('team'));
    let now = 0;
    const cache = new GroupAccessCache((slug) => store.load(slug), new MemoryBus(), {
      maxAgeMs: 1_000,
      now: () => now,
    });
    await cache.get('team');
    now = 999;
    await cache.get('team');
    now = 1_000;
    await cache.get('team');
    expect(store.reads).toEqual(['team', 'team']);
  });

  it('stops listening to the bus when closed', async () => {
    const store = fakeStore();
    const bus = new MemoryBus();
    store.rows.set('team', record('team'));
    const cache = new GroupAccessCache((slug) => store.load(slug), bus);
    await cache.get('team');
    cache.close();
    expect(cache.size).toBe(0);
    // A closed cache is not told of changes (nothing throws, nothing is kept).
    bus.publish('id-team', accessChanged);
    expect(cache.size).toBe(0);
  });
});
