/**
 * Tap links: a link a member with the group's access key hands to a volunteer ("Gate B"), which
 * lets its holder tap the counters in its scope, in the directions it allows, and nothing else
 * (docs/product.md#tap-links). Its key has the access key's format; the server keeps only its
 * SHA-256 and shows the key once, when the link is made. Types are inferred from the schemas.
 */
import { z } from 'zod';
import type { Counter } from './api.js';
import { SectionNameSchema } from './section-name.js';
import { sanitizeText } from './rules.js';

// ---- Bounds ------------------------------------------------------------------------------------

/**
 * Most tap links one group may have at once: every call with a key that is not the group's own
 * compares it with each of them, and an event has a handful of doors, not hundreds.
 */
export const MAX_TAP_LINKS_PER_GROUP = 50;
/**
 * Revoked links remembered per group (newest first), so a revoked link's holder is told it was
 * revoked rather than that the key is wrong; older ones are forgotten and read as wrong keys.
 */
export const REMEMBERED_REVOKED_LINKS = 50;
/** A link's label, characters (after sanitising): it stands beside a member's name in the log. */
export const TAP_LINK_LABEL_MAX_LENGTH = 40;
/** Counters a scope may name: the group's own bound on counters. */
export const TAP_LINK_SCOPE_MAX_COUNTERS = 500;
/** A counter id a scope names, characters (the API's bound on counter ids in bodies). */
const COUNTER_ID_MAX_LENGTH = 64;

export const LINK_MESSAGES = {
  labelEmpty: 'A tap link needs a label, such as the door or desk it is for.',
  canEmpty: 'A tap link must be allowed to count up, count down, or both.',
  scopeInvalid:
    'A tap link’s scope is every counter ({"all": true}), chosen counters ({"counterIds": […]}) or one section ({"section": "…"}).',
  tooManyLinks: `This group has reached its limit of ${String(MAX_TAP_LINKS_PER_GROUP)} tap links. Revoke one to make another.`,
  linkNotFound: 'This tap link does not exist (anymore).',
  tapOnly: 'This is a tap link: it can only count the counters it was made for.',
  revoked: 'This tap link was revoked. Ask the group for a new link.',
  unknownCounter: (id: string) => `This group has no counter with the id ${id}.`,
} as const;

// ---- Schemas -----------------------------------------------------------------------------------

export const TapRightSchema = z.enum(['increment', 'decrement']);
export type TapRight = z.infer<typeof TapRightSchema>;

/** Which counters a link may see and tap: every one, these, or those of one section. */
export const TapLinkScopeSchema = z.union(
  [
    z.strictObject({ all: z.literal(true) }),
    z.strictObject({
      counterIds: z
        .array(z.string().min(1).max(COUNTER_ID_MAX_LENGTH))
        .min(1)
        .max(TAP_LINK_SCOPE_MAX_COUNTERS)
        .transform((ids) => [...new Set(ids)]),
    }),
    z.strictObject({ section: SectionNameSchema }),
  ],
  { error: LINK_MESSAGES.scopeInvalid },
);
export type TapLinkScope = z.output<typeof TapLinkScopeSchema>;

/** A scope as the server answers it (already cleaned: no transforms, so JSON Schema can say it). */
export const TapLinkScopeViewSchema = z.union([
  z.object({ all: z.literal(true) }),
  z.object({ counterIds: z.array(z.string()) }),
  z.object({ section: z.string() }),
]);

const LabelSchema = z
  .string({ error: LINK_MESSAGES.labelEmpty })
  .max(10_000)
  .transform(sanitizeText)
  .transform((text) => Array.from(text).slice(0, TAP_LINK_LABEL_MAX_LENGTH).join(''))
  .refine((text) => text !== '', { error: LINK_MESSAGES.labelEmpty });

const RightsSchema = z
  .array(TapRightSchema)
  .min(1, { error: LINK_MESSAGES.canEmpty })
  .max(2)
  .transform((rights) => TapRightSchema.options.filter((right) => rights.includes(right)));

/** POST /api/groups/{name}/links body. */
export const TapLinkBodySchema = z.strictObject({
  label: LabelSchema,
  scope: TapLinkScopeSchema,
  can: RightsSchema.default(['increment', 'decrement']),
});
export type TapLinkBody = z.output<typeof TapLinkBodySchema>;
export type TapLinkBodyInput = z.input<typeof TapLinkBodySchema>;

/** What a tap link's holder is: the link's id, label, scope and rights (never its key). */
export const TapGrantSchema = z.object({
  id: z.string(),
  label: z.string(),
  scope: TapLinkScopeViewSchema,
  can: z.array(TapRightSchema),
});
export type TapGrant = z.infer<typeof TapGrantSchema>;

/** A link as GET …/links lists it: never its key. */
export const TapLinkViewSchema = TapGrantSchema.extend({
  createdAt: z.string(),
  /** The time of its newest tap in the activity log; null when the log holds none. */
  lastUsedAt: z.string().nullable(),
  /** Taps made through it that the activity log still holds (amounts: steps included). */
  taps: z.number().int(),
});
export type TapLinkView = z.infer<typeof TapLinkViewSchema>;

export const TapLinkListSchema = z.object({
  links: z.array(TapLinkViewSchema),
  limits: z.object({ links: z.number().int() }),
});
export type TapLinkList = z.infer<typeof TapLinkListSchema>;

/**
 * POST …/links answer: the link with its key, shown this once. A retry with the same
 * Idempotency-Key answers the same link without its key (it is not stored).
 */
export const TapLinkCreatedSchema = TapGrantSchema.extend({ key: z.string().optional() });
export type TapLinkCreated = z.infer<typeof TapLinkCreatedSchema>;

// ---- Rules -------------------------------------------------------------------------------------

/** Whether a counter is in a link's scope (a section scope follows the counter's section now). */
export function inScope(scope: TapLinkScope, counter: Pick<Counter, 'id' | 'section'>): boolean {
  if ('all' in scope) return true;
  if ('section' in scope) return counter.section === scope.section;
  return scope.counterIds.includes(counter.id);
}

/** The link's scope in words, for the share dialog and the owner's list. */
export function scopeSummary(scope: TapLinkScope, counterCount?: number): string {
  if ('all' in scope) return 'Every counter';
  if ('section' in scope) return `Section ${scope.section}`;
  const n = counterCount ?? scope.counterIds.length;
  return n === 1 ? '1 counter' : `${String(n)} counters`;
}

/** What a link may do, in words. */
export function rightsSummary(can: readonly TapRight[]): string {
  if (can.includes('increment') && can.includes('decrement')) return 'Count up and down';
  return can.includes('increment') ? 'Count up only' : 'Count down only';
}
