/**
 * Alerts: a group's rules for telling the outside world (a webhook, Slack, Discord, ntfy, Web
 * Push) that a counter crossed a threshold, and the body a webhook receives. The schemas here are
 * what the API will take and send; which rules fire for a change is decided in
 * src/server/domain/alert-rules.ts. Types are inferred from the schemas.
 *
 * The bounds live here, not in limits.ts, until alerts are part of the product's limits table
 * (docs/product.md#limits); each says why it has its value.
 */
import { z } from 'zod';
import { SectionNameSchema } from './api.js';
import { MAX_VALUE, MIN_VALUE, URL_MAX_LENGTH } from './limits.js';
import { MESSAGES } from './messages.js';
import { normaliseUrl } from './rules.js';

// ---- Bounds ------------------------------------------------------------------------------------

/** Most alert rules one group may hold: each is checked on every change of its counters. */
export const MAX_ALERT_RULES_PER_GROUP = 20;
/**
 * Most distinct destinations (webhook URLs, plus Web Push) one group's rules may send to: a group
 * cannot turn Tally into a fan-out of requests to many addresses.
 */
export const MAX_ALERT_DESTINATIONS_PER_GROUP = 10;
/**
 * Largest body one alert delivery may carry, bytes of UTF-8 JSON (`fitAlertBody` cuts the
 * counter's name to stay within it): small enough for every receiver (ntfy, chat webhooks).
 */
export const ALERT_BODY_MAX_BYTES = 4_096;
/**
 * Most alert deliveries per group and minute, over all its destinations: a counter tapped fast
 * across a threshold and back cannot flood a receiver, nor Tally's outgoing connections.
 */
export const ALERT_DELIVERIES_PER_MINUTE_PER_GROUP = 60;
/**
 * Most events one `every` rule makes for one change: a jump across many multiples (a typed value,
 * `times` of a million) announces only the highest ones, so the work of one change stays small.
 */
export const ALERT_EVERY_MAX_PER_CHANGE = 10;
/** A counter id a rule names, characters (the API's bound on counter ids in bodies). */
const COUNTER_ID_MAX_LENGTH = 64;

/** What the schemas say when a rule is refused; the product's own messages where they fit. */
export const ALERT_MESSAGES = {
  counterAndSection:
    'An alert rule names a counter or a section, not both. Leave both empty for every counter.',
  unknownWhen:
    'An alert must say when it fires: reaches, fallsTo, goal, every, capacity or periodEnd.',
  unknownDestination: 'An alert must say where it goes: webhook or push.',
  unknownFormat: 'A webhook format is standard, slack, discord or ntfy.',
  unknownCapacityState: 'A capacity alert fires on nearlyFull or full.',
  everyTooSmall: 'An alert every N needs N of at least 1.',
  webhookUrlTooLong: `A webhook URL can be at most ${URL_MAX_LENGTH.toLocaleString('en-US')} characters.`,
  counterIdInvalid: `A counter id is 1 to ${String(COUNTER_ID_MAX_LENGTH)} characters.`,
  tooManyRules: `This group has reached its limit of ${String(MAX_ALERT_RULES_PER_GROUP)} alert rules. Delete one to add another.`,
  alertNotFound: 'This alert does not exist (anymore).',
  formatMismatch: (format: string) =>
    `This address already receives this group's alerts in the ${format} format: use the same format for it.`,
  tooManyDestinations: `This group's alerts can go to at most ${String(MAX_ALERT_DESTINATIONS_PER_GROUP)} different places.`,
} as const;

// ---- Rules -------------------------------------------------------------------------------------

/**
 * A threshold: a whole number in the exact range, as a counter's value. The range is checked
 * apart from wholeness (zod's `int()` also refuses unsafe integers), so 2^53 is out of range
 * and nothing else, and 1.5 is not whole and nothing else.
 */
const threshold = z
  .number({ error: MESSAGES.notAnInteger })
  .min(MIN_VALUE, { error: MESSAGES.valueOutOfRange })
  .max(MAX_VALUE, { error: MESSAGES.valueOutOfRange })
  .refine(Number.isInteger, { error: MESSAGES.notAnInteger });

/** The capacity states an alert can watch, from the emptier to the fuller (a card's levels). */
export const ALERT_CAPACITY_STATES = ['nearlyFull', 'full'] as const;
export type AlertCapacityState = (typeof ALERT_CAPACITY_STATES)[number];

