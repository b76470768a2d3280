/**
 * Who may open a group, kept in memory: every REST call checks a key, and reading the group's
 * row for each one was a large share of the increment route's time (ADR 18). An entry
 * holds only what a key check needs (id, name, the two key hashes and the tap links' hashes); nothing else of the group
 * is read from it, so an edited display name can never be served stale from here.
 *
 * It is dropped when the group's access changes, on every instance: a key rotation or a view-link
 * change commits a `group.accessChanged` change, which the bus delivers here (this instance's at
 * once, after the commit and before the caller is answered; other instances' through the bus).
 * When the bus's feed from other instances was interrupted, everything is dropped, since
 * announcements may have been lost; and no entry is trusted for longer than MAX_AGE_MS whatever
 * happens. A load that overlaps an access change anywhere is answered but not kept, so a row read
 * just before a rotation cannot outlive it.
 */
import type { Bus } from '../bus/types.js';
import type { GroupRecord } from '../store/types.js';

/** What a key check reads of a group. */
export type GroupAccess = Pick<GroupRecord, 'id' | 'name' | 'keyHash' | 'viewKeyHash' | 'tapLinks'>;

export interface AccessCacheOptions {
  /** Most groups kept (least recently used dropped first): ~250 bytes each, ~300 more per tap link. */
  maxEntries: number;
  /** Longest an entry is trusted without reading the row again, ms. */
  maxAgeMs: number;
  /** Milliseconds on a monotonic clock (tests pass their own). */
  now: () => number;
}

/** 10,000 groups ≈ 2.5 MB; a group not kept costs one indexed read per call, as before. */
export const ACCESS_CACHE_MAX_ENTRIES = 10_000;
/** A minute: the cost of a bug in invalidation is bounded by it, and one read a minute is free. */
export const ACCESS_CACHE_MAX_AGE_MS = 60_000;

const DEFAULT_OPTIONS: AccessCacheOptions = {
  maxEntries: ACCESS_CACHE_MAX_ENTRIES,
  maxAgeMs: ACCESS_CACHE_MAX_AGE_MS,
  now: () => performance.now(),
};

interface Entry {
  access: GroupAccess;
  /** now() when the row was read, ms. */
  readAt: number;
}

export class GroupAccessCache {
  /** By group slug, least recently used first (a Map keeps insertion order). */
  private readonly entries = new Map<string, Entry>();
  /** Group id → slug, to drop an entry when an announcement names the group by id. */
  private readonly slugOfId = new Map<string, string>();
  /** Reads under way, so a burst of calls for one group reads its row once. */
  private readonly loading = new Map<string, Promise<GroupAccess | null>>();
  /** Access changes seen so far, anywhere: a load that saw this number move is not kept. */
  private changesSeen = 0;
  private readonly options: AccessCacheOptions;
  private readonly stopWatching: (() => void)[];

  constructor(
    private readonly load: (slug: string) => Promise<GroupRecord | null>,
    bus: Pick<Bus, 'onAccessChange' | 'onReconnect'>,
    options: Partial<AccessCacheOptions> = {},
  ) {
    this.options = { ...DEFAULT_OPTIONS, ...options };
    this.stopWatching = [
      bus.onAccessChange((groupId) => {
        this.forget(groupId);
      }),
      bus.onReconnect(() => {
        this.clear();
      }),
    ];
  }

  /** The group's access as stored now (or at most MAX_AGE_MS ago, unless changed), or null. */
  get(slug: string): Promise<GroupAccess | null> {
    const entry = this.entries.get(slug);
    if (entry && this.options.now() - entry.readAt < this.options.maxAgeMs) {
      // Most recently used goes last.
      this.entries.delete(slug);
      this.entries.set(slug, entry);
      return Promise.resolve(entry.access);
    }
    return this.loading.get(slug) ?? this.read(slug);
  }

  /** Drops a group (its access changed). */
  forget(groupId: string): void {
    this.changesSeen += 1;
    const slug = this.slugOfId.get(groupId);
    if (slug === undefined) return;
    this.entries.delete(slug);
    this.slugOfId.delete(groupId);
  }

  /** Drops every group (announcements may have been missed). */
  clear(): void {
    this.changesSeen += 1;
    this.entries.clear();
    this.slugOfId.clear();
  }

  get size(): number {
    return this.entries.size;
  }

  close(): void {
    for (const stop of this.stopWatching) stop();
    this.clear();
  }

  private read(slug: string): Promise<GroupAccess | null> {
    const changesBefore = this.changesSeen;
    const reading = this.load(slug)
      .then((group) => {
        if (group === null) {
          // Not kept: a group may be created at any moment, on any instance.
          this.drop(slug);
          return null;
        }
        const access: GroupAccess = {
          id: group.id,
          name: group.name,
          keyHash: group.keyHash,
          viewKeyHash: group.viewKeyHash,
          tapLinks: group.tapLinks,
        };
        if (this.changesSeen === changesBefore) this.keep(slug, access);
        else this.drop(slug);
        return access;
      })
      .finally(() => {
        this.loading.delete(slug);
      });
    this.loading.set(slug, reading);
    return reading;
  }

  private keep(slug: string, access: GroupAccess): void {
    this.entries.delete(slug);
    this.entries.set(slug, { access, readAt: this.options.now() });
    this.slugOfId.set(access.id, slug);
    while (this.entries.size > this.options.maxEntries) {
      const [oldest, entry] = this.entries.entries().next().value ?? [];
      if (oldest === undefined || entry === undefined) break;
      this.entries.delete(oldest);
      this.slugOfId.delete(entry.access.id);
    }
  }

  private drop(slug: string): void {
    const entry = this.entries.get(slug);
    if (!entry) return;
    this.entries.delete(slug);
    this.slugOfId.delete(entry.access.id);
  }
}
