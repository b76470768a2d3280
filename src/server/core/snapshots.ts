/**
 * Group snapshots, read and serialised once per change number. A group may hold
 * up to MAX_COUNTERS_PER_GROUP counters of up to a few KB each, a snapshot of several MB: reading
 * and serialising it for every join and every live `ready` let a few clients joining a large group
 * in a loop stall everyone else (a snapshot of several MB costs the event loop tens of ms each
 * time). Small groups are kept too: reading a group of five counters from SQLite was a large share
 * of `GET …/counters` (ADR 21), against a one-row read of the change number.
 * A snapshot at change number N never changes, so the latest one of each group is kept while the
 * group's change number stays N, and its JSON bytes are made once and written, by reference, to
 * however many sockets and responses carry it (ADR 34).
 */
import type { GroupView } from '../../shared/api.js';

/** Snapshot bytes kept in all. */
export const SNAPSHOT_CACHE_BYTES = 64 * 1024 * 1024;

/**
 * A snapshot's JSON as UTF-8 bytes, without its opening brace (`"group":…,"counters":[…],"seq":N}`),
 * and its counters' JSON as a slice of the same memory. Every answer that carries the snapshot
 * (the REST join, `GET …/counters`, each live `ready`) writes these bytes as they are: a socket
 * or response queues a reference to them, never a copy, so a thousand joins of a 4 MB group hold
 * 4 MB, not 4 GB of strings and buffers waiting for the garbage collector.
 */
interface ViewBytes {
  readonly tail: Buffer;
  readonly counters: Buffer;
}

const bytesOf = new WeakMap<GroupView, ViewBytes>();

function viewBytes(view: GroupView): ViewBytes {
  let bytes = bytesOf.get(view);
  if (bytes === undefined) {
    // Every field of a view, by name: one added to GroupView must be added here too.
    const { group, counters, seq, ...rest } = view;
    rest satisfies Record<string, never>;
    // The large strings are written straight into the buffer and dropped: only bytes are kept.
    const before = `"group":${JSON.stringify(group)},"counters":`;
    const countersText = JSON.stringify(counters);
    const after = `,"seq":${JSON.stringify(seq)}}`;
    const start = Buffer.byteLength(before);
    const end = start + Buffer.byteLength(countersText);
    const tail = Buffer.allocUnsafeSlow(end + Buffer.byteLength(after));
    tail.write(before, 0);
    tail.write(countersText, start);
    tail.write(after, end);
    bytes = { tail, counters: tail.subarray(start, end) };
    bytesOf.set(view, bytes);
  }
  return bytes;
}

/** The JSON of a snapshot's counters alone (`GET …/counters`), made once per snapshot object. */
export function countersBytes(view: GroupView): Buffer {
  return viewBytes(view).counters;
}

/**
 * The JSON of `{ ...fields, ...view }` in two parts: the fields' own bytes (small, made per call)
 * and the view's bytes, shared by every answer that carries it: the REST join's answer
 * (`access`) and the live `ready` frame (`type`, `protocol`, `access`, `link`).
 */
export function viewWith(
  view: GroupView,
  fields: Record<string, unknown>,
): { head: Buffer; tail: Buffer } {
  const head = JSON.stringify(fields);
  return { head: Buffer.from(`${head.slice(0, -1)},`), tail: viewBytes(view).tail };
}

/** What keeping a snapshot costs, bytes: its serialised form, kept with it. */
export function keptBytes(view: GroupView): number {
  return viewBytes(view).tail.length;
}

/** The latest snapshot of each group, while its change number is current (LRU, bounded). */
export class SnapshotCache {
  private readonly entries = new Map<string, { view: GroupView; bytes: number }>();
  private bytes = 0;

  constructor(private readonly maxBytes = SNAPSHOT_CACHE_BYTES) {}

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
    const bytes = keptBytes(view);
    if (bytes > this.maxBytes) return;
    this.entries.set(groupId, { view, bytes });
    this.bytes += bytes;
    for (const [oldest, entry] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.bytes -= entry.bytes;
    }
  }

  get size(): number {
    return this.entries.size;
  }

  private forget(groupId: string): void {
    const entry = this.entries.get(groupId);
    if (entry === undefined) return;
    this.entries.delete(groupId);
    this.bytes -= entry.bytes;
  }
}
