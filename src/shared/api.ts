/**
 * The public data shapes and request bodies of the HTTP API and the live channel, as zod schemas.
 * Types are inferred from the schemas so the server, the web app and the tests cannot drift apart.
 * Request schemas apply the product's rules (sanitising, URL normalising; docs/product.md#rules)
 * as they parse, so whatever passes them is ready to store.
 */
import { z } from 'zod';
import { ImportSummarySchema } from './import.js';
import { RESET_PERIODS, type CounterField, type GroupField } from './fields.js';
import {
  MAX_STEP,
  ORDER_MAX_COUNTERS,
  SECTION_NAME_MAX_LENGTH,
  TALLIES_MAX_ROWS,
  TIME_ZONE_MAX_LENGTH,
  MAX_TIMES,
  MAX_VALUE,
  MIN_STEP,
  MIN_VALUE,
  NOTE_MAX_LENGTH,
  URL_MAX_LENGTH,
} from './limits.js';
import { NOTE_MESSAGES } from './note-messages.js';
import { MESSAGES } from './messages.js';
import { OPERATION_ID_PATTERN } from './operation-ids.js';
import {
  canonicalTimeZone,
  isValidKeyFormat,
  labelText,
  normaliseUrl,
  sanitizeText,
} from './rules.js';
import { TapGrantSchema } from './links.js';
import { SectionNameSchema } from './section-name.js';

// ---- Resources -------------------------------------------------------------------------------

/** How each editable group field (shared/fields.ts) looks in answers. */
const GROUP_FIELD_TYPES = {
  displayName: z.string(),
  profileImageUrl: z.string().nullable(),
  /** IANA time zone of the group's midnights (counters' periods); 'UTC' until a member sets one. */
  timeZone: z.string(),
  /** The first day of a week for weekly periods, ISO: 1 = Monday … 7 = Sunday. */
  weekStart: z.number().int(),
} satisfies Record<GroupField, z.ZodType>;

export const GroupSchema = z.object({
  id: z.string(),
  /** The group's slug (its URL name): set at creation, never edited. */
  name: z.string(),
  ...GROUP_FIELD_TYPES,
  /** Sections with a maximum (capacity across their counters): section name → maximum. */
  sectionLimits: z.record(z.string(), z.number().int()),
});
export type Group = z.infer<typeof GroupSchema>;

/** How each editable counter field (shared/fields.ts) looks in answers. */
const COUNTER_FIELD_TYPES = {
  name: z.string(),
  description: z.string(),
  value: z.number().int(),
  incrementStep: z.number().int(),
  decrementStep: z.number().int(),
  thumbnailUrl: z.string().nullable(),
  /** The value to reach: progress shows toward it, and reaching it is announced once per crossing. */
  goal: z.number().int().nullable(),
  /** The value never goes below `min` nor above `max` (changes that would are refused). */
  min: z.number().int().nullable(),
  max: z.number().int().nullable(),
  /** Starts over at every midnight, Monday (the group's week start) or first of the month. */
  reset: z.enum(RESET_PERIODS).nullable(),
  /** What the value returns to when a period starts. */
  startValue: z.number().int(),
  /** The section the counter is shown under, with the section's live subtotal. */
  section: z.string().nullable(),
} satisfies Record<CounterField, z.ZodType>;

export const CounterSchema = z.object({
  id: z.string(),
  ...COUNTER_FIELD_TYPES,
  /** ISO 8601 start of the current period; null for a counter that never resets. */
  periodStart: z.string().nullable(),
  /** Every ended period's final value plus the current value (the value itself without resets). */
  allTime: z.number().int(),
  /** ISO 8601 timestamp. */
  createdAt: z.string(),
  /** The group sequence number of this counter's last change; newer changes have larger ones. */
  version: z.number().int(),
});
export type Counter = z.infer<typeof CounterSchema>;

/** GET /api/groups/{name}: what anyone may see of a group (the landing page needs it). */
export const GroupPreviewSchema = z.object({
  name: z.string(),
  profileImageUrl: z.string().nullable(),
});
export type GroupPreview = z.infer<typeof GroupPreviewSchema>;

/**
 * What a key lets its holder do: `full` (the group's access key), `view` (its view-only link:
 * see everything live, change nothing) or `tap` (a tap link: see and tap the counters of its
 * scope, nothing else; src/shared/links.ts).
 */
