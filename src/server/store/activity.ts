/**
 * Store-independent parts of the activity log: what entry a change makes, how entries are
 * stored in a row, and read back. Both SQL stores write these drafts inside the batch
 * transaction that applies the change, so the log never disagrees with the counters.
 *
 * Storage (docs/decisions/0007-activity-log.md): one row per change, except that the taps of
 * one member on one counter committed in one batch make one row ("Ada +5"), so a hot counter
 * costs at most one row per member per batch.
 */
import type { Counter, Group } from '../../shared/api.js';
import { GROUP_FIELDS } from '../../shared/fields.js';
import {
  CounterFieldSchema,
  CounterSnapshotSchema,
  FieldChangeSchema,
  TALLY_ACTOR,
  UNKNOWN_MEMBER,
  type ActivityEntry,
  type ActivityKind,
  type HistoryPoint,
  type CounterSnapshot,
  type FieldChange,
} from '../../shared/activity.js';
import { z } from 'zod';
import type { Operation } from './types.js';

/** An entry before it has an id; `opIds` are the operations it records (for undo by op id). */
export interface ActivityDraft {
  groupId: string;
  seq: number;
  actor: string;
  kind: ActivityKind;
  counterId: string | null;
  counterName: string | null;
  value: number | null;
  delta: number | null;
  /** How much of `delta` was added and taken away (taps). */
  increments: number | null;
  decrements: number | null;
  /**
   * Field changes, the counter snapshot of a create or delete, the goal a tap reached, the
   * orders of a reorder, or the period a reset ended.
   */
  detail: FieldChange[] | CounterSnapshot | EntryDetail | null;
  opIds: string[];
}

/** The detail of the entry kinds issue 17 added. */
export type EntryDetail =
  | { goal: number }
  | { from: string[]; to: string[] }
  | { final: number; periodStart: number; periodEnd: number };

/** An activity row as both SQL stores read it; `at` is epoch ms in SQLite, a Date in PostgreSQL. */
export interface ActivityRow {
  id: number;
  group_id: string;
  seq: number;
  at: number | Date;
  actor: string;
  kind: string;
  counter_id: string | null;
  counter_name: string | null;
  value_after: number | null;
  delta: number | null;
  detail: string | null;
  undo_of: number | null;
  undone_by: number | null;
  increments: number | null;
  decrements: number | null;
}

/** The columns every activity read returns. */
export const ACTIVITY_FIELDS =
  'id, group_id, seq, at, actor, kind, counter_id, counter_name, value_after, delta, detail, undo_of, undone_by, increments, decrements';

const actorOf = (operation: Operation): string => operation.actor ?? UNKNOWN_MEMBER;
const opIdsOf = (operation: Operation): string[] =>
  operation.opId === undefined ? [] : [operation.opId];

export const snapshotOf = ({ version: _version, ...snapshot }: Counter): CounterSnapshot =>
  snapshot;

/**
 * Taps of a coalesced step: one entry per member, with the value delta of their taps and how
 * much they added and took away. `reachedBy`: the member whose tap took the counter to its goal;
 * their entry records the goal.
 */
export function adjustDrafts(
  indices: readonly number[],
  operations: readonly Operation[],
  counter: Counter,
  seq: number,
  reachedBy?: string,
): ActivityDraft[] {
  const byActor = new Map<string, ActivityDraft>();
  for (const index of indices) {
    const operation = operations[index];
    if (operation?.mutation.kind !== 'adjustCounter') continue;
    const { direction, times } = operation.mutation;
    const added = direction === 'increment' ? times * counter.incrementStep : 0;
    const taken = direction === 'decrement' ? times * counter.decrementStep : 0;
    const actor = actorOf(operation);
    const draft = byActor.get(actor);
    if (draft) {
      draft.delta = (draft.delta ?? 0) + added - taken;
      draft.increments = (draft.increments ?? 0) + added;
      draft.decrements = (draft.decrements ?? 0) + taken;
      draft.opIds.push(...opIdsOf(operation));
      continue;
    }
    byActor.set(actor, {
      ...counterDraft(operation, 'counter.adjusted', counter, seq),
      delta: added - taken,
      increments: added,
      decrements: taken,
      detail: reachedBy === actor && counter.goal !== null ? { goal: counter.goal } : null,
    });
  }
  return [...byActor.values()];
}

