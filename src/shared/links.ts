/**
 * Tap links: a link a member with the group's access key hands to a volunteer ("Gate B"), which
 * lets its holder tap the counters in its scope, in the directions it allows, and nothing else
 * (docs/product.md#tap-links). Its key has the access key's format; the server keeps only its
 * SHA-256 and shows the key once, when the link is made. Types are inferred from the schemas.
 */
import { z } from 'zod';
import {
  LINK_MESSAGES,
  TAP_LINK_LABEL_MAX_LENGTH,
  TAP_LINK_SCOPE_MAX_COUNTERS,
} from './link-rules.js';
import { SectionNameSchema } from './section-name.js';
import { sanitizeText } from './rules.js';

export {
  LINK_MESSAGES,
  MAX_TAP_LINKS_PER_GROUP,
  REMEMBERED_REVOKED_LINKS,
  TAP_LINK_LABEL_MAX_LENGTH,
  TAP_LINK_SCOPE_MAX_COUNTERS,
  inScope,
  rightsSummary,
  scopeSummary,
} from './link-rules.js';

/** A counter id a scope names, characters (the API's bound on counter ids in bodies). */
const COUNTER_ID_MAX_LENGTH = 64;

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