/**
 * When a rule fires, for one change of a counter's value from `before` to `after`:
 * - `reaches v`: before < v ≤ after; `fallsTo v`: before > v ≥ after;
 * - `goal`: the change reaches the counter's goal (counted up to or down to, docs/product.md#goals);
 * - `every N`: each positive multiple of N crossed going up (at most ALERT_EVERY_MAX_PER_CHANGE);
 * - `capacity`: the counter enters the state (or a fuller one) or leaves it again;
 * - `periodEnd`: the counter's period ended (docs/product.md#periods), with its total.
 */
export const AlertWhenSchema = z.discriminatedUnion(
  'kind',
  [
    z.strictObject({ kind: z.literal('reaches'), value: threshold }),
    z.strictObject({ kind: z.literal('fallsTo'), value: threshold }),
    z.strictObject({ kind: z.literal('goal') }),
    z.strictObject({
      kind: z.literal('every'),
      value: threshold.min(1, { error: ALERT_MESSAGES.everyTooSmall }),
    }),
    z.strictObject({
      kind: z.literal('capacity'),
      state: z.enum(ALERT_CAPACITY_STATES, { error: ALERT_MESSAGES.unknownCapacityState }),
    }),
    z.strictObject({ kind: z.literal('periodEnd') }),
  ],
  { error: ALERT_MESSAGES.unknownWhen },
);
export type AlertWhen = z.infer<typeof AlertWhenSchema>;
export type AlertWhenKind = AlertWhen['kind'];

/** How a webhook's body is written: Tally's own JSON, or what each service expects. */
export const WEBHOOK_FORMATS = ['standard', 'slack', 'discord', 'ntfy'] as const;
export type WebhookFormat = (typeof WEBHOOK_FORMATS)[number];

/**
 * A webhook's address: a well-formed http(s) URL of at most URL_MAX_LENGTH characters, written
 * as an image URL is (docs/product.md#images: a missing scheme gets https://).
 */
const webhookUrl = z
  .string({ error: MESSAGES.invalidUrl })
  .max(URL_MAX_LENGTH, { error: ALERT_MESSAGES.webhookUrlTooLong })
  .transform((raw, ctx) => {
    const result = normaliseUrl(raw);
    if (!result.ok || result.value === null) {
      ctx.addIssue({ code: 'custom', message: MESSAGES.invalidUrl });
      return z.NEVER;
    }
    return result.value;
  });

/** Where a rule's alerts go: a webhook (its URL is a secret: it is never sent back), Web Push. */
export const AlertDestinationSchema = z.discriminatedUnion(
  'kind',
  [
    z.strictObject({
      kind: z.literal('webhook'),
      url: webhookUrl,
      format: z.enum(WEBHOOK_FORMATS, { error: ALERT_MESSAGES.unknownFormat }),
    }),
    z.strictObject({ kind: z.literal('push') }),
  ],
  { error: ALERT_MESSAGES.unknownDestination },
);
export type AlertDestination = z.infer<typeof AlertDestinationSchema>;

const ruleFields = {
  /** The one counter the rule watches; null with `section` null: every counter of the group. */
  counterId: z
    .string({ error: ALERT_MESSAGES.counterIdInvalid })
    .min(1, { error: ALERT_MESSAGES.counterIdInvalid })
    .max(COUNTER_ID_MAX_LENGTH, { error: ALERT_MESSAGES.counterIdInvalid })
    .nullable()
    .default(null),
  /** The section whose counters the rule watches, named as a counter's section is written. */
  section: SectionNameSchema.nullable().default(null),
  when: AlertWhenSchema,
  to: AlertDestinationSchema,
};

/** A rule scopes to a counter, to a section, or to neither (every counter), never to both. */
const oneScope = (rule: { counterId: string | null; section: string | null }) =>
  rule.counterId === null || rule.section === null;

/**
 * An alert rule as the API takes it. `counterId` and `section` may be left out (null); naming
 * both is refused.
 */
export const AlertRuleInputSchema = z
  .strictObject(ruleFields)
  .refine(oneScope, { error: ALERT_MESSAGES.counterAndSection, path: ['section'] });
export type AlertRuleInput = z.infer<typeof AlertRuleInputSchema>;

/** A stored rule: what the API took, with the id the server gave it. */
export type AlertRule = AlertRuleInput & { id: string };

