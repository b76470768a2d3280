/**
 * Fan-out of a large group's changes (ADR 33). Writing each committed batch to every socket costs
 * one write per socket per batch: with thousands of members and hundreds of batches a second,
 * the server does little else, and every member gets hundreds of frames a second. A group with
 * BIG_GROUP_MEMBERS members or more therefore gets at most one frame per socket per window:
 *
 *   - the first batch after a quiet window is sent at once (no added latency when the group is
 *     calm); the batches of the following window are held and sent together at its end;
 *   - the window grows with the group: WINDOW_MS_PER_MEMBER per member, at most MAX_WINDOW_MS,
 *     so the writes of one frame to every socket take well under half of the window;
 *   - inside a window, consecutive value changes of one counter fold into the latest one (the
 *     counter as it is after all of them): a frame holds at most one `counter.updated` per
 *     counter, whatever the rate. A folded change carries the operation ids of what it folds
 *     while there are at most MAX_FOLDED_OP_IDS of them, none past that (each member's own
 *     operations were answered when they committed: acks and HTTP answers are not held);
 *   - every frame says which change numbers it covers (`from`, up to its last change's seq), so
 *     the numbers stay without gaps for whoever checks them;
 *   - a window's changes go out in frames of at most MAX_CHANGES_PER_FRAME changes and
 *     MAX_FRAME_BYTES bytes (never splitting one change number's changes).
 * Smaller groups are not touched: each batch is written at once, as before.
 */
import type { Change, ServerMessage } from '../../shared/protocol.js';

/** From this many members on, a group's changes are coalesced into windows. */
export const BIG_GROUP_MEMBERS = 100;
/** A coalescing window's length per member of the group, ms. */
export const WINDOW_MS_PER_MEMBER = 0.02;
/** Longest coalescing window, ms. */
export const MAX_WINDOW_MS = 100;
/** Most changes in one frame of a coalesced window (one change number's changes stay together). */
export const MAX_CHANGES_PER_FRAME = 200;
/** Most bytes of JSON in one frame of a coalesced window (unless one change number alone is more). */
export const MAX_FRAME_BYTES = 32 * 1024;
/** Most operation ids a folded change carries; past this it carries none. */
export const MAX_FOLDED_OP_IDS = 32;

/** How long a group of `members` holds its changes after a frame, ms; 0: not at all. */
export function windowMsFor(members: number): number {
  if (members < BIG_GROUP_MEMBERS) return 0;
  return Math.min(MAX_WINDOW_MS, members * WINDOW_MS_PER_MEMBER);
}

/** One frame's worth of a window: its changes, in order, and the first change number it covers. */
export interface CoalescedFrame {
  from: number;
  changes: Change[];
}

/**
 * A window's changes, folded as they arrive (in change-number order). Memory: one entry per
 * counter changed in the window plus the other changes (creations, deletions, group edits).
 */
export class FoldingBuffer {
  /** Entries in change-number order; a folded entry moves to the end (its number is the newest). */
  private readonly entries = new Map<string | number, Change>();
  /** How many operation ids each folded counter change stands for (none carried past the bound). */
  private readonly opIdCounts = new Map<string, number>();
  private nextKey = 0;
  private first: number | null = null;

  get size(): number {
    return this.entries.size;
  }

  push(changes: readonly Change[]): void {
    for (const change of changes) {
      this.first ??= change.seq;
      if (change.type !== 'counter.updated') {
        this.entries.set(this.nextKey++, change);
        continue;
      }
      // The folded change takes the later one's place (the end): it holds the counter as it is
      // after every change before it, so anything between them (a deletion and a restore, a
      // reorder) stays before it, as it was.
      const key = `c:${change.counter.id}`;
      const earlier = this.entries.get(key);
      this.entries.delete(key);
      this.entries.set(
        key,
        earlier?.type === 'counter.updated'
          ? this.fold(key, earlier, change)
          : this.start(key, change),
      );
    }
  }

  /** Takes the window's changes as frames within the bounds, and empties the buffer. */
  take(): CoalescedFrame[] {
    const frames: CoalescedFrame[] = [];
    if (this.first === null) return frames;
    let from = this.first;
    let current: Change[] = [];
    let bytes = 0;
    for (const change of this.entries.values()) {
      const size = JSON.stringify(change).length + 1;
      const last = current.at(-1);
      const full = current.length >= MAX_CHANGES_PER_FRAME || bytes + size > MAX_FRAME_BYTES;
      if (last && full && last.seq !== change.seq) {
        frames.push({ from, changes: current });
        from = last.seq + 1;
        current = [];
        bytes = 0;
      }
      current.push(change);
      bytes += size;
    }
    if (current.length > 0) frames.push({ from, changes: current });
    this.entries.clear();
    this.opIdCounts.clear();
    this.first = null;
    return frames;
  }

  private start(key: string, change: Extract<Change, { type: 'counter.updated' }>): Change {
    this.opIdCounts.set(key, change.opIds?.length ?? 0);
    return change;
  }

  /** The later change, standing for both: its counter, the goal reached in either, their ids. */
  private fold(
    key: string,
    earlier: Extract<Change, { type: 'counter.updated' }>,
    later: Extract<Change, { type: 'counter.updated' }>,
  ): Change {
    const count = (this.opIdCounts.get(key) ?? 0) + (later.opIds?.length ?? 0);
    this.opIdCounts.set(key, count);
    const opIds =
      count <= MAX_FOLDED_OP_IDS ? [...(earlier.opIds ?? []), ...(later.opIds ?? [])] : [];
    const goalReachedBy = later.goalReachedBy ?? earlier.goalReachedBy;
    return {
      type: 'counter.updated',
      seq: later.seq,
      counter: later.counter,
      ...(opIds.length > 0 ? { opIds } : {}),
      ...(goalReachedBy === undefined ? {} : { goalReachedBy }),
    };
  }
}

export function coalescedFrame({ from, changes }: CoalescedFrame): string {
  return JSON.stringify({ type: 'changes', from, changes } satisfies ServerMessage);
}
