/**
 * Undo as an inverse operation: taking back an entry never restores an old snapshot of
 * a value, it applies the opposite change atomically, so what other members did in between
 * stays. An increment of +5 is undone by −5; a typed value from 3 to 10 is undone by −7; a
 * rename is undone by renaming back; a created counter is deleted; a deleted counter comes back
 * with the value it had.
 */
import type { ActivityEntry, CounterSnapshot } from '../../shared/activity.js';
import type { CounterPatch, GroupPatch } from '../../shared/api.js';

type RestorablePatch = Omit<CounterPatch, 'value'>;

export type Inverse =
  | {
      kind: 'counter';
      counterId: string;
      /** Fields set back to what they were. */
      patch: RestorablePatch;
      /**
       * Added to the value (the opposite of what the entry added). A bigint: between two typed
       * values ±(2^53 − 1) it reaches 2^54 − 2, where a double no longer holds every integer.
       */
      valueDelta: bigint;
      /** The new entry reads like the old one: an undone tap is a tap the other way. */
      entryKind: 'counter.adjusted' | 'counter.updated';
    }
  | { kind: 'delete'; counterId: string }
  | { kind: 'restore'; counter: CounterSnapshot }
  /** Group fields set back, and section maximums set back (null: none). */
  | { kind: 'group'; patch: GroupPatch; sections: { section: string; max: number | null }[] }
  /** The order before (counters since created or deleted keep their places after it). */
  | { kind: 'reorder'; counterIds: string[] }
  /** Nothing to apply: an automatic reset is not a member's change. */
  | { kind: 'none' };

export function inverseOf(entry: ActivityEntry): Inverse {
  switch (entry.kind) {
    case 'counter.adjusted':
      return {
        kind: 'counter',
        counterId: entry.counterId,
        patch: {},
        valueDelta: -BigInt(entry.delta),
        entryKind: 'counter.adjusted',
      };
    case 'counter.updated': {
      const patch: Record<string, unknown> = {};
      let valueDelta = 0n;
      for (const change of entry.changes) {
        if (change.field === 'value') valueDelta = exact(change.from) - exact(change.to);
        else patch[change.field] = change.from;
      }
      return {
        kind: 'counter',
        counterId: entry.counterId,
        patch,
        valueDelta,
        entryKind: 'counter.updated',
      };
    }
    case 'counter.created':
      return { kind: 'delete', counterId: entry.counterId };
    case 'counter.deleted':
      return { kind: 'restore', counter: entry.counter };
    case 'group.updated': {
      const patch: Record<string, unknown> = {};
      const sections: { section: string; max: number | null }[] = [];
      for (const change of entry.changes) {
        if (change.field === 'sectionMax') {
          sections.push({ section: change.section ?? '', max: nullableNumber(change.from) });
        } else {
          patch[change.field] = change.from;
        }
      }
      return { kind: 'group', patch, sections };
    }
    case 'counters.reordered':
      return { kind: 'reorder', counterIds: entry.from };
    case 'counter.reset':
      return { kind: 'none' };
  }
}

/** A stored value as an exact integer (values are whole numbers within ±(2^53 − 1)). */
function exact(value: unknown): bigint {
  return BigInt(Number(value));
}

const nullableNumber = (value: unknown): number | null =>
  typeof value === 'number' ? value : null;