export const AccessLevelSchema = z.enum(['full', 'view', 'tap']);
export type AccessLevel = z.infer<typeof AccessLevelSchema>;

/** POST /api/groups/{name}/join answer. `seq` is the group's latest change number. */
export const GroupSnapshotSchema = z.object({
  group: GroupSchema,
  counters: z.array(CounterSchema),
  seq: z.number().int(),
  access: AccessLevelSchema,
  /** With a tap link's key: the link (its label, scope and rights); the counters are its scope's. */
  link: TapGrantSchema.optional(),
});
export type GroupSnapshot = z.infer<typeof GroupSnapshotSchema>;
/** A group's state, the same for every member (the live channel adds each socket's access). */
export type GroupView = Omit<GroupSnapshot, 'access' | 'link'>;

export const ErrorCodeSchema = z.enum([
  'invalid_group_name',
  'missing_key',
  'invalid_key_format',
  'wrong_key',
  'group_not_found',
  'counter_not_found',
  'validation_failed',
  'value_out_of_range',
  'payload_too_large',
  'rate_limited',
  'activity_not_found',
  'already_undone',
  'read_only',
  'not_found',
  'internal_error',
  // Quotas, overload and storage health (docs/api.md#limits, docs/api.md#health, ADR 13).
  'operation_id_reused',
  'too_many_counters',
  'too_many_groups',
  'too_many_connections',
  // Heavy reads (exports, history, the chain check, large activity pages) per address (ADR 34).
  'too_many_reads',
  'busy',
  'storage_unavailable',
  'request_timeout',
  'headers_too_large',
  // GET /metrics without the operator's token (docs/api.md#metrics).
  'invalid_metrics_token',
  // A change that would take a counter (or a section) past its limit; an undo that cannot be
  // applied (an automatic reset, a change of an ended period). See docs/product.md#limits.
  'limit_reached',
  'cannot_undo',
  // PUT …/order without every counter of the group exactly once (docs/product.md#order).
  'invalid_order',
  // ADR 24: a numbered tap too far behind its session's newest number to be checked.
  'operation_expired',
  // Alerts (docs/alerts.md): a rule that is not there, a group at its bound of rules or
  // destinations, a destination whose address may not be reached.
  'alert_not_found',
  'too_many_alerts',
  'destination_refused',
  // Tap links (src/shared/links.ts): a change a tap link may not make, a link that is not there,
  // a group at its bound of links.
  'tap_only',
  'link_not_found',
  'too_many_links',
  // Import (docs/api.md#import): a file that cannot be read (its first problem's line and
  // column), an import that would pass the group's bound of activity entries.
  'import_invalid',
  'too_many_entries',
  // A note changed on another member's entry, or too long after the change (ADR 36).
  'not_your_entry',
  'note_edit_closed',
]);
export type ErrorCode = z.infer<typeof ErrorCodeSchema>;

export const ApiErrorSchema = z.object({
  error: z.object({ code: ErrorCodeSchema, message: z.string() }),
});
export type ApiError = z.infer<typeof ApiErrorSchema>;

// ---- Field rules -----------------------------------------------------------------------------

/** Raw text cap before sanitising, characters: sanitising then cuts to TEXT_MAX_LENGTH (1000). */
const RAW_TEXT_MAX = 10_000;

const sanitizedText = z.string().max(RAW_TEXT_MAX).transform(sanitizeText);

const integerValue = z
  .number({ error: MESSAGES.notAnInteger })
  .int({ error: MESSAGES.notAnInteger })
  .min(MIN_VALUE, { error: MESSAGES.valueOutOfRange })
  .max(MAX_VALUE, { error: MESSAGES.valueOutOfRange });

const step = z
  .number({ error: MESSAGES.notAnInteger })
  .int({ error: MESSAGES.notAnInteger })
  .min(MIN_STEP, { error: MESSAGES.stepTooSmall })
  .max(MAX_STEP, { error: MESSAGES.valueOutOfRange });

/**
 * Image URLs (docs/product.md#images): blank or null clears; missing scheme gets https://; only
 * http(s).
 */
const imageUrl = z
  .string({ error: MESSAGES.invalidUrl })
  .max(URL_MAX_LENGTH, { error: MESSAGES.invalidUrl })
  .nullable()
  .transform((raw, ctx) => {
    const result = normaliseUrl(raw);
    if (!result.ok) {
      ctx.addIssue({ code: 'custom', message: result.message });
      return z.NEVER;
    }
    return result.value;
  });

