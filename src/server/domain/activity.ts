/**
 * What activity entry each change makes (a draft: an entry before it has an id and a time).
 * Both stores write these drafts inside the batch transaction that applies the change, so the
 * log never disagrees with the counters; domain/entry-record.ts says how a draft is recorded.
 *
 * Storage (docs/decisions/0007-activity-log.md): one row per change, except that the taps of
 * one member on one counter committed in one batch make one row ("Ada +5"), so a hot counter
 * costs at most one row per member per batch.
 */
import type { Counter, Group } from '../../shared/api.js';
import { GROUP_FIELDS } from '../../shared/fields.js';
import {
  CounterFieldSchema,
  TALLY_ACTOR,
  type ActivityKind,
  type CounterSnapshot,
  type FieldChange,
} from '../../shared/activity.js';
import { UNKNOWN_MEMBER } from '../../shared/limits.js';
import { sectionMaxOf } from '../../shared/rules.js';
import type { Operation, SequencedOperation } from './operations.js';

/** An entry before it has an id; `opIds` are the operations it records (for undo by op id). */
export interface ActivityDraft {
  groupId: string;
  seq: number;
  actor: string;
  /** The tap link it was made through (its id and label then); null: the group's own link. */
  link: { id: string; label: string } | null;
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
  /** When it happened, epoch ms, if not at the batch's time (an imported entry's own time). */
  at?: number;
  /** The entry of another log it was imported from (import.ts): its fingerprint and hash. */
  imported?: ImportedFrom;
  /** The member's note (ADR 36); absent on a plain tap, which writes no more than it did. */
  note?: string;
  /** Epoch ms the change was counted for, when earlier than the commit (ADR 36); else absent. */
  countedAt?: number;
}

/** What an imported entry keeps of its source: what recognises it, and its hash there. */
export interface ImportedFrom {
  fingerprint: string;
  /** Its hash in the source log's chain; null when it had none (another app's file). */
  hash: string | null;
}

/** The detail of a tap that reached a goal, of a reorder and of an ended period. */
export type EntryDetail =
  | { goal: number }
  /** A count for an ended period: the period whose total it corrected (epoch ms bounds). */
  | { period: { start: number; end: number } }
  | { from: string[]; to: string[] }
  | { final: number; periodStart: number; periodEnd: number };

const actorOf = (operation: Operation): string => operation.actor ?? UNKNOWN_MEMBER;
const linkOf = ({ link }: Operation): ActivityDraft['link'] =>
  link ? { id: link.id, label: link.label } : null;
const opIdsOf = (operation: Operation): string[] =>
  operation.opId === undefined ? [] : [operation.opId];

export const snapshotOf = ({ version: _version, ...snapshot }: Counter): CounterSnapshot =>
  snapshot;

/** A coalesced run of taps on one counter, applied (taps.ts): what its entries and answers say. */
export interface AppliedTaps {
  /** The batch's operations. */
  operations: readonly Operation[];
  /** The batch positions of the taps that counted, in order. */
  indices: readonly number[];
  /** The counter after the run. */
  counter: Counter;
  seq: number;
  /** The member whose tap took the counter to its goal, if one did. */
  goalReachedBy: string | undefined;
}

/**
 * Taps of a coalesced step: one entry per member, with the value delta of their taps and how
 * much they added and took away. The entry of the member whose tap took the counter to its goal
 * (`goalReachedBy`) records the goal.
 */
