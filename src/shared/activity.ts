/**
 * The activity log: who changed what, when, in a group. Entries are written by the server in the
 * same transaction as the change they describe, so the log and the counters never disagree.
 * Shapes of the activity, undo, history and export endpoints live here, one definition for the
 * server, the web app and the tests.
 */
import { AlertRuleViewSchema } from './alerts.js';
import { z } from 'zod';
import { CounterSchema, GroupSchema, OperationIdSchema } from './api.js';
import { COUNTER_FIELDS, GROUP_FIELDS } from './fields.js';
import {
  ACTIVITY_PAGE_MAX,
  HISTORY_POINTS_MAX,
  MEMBER_NAME_MAX_LENGTH,
  PERIODS_PAGE_MAX,
  UNKNOWN_MEMBER,
} from './limits.js';
import { labelText } from './rules.js';

export type { CounterField, GroupField } from './fields.js';

/** A counter field a `counter.updated` entry can name. */
export const CounterFieldSchema = z.enum(COUNTER_FIELDS);

/** A group field a `group.updated` entry can name. */
export const GroupFieldSchema = z.enum(GROUP_FIELDS);

/** One field's value before and after a change; `sectionMax` names its section. */
export const FieldChangeSchema = z.object({
  field: z.union([CounterFieldSchema, GroupFieldSchema, z.literal('sectionMax')]),
  /** The section whose maximum changed (field `sectionMax` only). */
  section: z.string().optional(),
  from: z.union([z.string(), z.number(), z.null()]),
  to: z.union([z.string(), z.number(), z.null()]),
});
export type FieldChange = z.infer<typeof FieldChangeSchema>;

/**
 * What a created or deleted counter looked like: enough to restore it on undo. Entries written
 * before counters had goals, limits, periods and sections (ADR 19) lack those fields: they read as
 * a counter without any of them.
 */
export const CounterSnapshotSchema = CounterSchema.omit({ version: true }).extend({
  goal: CounterSchema.shape.goal.default(null),
  min: CounterSchema.shape.min.default(null),
  max: CounterSchema.shape.max.default(null),
  reset: CounterSchema.shape.reset.default(null),
  startValue: CounterSchema.shape.startValue.default(0),
  section: CounterSchema.shape.section.default(null),
  periodStart: CounterSchema.shape.periodStart.default(null),
  allTime: CounterSchema.shape.allTime.optional(),
});
export type CounterSnapshot = z.infer<typeof CounterSnapshotSchema>;

const entryBase = {
  /** Increasing across the whole database: newer entries have larger ids. */
  id: z.number().int(),
  /** The group change number of the change this entry records. */
  seq: z.number().int(),
  /** ISO 8601 time of the commit. */
  at: z.string(),
  /** The member's display name, as their browser sent it with the change. */
  actor: z.string(),
  /**
   * The tap link the change was made through ("Ada · Gate B"); absent for changes made with the
   * group's own link (so entries from before tap links read, and hash, as they always did).
   */
  link: z.object({ id: z.string(), label: z.string() }).optional(),
  /**
   * Present on an entry imported from a file (docs/api.md, Import): the fingerprint that
   * recognises it when the file is imported again, and its hash in the log it came from (null
   * when that log had none). Absent on every other entry, which reads and hashes as before.
   */
  imported: z
    .object({
      fingerprint: z
        .string()
        .meta({ examples: ['9c1e7f0a5b2d4c3e8f6a1b0d2c4e6f8a9c1e7f0a5b2d4c3e8f6a1b0d2c4e6f8a'] }),
      hash: z.string().nullable(),
    })
    .optional(),
  /**
   * The member's note on the change ("table 4"), absent when it has none. It may be changed
   * afterwards by its member (PATCH …/activity/{id}), so it is outside the log's hash chain.
   */
  note: z.string().optional(),
  /** The entry this one took back, when it is an undo. */
  undoOf: z.number().int().nullable(),
  /** The entry that took this one back, if any: an entry is undone at most once. */
  undoneBy: z.number().int().nullable(),
};

const counterEntryBase = {
  ...entryBase,
  counterId: z.string(),
  /** The counter's name when the entry was made ("Ada +5 on Coffees"). */
  counterName: z.string(),
  /** The counter's value right after this change, for history charts. */
  value: z.number().int().nullable(),
};