export const AccessKeySchema = z
  .string({ error: MESSAGES.invalidKeyFormat })
  .refine(isValidKeyFormat, { error: MESSAGES.invalidKeyFormat });

/**
 * An opaque operation id, or a numbered one (`<session>.<n>`, ADR 24): a numbered tap costs its
 * group one row per session instead of one row per tap. shared/operation-ids.ts parses it.
 */
export const OperationIdSchema = z.string().regex(OPERATION_ID_PATTERN, {
  error: MESSAGES.invalidOperationId,
});

/** A counter's goal, limits and start value: whole numbers in the exact range, or none. */
const optionalInteger = integerValue.nullable();

/** A section name: sanitised text cut to its length; blank means no section. */
const sectionName = sanitizedText.transform((text) =>
  text === '' ? null : Array.from(text).slice(0, SECTION_NAME_MAX_LENGTH).join(''),
);

/** A section named in a path or a body: blank is refused. */
export { SectionNameSchema };

/** An IANA time zone the runtime knows, stored under its canonical name ('utc' → 'UTC'). */
const timeZone = z
  .string({ error: MESSAGES.invalidTimeZone })
  .max(TIME_ZONE_MAX_LENGTH, { error: MESSAGES.invalidTimeZone })
  .transform((raw, ctx) => {
    const zone = canonicalTimeZone(raw);
    if (zone === null) {
      ctx.addIssue({ code: 'custom', message: MESSAGES.invalidTimeZone });
      return z.NEVER;
    }
    return zone;
  });

const weekStart = z
  .number({ error: MESSAGES.invalidWeekStart })
  .int({ error: MESSAGES.invalidWeekStart })
  .min(1, { error: MESSAGES.invalidWeekStart })
  .max(7, { error: MESSAGES.invalidWeekStart });

const nonEmpty = (value: object) => Object.keys(value).length > 0;

/** min ≤ max when a body sets both (a body setting one is checked against the stored other). */
const limitsInOrder = (value: { min?: number | null; max?: number | null }) =>
  value.min === undefined ||
  value.min === null ||
  value.max === undefined ||
  value.max === null ||
  value.min <= value.max;
const NOTHING_TO_UPDATE = 'Nothing to update';

// ---- Request bodies --------------------------------------------------------------------------

export const JoinBodySchema = z.strictObject({ key: AccessKeySchema });

/** POST /api/groups/{name}/key: the group's new access key (made in the browser, like any key). */
/**
 * POST …/key body. Tap links keep working across a rotation unless `revokeTapLinks` is true
 * (the owner suspects a leak of every link, not only of the access key).
 */
export const RotateKeyBodySchema = z.strictObject({
  key: AccessKeySchema,
  revokeTapLinks: z.boolean().default(false),
});

/** GET/POST /api/groups/{name}/view-key answer: the view-only link's key, null when off. */
export const ViewKeySchema = z.object({ viewKey: z.string().nullable() });
export type ViewKey = z.infer<typeof ViewKeySchema>;
export type JoinBody = z.input<typeof JoinBodySchema>;

/** The rule each editable group field's new value must pass, cleaning it as it parses. */
const GROUP_FIELD_RULES = {
  displayName: sanitizedText.refine((name) => name !== '', { error: MESSAGES.displayNameEmpty }),
  profileImageUrl: imageUrl,
  timeZone,
  weekStart,
} satisfies Record<GroupField, z.ZodType>;

export const GroupPatchSchema = z
  .strictObject(GROUP_FIELD_RULES)
  .partial()
  .refine(nonEmpty, { error: NOTHING_TO_UPDATE });
export type GroupPatchInput = z.input<typeof GroupPatchSchema>;
export type GroupPatch = z.output<typeof GroupPatchSchema>;

/** The rule each editable counter field's new value must pass, cleaning it as it parses. */
const COUNTER_FIELD_RULES = {
  name: sanitizedText,
  description: sanitizedText,
  value: integerValue,
  incrementStep: step,
  decrementStep: step,
  thumbnailUrl: imageUrl,
  goal: optionalInteger,
  min: optionalInteger,
  max: optionalInteger,
  reset: z
    .enum(RESET_PERIODS, { error: 'reset must be daily, weekly, monthly or null' })
    .nullable(),
  startValue: integerValue,
  section: sectionName.nullable(),
} satisfies Record<CounterField, z.ZodType>;