export function adjustDrafts({
  operations,
  indices,
  counter,
  seq,
  goalReachedBy,
}: AppliedTaps): ActivityDraft[] {
  const byActor = new Map<string, ActivityDraft>();
  for (const index of indices) {
    const operation = operations[index];
    if (operation?.mutation.kind !== 'adjustCounter') continue;
    const { direction, times } = operation.mutation;
    const added = direction === 'increment' ? times * counter.incrementStep : 0;
    const taken = direction === 'decrement' ? times * counter.decrementStep : 0;
    const actor = actorOf(operation);
    // One entry per member and link: "Ada · Gate B" and Ada on the group's own link are two.
    const key = operation.link ? `${actor}\u0000${operation.link.id}` : actor;
    const draft = byActor.get(key);
    if (draft) {
      draft.delta = (draft.delta ?? 0) + added - taken;
      draft.increments = (draft.increments ?? 0) + added;
      draft.decrements = (draft.decrements ?? 0) + taken;
      draft.opIds.push(...opIdsOf(operation));
      continue;
    }
    byActor.set(key, {
      ...counterDraft({ operation, seq }, 'counter.adjusted', counter),
      delta: added - taken,
      increments: added,
      decrements: taken,
      detail: goalReachedBy === actor && counter.goal !== null ? { goal: counter.goal } : null,
    });
  }
  return [...byActor.values()];
}

/**
 * An adjustment made by an undo (or one tap applied alone): one entry with its delta, and the
 * counter's goal if the adjustment reached it.
 */
export function deltaDraft(
  sequenced: SequencedOperation,
  counter: Counter,
  { delta, reachedGoal }: { delta: number; reachedGoal: boolean },
): ActivityDraft {
  return {
    ...counterDraft(sequenced, 'counter.adjusted', counter),
    delta,
    increments: Math.max(delta, 0),
    decrements: Math.max(-delta, 0),
    detail: reachedGoal && counter.goal !== null ? { goal: counter.goal } : null,
  };
}

/** The entry of one applied mutation of a counter, from its row after it (before it: a deletion). */
export function counterDraft(
  { operation, seq }: SequencedOperation,
  kind: ActivityKind,
  counter: Counter,
): ActivityDraft {
  return {
    groupId: operation.groupId,
    seq,
    actor: actorOf(operation),
    link: linkOf(operation),
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
  sequenced: SequencedOperation,
  before: Counter,
  after: Counter,
): ActivityDraft {
  const changes: FieldChange[] = COUNTER_DIFF_FIELDS.filter(
    (field) => before[field] !== after[field],
  ).map((field) => ({ field, from: before[field], to: after[field] }));
  return {
    ...counterDraft(sequenced, 'counter.updated', after),
    // The name it had when the member acted on it: "renamed Coffees → Teas" reads from `changes`.
    counterName: before.name,
    detail: changes,
  };
}

/** A group edit: its fields and section maximums, old → new. */
export function groupDraft(
  sequenced: SequencedOperation,
  before: Group,
  after: Group,
): ActivityDraft {
  const changes: FieldChange[] = GROUP_FIELDS.filter((field) => before[field] !== after[field]).map(
    (field) => ({ field, from: before[field], to: after[field] }),
  );
  const sections = new Set([
    ...Object.keys(before.sectionLimits),
    ...Object.keys(after.sectionLimits),
  ]);
  for (const section of sections) {
    const from = sectionMaxOf(before.sectionLimits, section);
    const to = sectionMaxOf(after.sectionLimits, section);
    if (from !== to) changes.push({ field: 'sectionMax', section, from, to });
  }
  return groupEntry(sequenced, 'group.updated', changes);
}

/** An entry about the whole group (no counter). */
export function groupEntry(
  { operation, seq }: SequencedOperation,
  kind: ActivityKind,
  detail: ActivityDraft['detail'],
): ActivityDraft {
  return {
    groupId: operation.groupId,
    seq,
    actor: actorOf(operation),
    link: linkOf(operation),
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

/**
 * A period's end: the counter returned to its start value (made by Tally itself, change number
 * `seq`); `period` is the value it ended with and its bounds.
 */
export function resetDraft({
  groupId,
  counter,
  seq,
  period,
}: {
  groupId: string;
  counter: Counter;
  seq: number;
  period: { final: number; periodStart: number; periodEnd: number };
}): ActivityDraft {
  return {
    groupId,
    seq,
    actor: TALLY_ACTOR,
    link: null,
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