/** An adjustment made by an undo (or one tap applied alone): one entry with its delta. */
export function deltaDraft(
  operation: Operation,
  counter: Counter,
  seq: number,
  delta: number,
  reachedGoal: boolean,
): ActivityDraft {
  return {
    ...counterDraft(operation, 'counter.adjusted', counter, seq),
    delta,
    increments: Math.max(delta, 0),
    decrements: Math.max(-delta, 0),
    detail: reachedGoal && counter.goal !== null ? { goal: counter.goal } : null,
  };
}

/** The entry of one applied mutation, from the rows before and after it. */
export function counterDraft(
  operation: Operation,
  kind: ActivityKind,
  counter: Counter,
  seq: number,
): ActivityDraft {
  return {
    groupId: operation.groupId,
    seq,
    actor: actorOf(operation),
    kind,
    counterId: counter.id,
    counterName: counter.name,
    value: kind === 'counter.deleted' ? null : counter.value,
    delta: null,
    increments: null,
    decrements: null,
    detail: kind === 'counter.created' || kind === 'counter.deleted' ? snapshotOf(counter) : null,
    opIds: opIdsOf(operation),
  };
}

/** Every field a counter edit can change (the shared schema's list). */
const COUNTER_DIFF_FIELDS = CounterFieldSchema.options;

/** A counter edit: the fields whose value changed, old → new. */
export function updateDraft(
  operation: Operation,
  before: Counter,
  after: Counter,
  seq: number,
): ActivityDraft {
  const changes: FieldChange[] = COUNTER_DIFF_FIELDS.filter(
    (field) => before[field] !== after[field],
  ).map((field) => ({ field, from: before[field], to: after[field] }));
  return {
    ...counterDraft(operation, 'counter.updated', after, seq),
    // The name it had when the member acted on it: "renamed Coffees → Teas" reads from `changes`.
    counterName: before.name,
    detail: changes,
  };
}

/** A group edit: its fields and section maximums, old → new. */
export function groupDraft(
  operation: Operation,
  before: Group,
  after: Group,
  seq: number,
): ActivityDraft {
  const changes: FieldChange[] = GROUP_FIELDS.filter((field) => before[field] !== after[field]).map(
    (field) => ({ field, from: before[field], to: after[field] }),
  );
  const sections = new Set([
    ...Object.keys(before.sectionLimits),
    ...Object.keys(after.sectionLimits),
  ]);
  for (const section of sections) {
    const from = before.sectionLimits[section] ?? null;
    const to = after.sectionLimits[section] ?? null;
    if (from !== to) changes.push({ field: 'sectionMax', section, from, to });
  }
  return groupEntry(operation, seq, 'group.updated', changes);
}

/** An entry about the whole group (no counter). */
export function groupEntry(
  operation: Operation,
  seq: number,
  kind: ActivityKind,
  detail: ActivityDraft['detail'],
): ActivityDraft {
  return {
    groupId: operation.groupId,
    seq,
    actor: actorOf(operation),
    kind,
    counterId: null,
    counterName: null,
    value: null,
    delta: null,
    increments: null,
    decrements: null,
    detail,
    opIds: opIdsOf(operation),
  };
}

/** A period's end: the counter returned to its start value (made by Tally itself). */
export function resetDraft(
  groupId: string,
  counter: Counter,
  seq: number,
  period: { final: number; periodStart: number; periodEnd: number },
): ActivityDraft {
  return {
    groupId,
    seq,
    actor: TALLY_ACTOR,
    kind: 'counter.reset',
    counterId: counter.id,
    counterName: counter.name,
    value: counter.value,
    delta: null,
    increments: null,
    decrements: null,
    detail: period,
    opIds: [],
  };
}

export const detailText = (draft: ActivityDraft): string | null =>
  draft.detail === null ? null : JSON.stringify(draft.detail);