/** Any of a counter's editable fields, no others. */
const CounterFieldsSchema = z.strictObject(COUNTER_FIELD_RULES).partial();

export const CounterPatchSchema = CounterFieldsSchema.refine(nonEmpty, {
  error: NOTHING_TO_UPDATE,
}).refine(limitsInOrder, { error: MESSAGES.minAboveMax, path: ['min'] });
export type CounterPatchInput = z.input<typeof CounterPatchSchema>;
export type CounterPatch = z.output<typeof CounterPatchSchema>;

/**
 * POST …/counters: every field optional; a new counter's defaults fill the rest (named New Counter,
 * value 0, steps 1, no goal, limits, period or section).
 */
export const CreateCounterBodySchema = CounterFieldsSchema.extend({
  opId: OperationIdSchema.optional(),
}).refine(limitsInOrder, { error: MESSAGES.minAboveMax, path: ['min'] });

/** A new counter's fields (the mutation's; the body without its operation id). */
const CreateCounterFieldsSchema = CounterFieldsSchema.refine(limitsInOrder, {
  error: MESSAGES.minAboveMax,
  path: ['min'],
});
export type CreateCounterInput = z.input<typeof CreateCounterBodySchema>;

export const TimesSchema = z
  .number({ error: MESSAGES.notAnInteger })
  .int({ error: MESSAGES.notAnInteger })
  .min(1, { error: 'times must be at least 1' })
  .max(MAX_TIMES, { error: `times must be at most ${MAX_TIMES}` });

/**
 * A note on a change ("table 4", "refund"): cleaned like a member name; more than
 * NOTE_MAX_LENGTH characters is refused, never cut (the member would not see what was lost).
 * Blank is no note.
 */
export const NoteSchema = z
  .string({ error: NOTE_MESSAGES.noteTooLong(NOTE_MAX_LENGTH) })
  .max(RAW_TEXT_MAX, { error: NOTE_MESSAGES.noteTooLong(NOTE_MAX_LENGTH) })
  .transform((raw, ctx) => {
    const note = labelText(raw, RAW_TEXT_MAX);
    if (Array.from(note).length > NOTE_MAX_LENGTH) {
      ctx.addIssue({ code: 'custom', message: NOTE_MESSAGES.noteTooLong(NOTE_MAX_LENGTH) });
      return z.NEVER;
    }
    return note;
  });

/** An ISO 8601 date and time with its zone (Z or ±hh:mm), seconds and milliseconds optional. */
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * When a change happened, if earlier than now (a count entered afterwards): an ISO 8601 time,
 * read as epoch ms. Its bounds (not later than now, not earlier than the activity log keeps,
 * not before the counter) are the commit's to check, against the server's clock.
 */
export const CountedAtSchema = z
  .string({ error: NOTE_MESSAGES.invalidCountedAt })
  .max(40, { error: NOTE_MESSAGES.invalidCountedAt })
  .transform((raw, ctx) => {
    const ms = ISO_TIME.test(raw) ? Date.parse(raw) : NaN;
    if (!Number.isFinite(ms)) {
      ctx.addIssue({ code: 'custom', message: NOTE_MESSAGES.invalidCountedAt });
      return z.NEVER;
    }
    return ms;
  });

/** A tap's optional note and earlier time (absent from a plain tap, which stays as it was). */
const tapContext = {
  note: NoteSchema.optional(),
  at: CountedAtSchema.optional(),
};

/** POST …/increment and …/decrement. */
export const AdjustBodySchema = z.strictObject({
  times: TimesSchema.default(1),
  opId: OperationIdSchema.optional(),
  ...tapContext,
});

/** PATCH …/activity/{id}: the entry's new note (blank removes it). */
export const NoteBodySchema = z.strictObject({ note: NoteSchema });
export type AdjustInput = z.input<typeof AdjustBodySchema>;

// ---- Mutations: what REST routes and the live channel both turn into -------------------------

/**
 * PUT …/order: every counter of the group, each once, in the new order (checked against the
 * group when it is applied: 422 invalid_order).
 */
export const OrderBodySchema = z.strictObject({
  counterIds: z.array(z.string().max(64)).max(ORDER_MAX_COUNTERS),
});
export type OrderInput = z.input<typeof OrderBodySchema>;

/** The answer of PUT …/order: the group's counter ids in their new order. */
export const CounterOrderSchema = z.object({ counterIds: z.array(z.string()) });
export type CounterOrder = z.infer<typeof CounterOrderSchema>;

