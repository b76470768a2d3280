/**
 * The changes this tab queues for the server, as the lanes (./lanes.ts), the outbox
 * (./outbox.ts), the store (./groupStore.ts) and the undo toast know them. Types only, plus the
 * one rule every one of them counts by: a module of its own so that none of them has to import
 * another for its types.
 */
import type { AdjustDirection, Counter, CounterOrder, Group } from '../../shared/api.js';
import type { CounterField, GroupField } from '../../shared/fields.js';

/** A display-ready counter patch (already sanitised / normalised as the server would). */
export type CounterPatch = Partial<Pick<Counter, CounterField>>;
export type GroupPatch = Partial<Pick<Group, GroupField>>;

/**
 * A queued change as the outbox stores it. `name` is the counter's name as shown when the change
 * was made ("Renamed Coffees → Teas").
 */
export type StoredOp =
  | {
      kind: 'adjust';
      opId: string;
      counterId: string;
      direction: AdjustDirection;
      /** Taps coalesced into this one request. */
      times: number;
      /** The value change shown meanwhile, from the step known when tapped. */
      delta: number;
      name?: string;
      /** A note for the activity log, and the ISO time it is counted for if earlier (ADR 36). */
      note?: string;
      at?: string;
    }
  | { kind: 'patch'; opId: string; counterId: string; patch: CounterPatch; name?: string }
  | { kind: 'delete'; opId: string; counterId: string; name?: string }
  | { kind: 'create'; opId: string }
  | { kind: 'group'; opId: string; patch: GroupPatch }
  /** Every counter of the group, in the new order (PUT …/order). */
  | { kind: 'reorder'; opId: string; counterIds: string[] }
  /** A section's maximum set (a number) or cleared (null) (PUT …/sections/{section}). */
  | { kind: 'section'; opId: string; section: string; max: number | null };

/**
 * A queued change in memory. `sent`: handed to the network at least once, so its content is
 * frozen from then on (a resend must be the same request: no more taps merged into it).
 */
export type Op = StoredOp & { sent: boolean };

/**
 * What the server answers a change with: the counter or group after it, the counters' new order
 * for a reorder, nothing for a delete.
 */
export type OpResult = Counter | Group | CounterOrder | undefined;

/** How many changes a list of operations stands for: each tap counts, as the page shows them. */
export function changeCount(ops: readonly { kind: string; times?: number }[]): number {
  let count = 0;
  for (const op of ops) count += op.kind === 'adjust' ? (op.times ?? 1) : 1;
  return count;
}
