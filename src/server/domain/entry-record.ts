/**
 * An activity entry as both stores record it: the columns a draft (domain/activity.ts) writes,
 * and the entry a recorded row reads back as. The commit reads an entry of its own batch this
 * way too (an undo of a change made earlier in the same batch), so it sees what a later batch
 * would.
 */
import { z } from 'zod';
import {
  CounterSnapshotSchema,
  FieldChangeSchema,
  type ActivityEntry,
} from '../../shared/activity.js';
import type { ActivityDraft } from './activity.js';

/** An activity row as both stores record it; `at` is epoch ms in SQLite, a Date in PostgreSQL. */
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
  /** The tap link it was made through, and its label then; null: the group's own link. */
  link_id: string | null;
  link_label: string | null;
  /** The entry of another log it was imported from (null, or absent in older reads: none). */
  import_fingerprint?: string | null;
  import_hash?: string | null;
  /** The member's note (ADR 36); null for none. */
  note?: string | null;
  /** When it was counted for, if earlier than `at` (ADR 36): epoch ms in SQLite, a Date in PostgreSQL. */
  counted_at?: number | Date | null;
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
  link_id: draft.link?.id ?? null,
  link_label: draft.link?.label ?? null,
  import_fingerprint: draft.imported?.fingerprint ?? null,
  import_hash: draft.imported?.hash ?? null,
  // Only an entry that has them names them: a plain tap's columns are what they always were.
  ...(draft.note === undefined ? {} : { note: draft.note }),
  ...(draft.countedAt === undefined ? {} : { counted_at: draft.countedAt }),
});

const ChangesSchema = z.array(FieldChangeSchema);
const AdjustedDetailSchema = z
  .object({
    goal: z.number().int().optional(),
    period: z.object({ start: z.number(), end: z.number() }).optional(),
  })
  .nullable();
const OrderDetailSchema = z.object({ from: z.array(z.string()), to: z.array(z.string()) });
const ResetDetailSchema = z.object({
  final: z.number().int(),
  periodStart: z.number(),
  periodEnd: z.number(),
});

/** A new entry as the API will show it once stored (`at`: the batch's time, epoch ms). */
export function draftEntry(draft: ActivityDraft, at: number): ActivityEntry {
  return toActivityEntry({
    id: -1,
    at,
    ...draftColumns(draft),
    undo_of: null,
    undone_by: null,
    note: draft.note ?? null,
    counted_at: draft.countedAt ?? null,
  });
}

/** A stored row as the API shows it. Throws if the row is not a valid entry (never expected). */
export function toActivityEntry(row: ActivityRow): ActivityEntry {
  const base = {
    id: row.id,
    seq: row.seq,
    at: new Date(row.at).toISOString(),
    actor: row.actor,
    // Present only for a tap link's changes: other entries read (and hash) as they always did.
    ...(row.link_id === null ? {} : { link: { id: row.link_id, label: row.link_label ?? '' } }),
    ...(row.import_fingerprint == null
      ? {}
      : { imported: { fingerprint: row.import_fingerprint, hash: row.import_hash ?? null } }),
    ...(row.note == null ? {} : { note: row.note }),
    undoOf: row.undo_of,
    undoneBy: row.undone_by,
  };
  const detail: unknown = row.detail === null ? null : JSON.parse(row.detail);
  // An entry about one counter names it and its value after the change; one about the group
  // (its settings, the order of its counters) has none of the three.
  const ofCounter = {
    counterId: row.counter_id ?? '',
    counterName: row.counter_name ?? '',
    value: row.value_after,
  };
  const ofGroup = { counterId: null, counterName: null, value: null };
  switch (row.kind) {
    case 'counter.adjusted': {
      const delta = row.delta ?? 0;
      const adjusted = AdjustedDetailSchema.parse(detail);
      const period = adjusted?.period;
      return {
        kind: row.kind,
        ...base,
        ...ofCounter,
        delta,
        // Entries written before taps recorded their amounts carry only the delta.
        increments: row.increments ?? Math.max(delta, 0),
        decrements: row.decrements ?? Math.max(-delta, 0),
        reachedGoal: adjusted?.goal ?? null,
        ...(row.counted_at == null ? {} : { countedAt: new Date(row.counted_at).toISOString() }),
        ...(period === undefined
          ? {}
          : {
              correctedPeriod: {
                start: new Date(period.start).toISOString(),
                end: new Date(period.end).toISOString(),
              },
            }),
      };
    }
    case 'counters.reordered': {
      const order = OrderDetailSchema.parse(detail);
      return {
        kind: row.kind,
        ...base,
        ...ofGroup,
        from: order.from,
        to: order.to,
      };
    }
    case 'counter.reset': {
      const period = ResetDetailSchema.parse(detail);
      return {
        kind: row.kind,
        ...base,
        ...ofCounter,
        final: period.final,
        periodStart: new Date(period.periodStart).toISOString(),
        periodEnd: new Date(period.periodEnd).toISOString(),
      };
    }
    case 'counter.updated':
      return {
        kind: row.kind,
        ...base,
        ...ofCounter,
        changes: ChangesSchema.parse(detail),
      };
    case 'counter.created':
    case 'counter.deleted':
      return {
        kind: row.kind,
        ...base,
        ...ofCounter,
        counter: CounterSnapshotSchema.parse(detail),
      };
    case 'group.updated':
      return {
        kind: row.kind,
        ...base,
        ...ofGroup,
        changes: ChangesSchema.parse(detail),
      };
    default:
      throw new Error(`unknown activity kind ${row.kind}`);
  }
}