/** A rule as it is shown back or sent with an alert: its webhook URL (a secret) left out. */
export const AlertRuleSummarySchema = z.object({
  id: z.string(),
  counterId: z.string().nullable(),
  section: z.string().nullable(),
  when: AlertWhenSchema,
  to: z.discriminatedUnion('kind', [
    z.object({ kind: z.literal('webhook'), format: z.enum(WEBHOOK_FORMATS) }),
    z.object({ kind: z.literal('push') }),
  ]),
});
export type AlertRuleSummary = z.infer<typeof AlertRuleSummarySchema>;

/** The rule without its secrets: a webhook's URL (chat and ntfy URLs carry their token). */
export function alertRuleSummary(rule: AlertRule): AlertRuleSummary {
  const { id, counterId, section, when, to } = rule;
  return {
    id,
    counterId,
    section,
    when,
    to: to.kind === 'webhook' ? { kind: 'webhook', format: to.format } : { kind: 'push' },
  };
}

// ---- The webhook's body ------------------------------------------------------------------------

/** What an alert says happened, one type per kind of rule (`capacity` enters and leaves). */
export const ALERT_EVENT_TYPES = [
  'counter.reached',
  'counter.fell',
  'counter.goal',
  'counter.every',
  'counter.capacity',
  'counter.period',
] as const;
export type AlertEventType = (typeof ALERT_EVENT_TYPES)[number];

const isoTime = z.iso.datetime();

const eventBase = {
  /** The group's name (its slug). */
  group: z.string(),
  /** The counter as the change left it. */
  counter: z.object({ id: z.string(), name: z.string(), value: z.number().int() }),
  rule: AlertRuleSummarySchema,
  /** Who made the change; null when no member did (a period ended). */
  by: z.string().nullable(),
  /** When the change was made, ISO 8601. */
  at: isoTime,
  /** Present and true on what "Send test" sends: the rule's alert as it would read, not real. */
  test: z.literal(true).optional(),
  /**
   * How many later alerts of the group were folded into this one: past
   * ALERT_DELIVERIES_PER_MINUTE_PER_GROUP a destination gets one alert for all that waited.
   */
  folded: z.number().int().min(1).optional(),
};

/**
 * The JSON a `standard` webhook receives (the other formats are written from it). Events of
 * `every` say which multiple was crossed; of `capacity`, which state was entered or left; of
 * `period`, the ended period and its total.
 */
export const AlertEventBodySchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('counter.reached'), ...eventBase }),
  z.object({ type: z.literal('counter.fell'), ...eventBase }),
  z.object({ type: z.literal('counter.goal'), ...eventBase }),
  z.object({ type: z.literal('counter.every'), ...eventBase, multiple: z.number().int() }),
  z.object({
    type: z.literal('counter.capacity'),
    ...eventBase,
    capacity: z.object({
      state: z.enum(ALERT_CAPACITY_STATES),
      change: z.enum(['entered', 'left']),
    }),
  }),
  z.object({
    type: z.literal('counter.period'),
    ...eventBase,
    period: z.object({ start: isoTime, end: isoTime, total: z.number().int() }),
  }),
]);
export type AlertEventBody = z.infer<typeof AlertEventBodySchema>;

/** The size of a body as sent: UTF-8 bytes of its JSON. */
export function alertBodyBytes(body: AlertEventBody): number {
  return new TextEncoder().encode(JSON.stringify(body)).length;
}

/**
 * The body within ALERT_BODY_MAX_BYTES: the counter's name (up to 1000 characters, the only
 * long text in it) is cut, never through an emoji, until it fits. Every other field is bounded
 * well below the limit (slug, member name, section, ids).
 */
export function fitAlertBody(body: AlertEventBody): AlertEventBody {
  const over = alertBodyBytes(body) - ALERT_BODY_MAX_BYTES;
  if (over <= 0) return body;
  const characters = Array.from(body.counter.name);
  const nameBytes = (count: number) =>
    new TextEncoder().encode(JSON.stringify(characters.slice(0, count).join(''))).length;
  const budget = nameBytes(characters.length) - over;
  // The longest prefix whose JSON string fits in what is left for the name.
  let low = 0;
  let high = characters.length;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (nameBytes(middle) <= budget) low = middle;
    else high = middle - 1;
  }
  return { ...body, counter: { ...body.counter, name: characters.slice(0, low).join('') } };
}

// ---- What the API answers ----------------------------------------------------------------------

/**
 * Where a destination stands: `new` until its first delivery ends, `ok` when the last one
 * arrived, `retrying` while an alert is being retried, `failing` once one was given up after
 * ALERT_GIVE_UP_AFTER_MS (until a later delivery arrives).
 */
