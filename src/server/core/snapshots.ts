/**
 * Group snapshots, read and serialised once per change number. A group may hold
 * up to MAX_COUNTERS_PER_GROUP counters of up to a few KB each, a snapshot of several MB: reading
 * and serialising it for every join and every live `ready` let a few clients joining a large group
 * in a loop stall everyone else (a snapshot of several MB costs the event loop tens of ms each
 * time). Small groups are kept too: reading a group of five counters from SQLite was a large share
 * of `GET …/counters` (ADR 21), against a one-row read of the change number.
 * A snapshot at change number N never changes, so the latest one of each group is kept while the
 * group's change number stays N, and its JSON is made once however many sockets receive it.
 */
import type { GroupView } from '../../shared/api.js';

/** Serialised snapshots kept in all, bytes (UTF-16 length, close to the UTF-8 size for JSON). */
export const SNAPSHOT_CACHE_BYTES = 64 * 1024 * 1024;

const serialised = new WeakMap<GroupView, string>();
const serialisedCounters = new WeakMap<GroupView, string>();

/**
 * The JSON of a snapshot, made once per snapshot object, from its counters' JSON: a snapshot
 * read for `GET …/counters` is serialised once for both answers, not twice.
 */
export function viewJson(view: GroupView): string {
  let json = serialised.get(view);
  if (json === undefined) {
    // Every field of a view, by name: one added to GroupView must be added here too.
    const { group, counters: _counters, seq, ...rest } = view;
    rest satisfies Record<string, never>;
    json = `{"group":${JSON.stringify(group)},"counters":${countersJson(view)},"seq":${JSON.stringify(seq)}}`;
    serialised.set(view, json);
  }
  return json;
}

/** The JSON of a snapshot's counters alone (`GET …/counters`), made once per snapshot object. */
export function countersJson(view: GroupView): string {
  let json = serialisedCounters.get(view);
  if (json === undefined) {
    json = JSON.stringify(view.counters);
    serialisedCounters.set(view, json);
  }
  return json;
}

/**
 * The JSON of `{ ...fields, ...view }` without serialising the view again: the REST join's answer
 * (`access`) and the live `ready` frame (`type`, `protocol`, `access`).
 */
export function viewJsonWith(view: GroupView, fields: Record<string, unknown>): string {
  const head = JSON.stringify(fields);
  return `${head.slice(0, -1)},${viewJson(view).slice(1)}`;
}

/**
 * What keeping a snapshot costs, in UTF-16 units: its JSON and its counters' JSON, both kept with
 * it (a socket write flattens the view's JSON into a copy of its own).
 */
export function keptChars(view: GroupView): number {
  return viewJson(view).length + countersJson(view).length;
}

/** The latest snapshot of each group, while its change number is current (LRU, bounded). */
export class SnapshotCache {
  private readonly entries = new Map<string, { view: GroupView; chars: number }>();
  private chars = 0;

  constructor(private readonly maxChars = SNAPSHOT_CACHE_BYTES) {}

  /** Whether a snapshot of `groupId` is kept (at whatever change number). */
  holds(groupId: string): boolean {
    return this.entries.has(groupId);
  }

  /** The snapshot of `groupId` at change number `seq`, if it is kept. */
  get(groupId: string, seq: number): GroupView | undefined {
    const entry = this.entries.get(groupId);
    if (entry === undefined || entry.view.seq !== seq) return undefined;
    // Re-inserted: the Map's order stays least recently used first.
    this.entries.delete(groupId);
    this.entries.set(groupId, entry);
    return entry.view;
  }

  /** Keeps a freshly read snapshot, unless it alone is larger than the whole cache. */
  remember(groupId: string, view: GroupView): void {
    this.forget(groupId);
    const chars = keptChars(view);
    if (chars > this.maxChars) return;
    this.entries.set(groupId, { view, chars });
    this.chars += chars;
    for (const [oldest, entry] of this.entries) {
      if (this.chars <= this.maxChars) break;
      this.entries.delete(oldest);
      this.chars -= entry.chars;
    }
  }

  get size(): number {
    return this.entries.size;
  }

  private forget(groupId: string): void {
    const entry = this.entries.get(groupId);
    if (entry === undefined) return;
    this.entries.delete(groupId);
    this.chars -= entry.chars;
  }
}