/** PUT …/sections/{section}: the section's maximum (capacity across its counters), null for none. */
export const SectionBodySchema = z.strictObject({
  max: integerValue.min(0, { error: MESSAGES.valueOutOfRange }).nullable(),
});
export type SectionInput = z.input<typeof SectionBodySchema>;

/** GET …/tallies query: one counter's or every counter's, since a time or over the whole log. */
export const TalliesQuerySchema = z.strictObject({
  counterId: z.string().max(64).optional(),
  /**
   * `member` (one row per member, tap link and counter) or `link` (one row per tap link and
   * counter, every member's taps through it together; taps made with the group's own link make
   * the row whose `link` is null).
   */
  by: z.enum(['member', 'link']).default('member'),
  /** ISO 8601 time or epoch ms: only changes at or after it count. */
  since: z
    .string()
    .max(40)
    .transform((raw, ctx) => {
      const ms = /^\d+$/.test(raw) ? Number(raw) : Date.parse(raw);
      if (!Number.isFinite(ms)) {
        ctx.addIssue({ code: 'custom', message: 'since must be an ISO 8601 time or epoch ms' });
        return z.NEVER;
      }
      return ms;
    })
    .optional(),
});
export type TalliesQuery = z.output<typeof TalliesQuerySchema>;

/**
 * One member's taps on one counter, from the activity log: how much they added and took away
 * (amounts, steps included). Undone taps and undos do not count.
 */
export const TallySchema = z.object({
  /** The member's name; empty in rows grouped by link. */
  member: z.string(),
  /** The label of the tap link the taps were made through; null: the group's own link. */
  link: z.string().nullable(),
  counterId: z.string(),
  increments: z.number().int(),
  decrements: z.number().int(),
  net: z.number().int(),
});
export type Tally = z.infer<typeof TallySchema>;
export const TalliesSchema = z.array(TallySchema).max(TALLIES_MAX_ROWS);

export const AdjustDirectionSchema = z.enum(['increment', 'decrement']);
export type AdjustDirection = z.infer<typeof AdjustDirectionSchema>;

export const MutationSchema = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('createCounter'),
    fields: CreateCounterFieldsSchema.default({}),
  }),
  z.strictObject({
    kind: z.literal('updateCounter'),
    counterId: z.string().max(64),
    patch: CounterPatchSchema,
  }),
  z.strictObject({
    kind: z.literal('adjustCounter'),
    counterId: z.string().max(64),
    direction: AdjustDirectionSchema,
    times: TimesSchema.default(1),
    /** A note for the activity log; an earlier time the taps are counted for (epoch ms once parsed). */
    ...tapContext,
  }),
  z.strictObject({ kind: z.literal('deleteCounter'), counterId: z.string().max(64) }),
  z.strictObject({ kind: z.literal('updateGroup'), patch: GroupPatchSchema }),
  /** Puts the group's counters in this order (every counter once). */
  z.strictObject({
    kind: z.literal('reorderCounters'),
    counterIds: OrderBodySchema.shape.counterIds,
  }),
  /** Sets or clears a section's maximum. */
  z.strictObject({
    kind: z.literal('updateSection'),
    section: SectionNameSchema,
    max: SectionBodySchema.shape.max,
  }),
  /** Takes back one activity entry by applying its inverse (see src/server/domain/inverse.ts). */
  z.strictObject({
    kind: z.literal('undoEntry'),
    entryId: z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
  }),
  /** Takes back the activity entry that the given operation id of this group made. */
  z.strictObject({ kind: z.literal('undoOperation'), opId: OperationIdSchema }),
]);
export type MutationInput = z.input<typeof MutationSchema>;
export type Mutation = z.output<typeof MutationSchema>;

/** The outcome of one mutation: the row after it, or the id of what was deleted. */
export const MutationResultSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('counter'), counter: CounterSchema, created: z.boolean() }),
  z.object({ kind: z.literal('group'), group: GroupSchema }),
  z.object({ kind: z.literal('deleted'), counterId: z.string() }),
  z.object({ kind: z.literal('order'), counterIds: z.array(z.string()) }),
  /** An import (POST …/import): what it created, changed and added. */
  z.object({ kind: z.literal('imported'), summary: ImportSummarySchema }),
]);
export type MutationResult = z.infer<typeof MutationResultSchema>;