export const ActivityEntrySchema = z.discriminatedUnion('kind', [
  /** Increments and decrements of one member on one counter in one commit, added up. */
  z.object({
    kind: z.literal('counter.adjusted'),
    ...counterEntryBase,
    delta: z.number().int(),
    /** How much of it was added and taken away (amounts, steps included; 0 for older entries). */
    increments: z.number().int(),
    decrements: z.number().int(),
    /** The goal this change reached (once per crossing), or null. */
    reachedGoal: z.number().int().nullable(),
    /**
     * ISO 8601 time the change was counted for, when it was entered afterwards (`at` is when it
     * was recorded); absent for a change counted when it was made.
     */
    countedAt: z.string().optional(),
    /**
     * The ended period whose final total this change corrected (a count for a time in it), with
     * ISO 8601 bounds; absent when the change moved the value.
     */
    correctedPeriod: z.object({ start: z.string(), end: z.string() }).optional(),
  }),
  z.object({
    kind: z.literal('counter.updated'),
    ...counterEntryBase,
    changes: z.array(FieldChangeSchema),
  }),
  z.object({
    kind: z.literal('counter.created'),
    ...counterEntryBase,
    counter: CounterSnapshotSchema,
  }),
  z.object({
    kind: z.literal('counter.deleted'),
    ...counterEntryBase,
    counter: CounterSnapshotSchema,
  }),
  z.object({
    kind: z.literal('group.updated'),
    ...entryBase,
    counterId: z.null(),
    counterName: z.null(),
    value: z.null(),
    changes: z.array(FieldChangeSchema),
  }),
  /** The counters were put in a new order. */
  z.object({
    kind: z.literal('counters.reordered'),
    ...entryBase,
    counterId: z.null(),
    counterName: z.null(),
    value: z.null(),
    /** The order before and after (counter ids). */
    from: z.array(z.string()),
    to: z.array(z.string()),
  }),
  /**
   * A period ended and the counter started over (made by Tally, actor 'Tally'): `final` is the
   * period's last value, `value` the start value it returned to.
   */
  z.object({
    kind: z.literal('counter.reset'),
    ...counterEntryBase,
    final: z.number().int(),
    periodStart: z.string(),
    periodEnd: z.string(),
  }),
]);
export type ActivityEntry = z.infer<typeof ActivityEntrySchema>;
export type ActivityKind = ActivityEntry['kind'];

/** GET /api/groups/{name}/activity answer: newest first. */
/** An entry's hash in the log's chain (ADR 30); null for one written before the log was chained. */
const chainHash = { hash: z.string().nullable() };

/** An activity entry as the JSON export writes it: with its chain hash. */
export const ChainedActivityEntrySchema = z.discriminatedUnion(
  'kind',
  ActivityEntrySchema.options.map((option) => option.extend(chainHash)) as unknown as [
    ChainedOption,
    ...ChainedOption[],
  ],
);
type ChainedOption = z.ZodObject<
  (typeof ActivityEntrySchema.options)[number]['shape'] & typeof chainHash
>;

/**
 * GET …/activity/verify: whether the log's hash chain holds from its anchor to its head, how many
 * entries were checked, and otherwise the first entry that does not follow from the one before.
 */
export const ChainVerdictSchema = z.union([
  z.object({ ok: z.literal(true), checked: z.number().int() }),
  z.object({ ok: z.literal(false), checked: z.number().int(), firstBrokenId: z.number().int() }),
]);
export type ChainVerdictAnswer = z.infer<typeof ChainVerdictSchema>;

export const ActivityPageSchema = z.object({
  entries: z.array(ActivityEntrySchema),
  /** Pass as `before` for the next (older) page; null when this page reaches the beginning. */
  next: z.number().int().nullable(),
});
export type ActivityPage = z.infer<typeof ActivityPageSchema>;

const positiveId = z.coerce
  .number({ error: 'must be a whole number' })
  .int({ error: 'must be a whole number' })
  .positive({ error: 'must be a positive whole number' });

/** Query of GET …/activity: a page older than `before`, or everything newer than `after`. */
export const ActivityQuerySchema = z
  .strictObject({
    before: positiveId.optional(),
    after: z.coerce
      .number({ error: 'must be a whole number' })
      .int({ error: 'must be a whole number' })
      .min(0, { error: 'must be 0 or more' })
      .optional(),
    limit: z.coerce
      .number({ error: 'must be a whole number' })
      .int({ error: 'must be a whole number' })
      .min(1, { error: 'must be at least 1' })
      .max(ACTIVITY_PAGE_MAX, { error: `must be at most ${ACTIVITY_PAGE_MAX}` })
      .default(50),
    counter: z.string().max(64).optional(),
    /** Only entries with a note or counted for an earlier time. */
    noted: z.enum(['true', 'false'], { error: 'must be true or false' }).optional(),
    /** Only this member's noted entries (the log's `actor`; needs `noted=true`). */
    member: z.string().max(MEMBER_NAME_MAX_LENGTH).optional(),
  })
  .refine((query) => query.before === undefined || query.after === undefined, {
    error: 'Use either before or after, not both',
  })
  .refine(
    (query) => query.member === undefined || (query.noted === 'true' && query.after === undefined),
    { error: 'Use member with noted=true, and page it with before, not after' },
  );