/** The columns a new entry writes, as the row stores it (without id, time and undo links). */
export const draftColumns = (draft: ActivityDraft) => ({
  group_id: draft.groupId,
  seq: draft.seq,
  actor: draft.actor,
  kind: draft.kind,
  counter_id: draft.counterId,
  counter_name: draft.counterName,
  value_after: draft.value,
  delta: draft.delta,
  detail: detailText(draft),
  increments: draft.increments,
  decrements: draft.decrements,
});

const ChangesSchema = z.array(FieldChangeSchema);
const GoalDetailSchema = z.object({ goal: z.number().int() }).nullable();
const OrderDetailSchema = z.object({ from: z.array(z.string()), to: z.array(z.string()) });
const ResetDetailSchema = z.object({
  final: z.number().int(),
  periodStart: z.number(),
  periodEnd: z.number(),
});

/** A stored row as the API shows it. Throws if the row is not a valid entry (never expected). */
export function toActivityEntry(row: ActivityRow): ActivityEntry {
  const base = {
    id: row.id,
    seq: row.seq,
    at: new Date(row.at).toISOString(),
    actor: row.actor,
    undoOf: row.undo_of,
    undoneBy: row.undone_by,
  };
  const detail: unknown = row.detail === null ? null : JSON.parse(row.detail);
  const counterId = row.counter_id ?? '';
  const counterName = row.counter_name ?? '';
  const value = row.value_after;
  switch (row.kind) {
    case 'counter.adjusted': {
      const delta = row.delta ?? 0;
      return {
        kind: row.kind,
        ...base,
        counterId,
        counterName,
        value,
        delta,
        // Entries written before issue 17 carry only the delta.
        increments: row.increments ?? Math.max(delta, 0),
        decrements: row.decrements ?? Math.max(-delta, 0),
        reachedGoal: GoalDetailSchema.parse(detail)?.goal ?? null,
      };
    }
    case 'counters.reordered': {
      const order = OrderDetailSchema.parse(detail);
      return {
        kind: row.kind,
        ...base,
        counterId: null,
        counterName: null,
        value: null,
        from: order.from,
        to: order.to,
      };
    }
    case 'counter.reset': {
      const period = ResetDetailSchema.parse(detail);
      return {
        kind: row.kind,
        ...base,
        counterId,
        counterName,
        value,
        final: period.final,
        periodStart: new Date(period.periodStart).toISOString(),
        periodEnd: new Date(period.periodEnd).toISOString(),
      };
    }
    case 'counter.updated':
      return {
        kind: row.kind,
        ...base,
        counterId,
        counterName,
        value,
        changes: ChangesSchema.parse(detail),
      };
    case 'counter.created':
    case 'counter.deleted':
      return {
        kind: row.kind,
        ...base,
        counterId,
        counterName,
        value,
        counter: CounterSnapshotSchema.parse(detail),
      };
    case 'group.updated':
      return {
        kind: row.kind,
        ...base,
        counterId: null,
        counterName: null,
        value: null,
        changes: ChangesSchema.parse(detail),
      };
    default:
      throw new Error(`unknown activity kind ${row.kind}`);
  }
}

/**
 * Evenly spaced time buckets over a counter's life: the width, ms, that turns the span between
 * its first entry and now into `points − 2` buckets, leaving room for the first and the current
 * value (historyPoints), so a chart has at most `points` points.
 */
export function bucketWidthMs(firstAt: number, now: number, points: number): number {
  return Math.max(1, Math.ceil((now - firstAt + 1) / Math.max(1, points - 2)));
}

interface ValueRow {
  id: number;
  /** Epoch ms. */
  at: number;
  value_after: number;
}

/** The chart's points: the first value ever, each bucket's last value, the value now. */
export function historyPoints(
  first: ValueRow,
  buckets: readonly ValueRow[],
  current: HistoryPoint,
): HistoryPoint[] {
  const rest = buckets.filter((row) => row.id !== first.id);
  return [first, ...rest].map((row) => ({ t: row.at, v: row.value_after })).concat(current);
}