export const ALERT_DESTINATION_STATES = ['new', 'ok', 'retrying', 'failing'] as const;
export type AlertDestinationState = (typeof ALERT_DESTINATION_STATES)[number];

/** How long an alert is retried before it is given up and its destination marked failing. */
export const ALERT_GIVE_UP_AFTER_MS = 24 * 60 * 60 * 1000;
/** Attempts kept per destination in its delivery log (older ones are forgotten). */
export const ALERT_DELIVERY_LOG_LENGTH = 100;
/**
 * Most browsers subscribed to one group's Web Push: past it, a new subscription replaces the
 * group's oldest, so nobody can lock the others out by filling the list.
 */
export const MAX_PUSH_SUBSCRIPTIONS_PER_GROUP = 50;

/** A rule's destination as members see it: never its URL (a secret), only the host. */
export const AlertDestinationViewSchema = z.object({
  id: z.string(),
  kind: z.enum(['webhook', 'push']),
  /** A webhook's format; null for Web Push. */
  format: z.enum(WEBHOOK_FORMATS).nullable(),
  /** The host a webhook sends to (hooks.slack.com, ntfy.sh); null for Web Push. */
  host: z.string().nullable(),
  state: z.enum(ALERT_DESTINATION_STATES),
  /** Web Push: how many browsers of the group are subscribed; null for a webhook. */
  subscribers: z.number().int().nullable(),
});
export type AlertDestinationView = z.infer<typeof AlertDestinationViewSchema>;

/** A rule as GET /alerts lists it. */
export const AlertRuleViewSchema = AlertRuleSummarySchema.extend({
  createdAt: isoTime,
  destination: AlertDestinationViewSchema,
});
export type AlertRuleView = z.infer<typeof AlertRuleViewSchema>;

/** GET /api/groups/{name}/alerts: the rules, oldest first, and the group's bounds. */
export const AlertListSchema = z.object({
  rules: z.array(AlertRuleViewSchema),
  limits: z.object({ rules: z.number().int(), destinations: z.number().int() }),
});
export type AlertList = z.infer<typeof AlertListSchema>;

/**
 * POST /api/groups/{name}/alerts: the new rule, and, when it made a new `standard` destination,
 * that destination's signing secret: shown this once, never again.
 */
export const AlertCreatedSchema = z.object({
  rule: AlertRuleViewSchema,
  secret: z.string().optional(),
});
export type AlertCreated = z.infer<typeof AlertCreatedSchema>;

/**
 * How one delivery attempt ended: `delivered` (a 2xx answer), `failed` (it will be tried again),
 * `gaveUp` (the last try, after ALERT_GIVE_UP_AFTER_MS, or an answer that will not change: the
 * address refused, a push subscription gone).
 */
export const ALERT_DELIVERY_OUTCOMES = ['delivered', 'failed', 'gaveUp'] as const;
export type AlertDeliveryOutcome = (typeof ALERT_DELIVERY_OUTCOMES)[number];

/** One attempt in a destination's delivery log. */
export const AlertDeliverySchema = z.object({
  id: z.number().int(),
  at: isoTime,
  /** The alert's event type (shared by its retries). */
  type: z.enum(ALERT_EVENT_TYPES),
  test: z.boolean(),
  outcome: z.enum(ALERT_DELIVERY_OUTCOMES),
  /** The receiver's HTTP status; null when none came (a timeout, a refused address). */
  status: z.number().int().nullable(),
  /** What went wrong, in words; null when delivered. */
  error: z.string().nullable(),
  /** 1 for the first try of the alert, 2 for its first retry… */
  attempt: z.number().int(),
  /** From sending the request to the answer, milliseconds. */
  durationMs: z.number().int(),
});
export type AlertDelivery = z.infer<typeof AlertDeliverySchema>;

/** GET /api/groups/{name}/alerts/{id}/deliveries: the destination's log, newest first. */
export const AlertDeliveriesSchema = z.object({ deliveries: z.array(AlertDeliverySchema) });

/** POST /api/groups/{name}/alerts/{id}/test: the test's one attempt, made before answering. */
export const AlertTestResultSchema = z.object({ delivery: AlertDeliverySchema });

/** GET /api/push/key: the server's VAPID public key, for PushManager.subscribe. */
export const PushKeySchema = z.object({ publicKey: z.string() });