export type ActivityQuery = z.output<typeof ActivityQuerySchema>;

/** A point of a counter's value history: epoch ms and the value at that time. */
export const HistoryPointSchema = z.object({ t: z.number(), v: z.number().int() });
export type HistoryPoint = z.infer<typeof HistoryPointSchema>;

export const HistoryQuerySchema = z.strictObject({
  points: z.coerce
    .number({ error: 'must be a whole number' })
    .int({ error: 'must be a whole number' })
    .min(3, { error: 'must be at least 3' })
    .max(HISTORY_POINTS_MAX, { error: `must be at most ${HISTORY_POINTS_MAX}` })
    .default(200),
});

/** GET …/counters/{id}/history: the value over the counter's whole life, oldest first. */
export const CounterHistorySchema = z.object({
  counterId: z.string(),
  points: z.array(HistoryPointSchema),
});
export type CounterHistory = z.infer<typeof CounterHistorySchema>;

/** GET …/history: each counter's most recent values (sparklines), oldest first. */
export const GroupHistorySchema = z.object({
  series: z.record(z.string(), z.array(HistoryPointSchema)),
});
export type GroupHistory = z.infer<typeof GroupHistorySchema>;

export const ExportQuerySchema = z.strictObject({
  format: z.enum(['csv', 'json'], { error: 'format must be csv or json' }).default('json'),
  /** CSV holds one table: the counters (default) or the activity log. JSON holds both. */
  data: z
    .enum(['counters', 'activity', 'periods'], {
      error: 'data must be counters, activity or periods',
    })
    .optional(),
});
export type ExportQuery = z.output<typeof ExportQuerySchema>;

/** An ended period of a counter that resets: when it ran and the value it ended with. */
export const CounterPeriodSchema = z.object({
  counterId: z.string(),
  /** ISO 8601 start and end (the midnight that ended it). */
  start: z.string(),
  end: z.string(),
  /** The value when it ended (the period's total for a counter that starts at 0). */
  value: z.number().int(),
});
export type CounterPeriod = z.infer<typeof CounterPeriodSchema>;

/** GET …/counters/{id}/periods: the counter's ended periods, newest first. */
export const CounterPeriodsSchema = z.object({
  counterId: z.string(),
  periods: z.array(CounterPeriodSchema),
});
export type CounterPeriods = z.infer<typeof CounterPeriodsSchema>;

export const PeriodsQuerySchema = z.strictObject({
  limit: z.coerce
    .number({ error: 'must be a whole number' })
    .int({ error: 'must be a whole number' })
    .min(1, { error: 'must be at least 1' })
    .max(PERIODS_PAGE_MAX, { error: `must be at most ${PERIODS_PAGE_MAX}` })
    .default(100),
});

/** The actor of what Tally itself does (a period's automatic reset). */
export const TALLY_ACTOR = 'Tally';

/** The JSON export: everything a group is, except its key. */
export const GroupExportSchema = z.object({
  exportedAt: z.string(),
  group: GroupSchema,
  counters: z.array(CounterSchema),
  /** Oldest first, each with its chain hash (null: written before the log was chained). */
  activity: z.array(ChainedActivityEntrySchema),
  /**
   * Where the log's hash chain starts (the hash of the last entry pruned) and ends (the newest
   * entry's hash when the export began): scripts/verify-export.mjs checks the file with them.
   */
  chain: z.object({ anchor: z.string().nullable(), head: z.string().nullable() }),
  /** Every ended period of every counter that resets, oldest first. */
  periods: z.array(CounterPeriodSchema),
  /** The group's alert rules, in an export made with its access key (never URLs or secrets). */
  alerts: z.array(AlertRuleViewSchema).optional(),
});
export type GroupExport = z.infer<typeof GroupExportSchema>;

/**
 * A member name as sent with a change: sanitised like every text, cut to a display length. It
 * labels log entries only; it proves nothing (there are no accounts).
 */
export function memberName(raw: string | undefined): string {
  const clean = labelText(raw ?? '', MEMBER_NAME_MAX_LENGTH);
  return clean === '' ? UNKNOWN_MEMBER : clean;
}

/** Body of POST …/undo: take back the change your operation made. */
export const UndoOperationBodySchema = z.strictObject({ opId: OperationIdSchema });
