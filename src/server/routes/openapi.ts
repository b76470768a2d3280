/**
 * The OpenAPI 3.1 document of the HTTP API, built once at start from the route table
 * (operations.ts, and the alert routes' below) and the shared zod schemas, with zod's own JSON
 * Schema (draft 2020-12, the dialect OpenAPI 3.1 uses). Request parts are described as the
 * schemas accept them (`io: 'input'`), answers as the server sends them (`io: 'output'`: objects
 * list every field and no others, so an answer that gains or loses a field no longer matches).
 */
import { z } from 'zod';
import {
  ActivityEntrySchema,
  CounterSnapshotSchema,
  FieldChangeSchema,
  HistoryPointSchema,
  ActivityPageSchema,
  CounterHistorySchema,
  GroupExportSchema,
  GroupHistorySchema,
  UndoOperationBodySchema,
} from '../../shared/activity.js';
import {
  AccessKeySchema,
  AccessLevelSchema,
  AdjustBodySchema,
  NoteBodySchema,
  ApiErrorSchema,
  CounterPatchSchema,
  CounterSchema,
  CreateCounterBodySchema,
  ErrorCodeSchema,
  GroupPatchSchema,
  GroupPreviewSchema,
  GroupSchema,
  GroupSnapshotSchema,
  JoinBodySchema,
  MutationResultSchema,
  OperationIdSchema,
  RotateKeyBodySchema,
  ViewKeySchema,
  type ErrorCode,
} from '../../shared/api.js';
import {
  ALERT_BODY_MAX_BYTES,
  ALERT_DELIVERIES_PER_MINUTE_PER_GROUP,
  ALERT_DELIVERY_LOG_LENGTH,
  AlertCreatedSchema,
  AlertDeliveriesSchema,
  AlertDeliverySchema,
  AlertDestinationViewSchema,
  AlertEventBodySchema,
  AlertListSchema,
  AlertRuleInputSchema,
  AlertRuleSummarySchema,
  AlertRuleViewSchema,
  AlertTestResultSchema,
  AlertWhenSchema,
  MAX_ALERT_DESTINATIONS_PER_GROUP,
  MAX_ALERT_RULES_PER_GROUP,
  MAX_PUSH_SUBSCRIPTIONS_PER_GROUP,
  PushKeySchema,
} from '../../shared/alerts.js';
import { KEY_MAX_LENGTH, KEY_MIN_LENGTH } from '../../shared/limits.js';
import { MAX_DESTINATION_URL_LENGTH } from '../alerts/destination.js';
import { PushSubscriptionSchema } from '../alerts/push.js';
import { IMPORT_MAX_BYTES } from '../../shared/import.js';
import { STATUS_OF } from './errors.js';
import {
  CHANGE_HEADERS,
  HealthSchema,
  OPERATIONS,
  PATH_PARAMETERS,
  QUERY_DESCRIPTIONS,
  type Operation,
  type Tag,
} from './operations.js';

/** A JSON Schema object as zod emits it. */
type JsonSchema = Record<string, unknown>;

/** The document: plain JSON (the OpenAPI 3.1 object model is not typed further here). */
export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string; description: string };
  servers: { url: string }[];
  tags: { name: string; description: string }[];
  paths: Record<string, Record<string, JsonSchema>>;
  /** Requests Tally sends: what a `standard` alert webhook receives. */
  webhooks: Record<string, Record<string, JsonSchema>>;
  components: { schemas: Record<string, JsonSchema>; securitySchemes: Record<string, JsonSchema> };
}

export const OPENAPI_VERSION = '3.1.1';

/** The security scheme's name: the group key as a bearer token. */
const GROUP_KEY = 'groupKey';

/** Shapes named in `components.schemas`: answers (`output`) and request parts (`input`). */
const NAMED: Record<
  'output' | 'input',
  Record<string, { schema: z.ZodType; about?: JsonSchema }>
> = {
  output: {
    Group: { schema: GroupSchema },
    GroupPreview: { schema: GroupPreviewSchema },
    GroupSnapshot: { schema: GroupSnapshotSchema },
    AccessLevel: {
      schema: AccessLevelSchema,
      about: {
        description:
          '`full`: the access key; `view`: the view-only link’s key; `tap`: a tap link’s key (`link` says which).',
      },
    },
    Counter: {
      schema: CounterSchema,
      about: {
        description:
          '`version` is the group change number of the counter’s last change; `createdAt` is ISO 8601.',
      },
    },
    MutationResult: { schema: MutationResultSchema },
    ActivityEntry: { schema: ActivityEntrySchema },
    ActivityPage: { schema: ActivityPageSchema },
    CounterSnapshot: { schema: CounterSnapshotSchema },
    FieldChange: { schema: FieldChangeSchema },
    HistoryPoint: {
      schema: HistoryPointSchema,
      about: { description: '`t`: epoch milliseconds; `v`: the value then.' },
    },
    CounterHistory: { schema: CounterHistorySchema },
    GroupHistory: { schema: GroupHistorySchema },
    GroupExport: { schema: GroupExportSchema },
    ViewKey: { schema: ViewKeySchema },
    Health: { schema: HealthSchema },
    AlertList: { schema: AlertListSchema },
    AlertRuleView: {
      schema: AlertRuleViewSchema,
      about: {
        description:
          'A rule as members see it. A webhook’s URL is never shown (chat and ntfy URLs carry their token): `destination.host` names where it goes.',
      },
    },
    AlertDestinationView: {
      schema: AlertDestinationViewSchema,
      about: {
        description:
          'Where a rule sends, shared by the group’s rules of the same URL (or Web Push). `state`: `new` until its first delivery ends, `ok` when the last one arrived, `retrying` while an alert is tried again, `failing` once one was given up after 24 hours (until a later one arrives).',
      },
    },
    AlertWhen: { schema: AlertWhenSchema },
    AlertRuleSummary: { schema: AlertRuleSummarySchema },
    AlertCreated: {
      schema: AlertCreatedSchema,
      about: {
        description:
          '`secret` only when the rule made a new `standard` destination: its signing secret, shown this once.',
      },
    },
    AlertDelivery: {
      schema: AlertDeliverySchema,
      about: {
        description:
          'One delivery attempt: `delivered` (a 2xx answer), `failed` (tried again later) or `gaveUp`. `status` is the receiver’s, null when none came; `attempt` 1 is an alert’s first try.',
      },
    },
    AlertDeliveries: { schema: AlertDeliveriesSchema },
    AlertTestResult: { schema: AlertTestResultSchema },
    AlertEventBody: {
      schema: AlertEventBodySchema,
      about: {
        description: `What a \`standard\` webhook receives (at most ${ALERT_BODY_MAX_BYTES.toLocaleString('en-US')} bytes: a long counter name is shortened). \`test\` is true on what \`POST …/alerts/{id}/test\` sends; \`folded\` counts the alerts folded into this one past ${String(ALERT_DELIVERIES_PER_MINUTE_PER_GROUP)} deliveries a minute.`,
      },
    },
    PushKey: { schema: PushKeySchema },
  },
  input: {
    AccessKey: {
      schema: AccessKeySchema,
      // The schema checks it with a refinement (shared/rules.ts), which JSON Schema cannot show.
      about: {
        description: `${KEY_MIN_LENGTH}–${KEY_MAX_LENGTH} hexadecimal characters.`,
        pattern: `^[0-9a-fA-F]{${KEY_MIN_LENGTH},${KEY_MAX_LENGTH}}$`,
      },
    },
    OperationId: { schema: OperationIdSchema },
    JoinBody: { schema: JoinBodySchema },
    RotateKeyBody: { schema: RotateKeyBodySchema },
    GroupPatch: {
      schema: GroupPatchSchema,
      about: {
        description:
          'At least one field. Text is cleaned (script blocks, `javascript:` and inline handlers removed), trimmed and cut to 1000 characters; blank or null `profileImageUrl` clears it, a missing scheme gets `https://`.',
      },
    },
    CounterPatch: {
      schema: CounterPatchSchema,
      about: {
        description:
          'At least one field. Text is cleaned and cut to 1000 characters; a blank or null `thumbnailUrl` clears it.',
      },
    },
    CreateCounterBody: { schema: CreateCounterBodySchema },
    AdjustBody: {
      schema: AdjustBodySchema,
      about: {
        description:
          'All optional. `note` (at most 280 characters, cleaned like a member name) goes with the change into the activity log; `at` says when it was counted, if earlier: no later than now, no earlier than the log keeps (`ACTIVITY_RETENTION_DAYS`, 365 days by default) nor before the counter. A count for a period that has ended corrects that period’s total and the all-time total and leaves the value as it is.',
        examples: [{ times: 3, note: 'table 4', at: '2026-11-26T18:30:00Z' }],
      },
    },
    NoteBody: {
      schema: NoteBodySchema,
      about: { description: 'The new note; blank removes it.' },
    },
    UndoOperationBody: { schema: UndoOperationBodySchema },
    AlertRuleInput: {
      schema: AlertRuleInputSchema,
      about: {
        description:
          'A counter (`counterId`), a section (`section`) or neither (every counter), never both; when it fires; where it goes. A webhook URL without a scheme gets `https://`.',
        examples: [
          {
            counterId: '5f0c6a7e-1b2d-4c3e-9f8a-2b7d4e6c1a90',
            when: { kind: 'reaches', value: 200 },
            to: { kind: 'webhook', url: 'https://ntfy.sh/game-night-visitors', format: 'ntfy' },
          },
        ],
      },
    },
    PushSubscription: {
      schema: PushSubscriptionSchema,
      about: {
        description:
          'A browser’s `PushSubscription.toJSON()`: an https:// endpoint and its keys (base64url). Other fields are ignored.',
      },
    },
  },
};

/** The document's tags: the route table's, and the alert routes'. */
type DocumentTag = Tag | 'Alerts';

const TAGS: Record<DocumentTag, string> = {
  Server: 'Health and this reference.',
  Groups: 'Opening, creating and editing a group.',
  Counters: 'Counters, taps and their history.',
  Activity: 'Who changed what, undo, and exports.',
  Access: 'Key rotation, the view-only link and tap links: the group’s access key only.',
  Alerts:
    'Telling a webhook, Slack, Discord, ntfy or members’ browsers (Web Push) that a counter crossed a threshold: the group’s access key only (the push key needs none).',
};

/**
 * An operation as the document describes it: one of the route table's (operations.ts), or an
 * alert route's. `pathParameters` describes path parameters that mean something else on this
 * route than PATH_PARAMETERS says (an alert route's `{id}` is a rule's, not a counter's).
 */
interface DocumentedOperation extends Omit<Operation, 'tag'> {
  tag: DocumentTag;
  pathParameters?: Record<string, { schema: z.ZodType; description: string }>;
}

// ---- Alerts -------------------------------------------------------------------------------------

const ALERT_ID = '542ddc61-db12-487c-a7d5-58146198939b';

/** `{id}` on an alert route: the rule's id (`rule.id`). */
const AlertIdParamSchema = z
  .string()
  .min(1)
  .max(64)
  .meta({ examples: [ALERT_ID] });
const ALERT_ID_PARAMETER = {
  id: { schema: AlertIdParamSchema, description: 'Alert rule id (`rule.id`).' },
};

/** DELETE /api/groups/{name}/push: the subscription to end, named by its endpoint. */
const PushEndpointBodySchema = z.strictObject({
  endpoint: z.string().min(1).max(MAX_DESTINATION_URL_LENGTH),
});

/** POST /api/groups/{name}/push's answer. */
const PushSubscribedSchema = z.object({ subscribed: z.literal(true) });

/** The alert routes (routes/alerts.ts). Every one but the push key needs the access key. */
const ALERT_OPERATIONS: readonly DocumentedOperation[] = [
  {
    id: 'listAlerts',
    method: 'get',
    path: '/api/groups/:name/alerts',
    tag: 'Alerts',
    summary: 'The group’s alert rules',
    description: `Oldest first, each with its destination and how deliveries to it are going (\`state\`). A webhook’s URL is never shown, only its host. \`limits\`: at most ${String(MAX_ALERT_RULES_PER_GROUP)} rules and ${String(MAX_ALERT_DESTINATIONS_PER_GROUP)} destinations per group. A view-only key can neither see nor change alerts.`,
    key: 'write',
    answers: [
      {
        status: 200,
        description: 'The rules and the group’s bounds.',
        content: { 'application/json': AlertListSchema },
      },
    ],
  },
  {
    id: 'createAlert',
    method: 'post',
    path: '/api/groups/:name/alerts',
    tag: 'Alerts',
    summary: 'Add an alert rule',
    description: `The rule fires once per crossing of its \`when\` by a counter it watches, and sends to a webhook (format \`standard\`, \`slack\`, \`discord\` or \`ntfy\`) or to the browsers subscribed to the group’s Web Push. A webhook URL must be https:// and reach only public addresses (422 \`destination_refused\`). The group’s rules with the same URL share one destination. \`secret\` (\`whsec_…\`, shown this once) comes only when the rule makes a new \`standard\` destination: the receiver checks \`webhook-signature\` with it. At most ${String(MAX_ALERT_RULES_PER_GROUP)} rules and ${String(MAX_ALERT_DESTINATIONS_PER_GROUP)} destinations per group (409 \`too_many_alerts\`).`,
    key: 'write',
    body: { schema: AlertRuleInputSchema, required: true },
    change: true,
    answers: [
      {
        status: 201,
        description: 'The new rule, and its destination’s signing secret when the rule made one.',
        content: { 'application/json': AlertCreatedSchema },
      },
    ],
    errors: ['counter_not_found', 'too_many_alerts', 'destination_refused'],
  },
  {
    id: 'deleteAlert',
    method: 'delete',
    path: '/api/groups/:name/alerts/:id',
    pathParameters: ALERT_ID_PARAMETER,
    tag: 'Alerts',
    summary: 'Delete an alert rule',
    description:
      'Its destination goes with its last rule; alerts the rule already fired are still delivered.',
    key: 'write',
    change: true,
    answers: [{ status: 204, description: 'Deleted.' }],
    errors: ['alert_not_found'],
  },
  {
    id: 'alertDeliveries',
    method: 'get',
    path: '/api/groups/:name/alerts/:id/deliveries',
    pathParameters: ALERT_ID_PARAMETER,
    tag: 'Alerts',
    summary: 'The delivery log of a rule’s destination',
    description: `Newest first: the destination’s last ${String(ALERT_DELIVERY_LOG_LENGTH)} attempts, every rule that sends to it included.`,
    key: 'write',
    answers: [
      {
        status: 200,
        description: 'The attempts.',
        content: { 'application/json': AlertDeliveriesSchema },
      },
    ],
    errors: ['alert_not_found'],
  },
  {
    id: 'testAlert',
    method: 'post',
    path: '/api/groups/:name/alerts/:id/test',
    tag: 'Alerts',
    pathParameters: ALERT_ID_PARAMETER,
    summary: 'Send a test alert now',
    description: `One attempt, made before answering, of the alert the rule would send for the counter as it is now, marked \`"test": true\`: 200 whatever the receiver answered (\`delivery.outcome\` \`delivered\` or \`gaveUp\`: a test is not tried again). It counts toward the group’s ${String(ALERT_DELIVERIES_PER_MINUTE_PER_GROUP)} deliveries a minute; past them it is not sent, and \`delivery.error\` says so.`,
    key: 'write',
    answers: [
      {
        status: 200,
        description: 'The attempt.',
        content: { 'application/json': AlertTestResultSchema },
      },
    ],
    errors: ['alert_not_found'],
  },
  {
    id: 'pushKey',
    method: 'get',
    path: '/api/push/key',
    tag: 'Alerts',
    summary: 'The server’s Web Push key',
    description:
      'The VAPID public key (base64url) a browser passes to `PushManager.subscribe` as `applicationServerKey`. No key needed.',
    key: 'none',
    answers: [
      {
        status: 200,
        description: 'The key.',
        content: { 'application/json': PushKeySchema },
      },
    ],
  },
  {
    id: 'subscribePush',
    method: 'post',
    path: '/api/groups/:name/push',
    tag: 'Alerts',
    summary: 'Send the group’s push alerts to this browser',
    description: `The body is the browser’s \`PushSubscription\` as JSON. The same endpoint again replaces its keys. At most ${String(MAX_PUSH_SUBSCRIPTIONS_PER_GROUP)} per group: one more replaces the group’s oldest. The browser then receives the alerts of every rule whose \`to\` is \`push\`.`,
    key: 'write',
    body: { schema: PushSubscriptionSchema, required: true },
    answers: [
      {
        status: 201,
        description: 'Subscribed.',
        content: { 'application/json': PushSubscribedSchema },
      },
    ],
    errors: ['busy', 'storage_unavailable'],
  },
  {
    id: 'unsubscribePush',
    method: 'delete',
    path: '/api/groups/:name/push',
    tag: 'Alerts',
    summary: 'Stop sending the group’s push alerts to this browser',
    description: 'Names the subscription by its endpoint.',
    key: 'write',
    body: { schema: PushEndpointBodySchema, required: true },
    answers: [{ status: 204, description: 'Unsubscribed.' }],
    errors: ['busy', 'storage_unavailable'],
  },
];

/** The Standard Webhooks headers of a `standard` alert webhook (alerts/formats.ts). */
const WEBHOOK_HEADERS: JsonSchema[] = [
  {
    name: 'webhook-id',
    in: 'header',
    required: true,
    description:
      'The alert’s id, the same on every retry of it: a receiver that sees it twice drops the repeat.',
    schema: { type: 'string', examples: ['a7f3c2e1-5b4d-4e6f-9a8b-1c2d3e4f5a6b'] },
  },
  {
    name: 'webhook-timestamp',
    in: 'header',
    required: true,
    description: 'When this attempt was signed, Unix seconds (each retry is signed anew).',
    schema: { type: 'string', pattern: '^[0-9]+$', examples: ['1795421700'] },
  },
  {
    name: 'webhook-signature',
    in: 'header',
    required: true,
    description:
      '`v1,` and the base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}`, keyed with the base64-decoded part of the destination’s secret after `whsec_`. The `standardwebhooks` library checks it: `new Webhook(secret).verify(body, headers)`.',
    schema: { type: 'string', examples: ['v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4='] },
  },
];

/** `webhooks.alert`: what Tally sends to a `standard` destination, and what it makes of answers. */
function alertWebhook(body: JsonSchema): OpenApiDocument['webhooks'] {
  return {
    alert: {
      post: {
        operationId: 'alertWebhook',
        tags: ['Alerts'],
        summary: 'What a `standard` alert webhook receives',
        description: `One alert per request, JSON, signed as the Standard Webhooks specification says. Delivered at least once and in order per destination: answer 2xx within 5 s. Slack, Discord and ntfy destinations receive the same alert as a sentence in their own format instead.`,
        security: [],
        parameters: WEBHOOK_HEADERS,
        requestBody: { required: true, content: { 'application/json': { schema: body } } },
        responses: {
          '2XX': { description: 'Delivered: the rest of the answer is not read.' },
          '4XX': {
            description:
              'Not delivered, like a 5xx, a redirect or no answer within 5 s: tried again after 10 s, 20 s, 40 s… (at most an hour apart), and given up after 24 hours.',
          },
        },
      },
    },
  };
}

/** Every operation in the document. */
const DOCUMENTED: readonly DocumentedOperation[] = [...OPERATIONS, ...ALERT_OPERATIONS];

const DESCRIPTION = `Live group counters. JSON in and out, camelCase fields.

A group is a name plus an access key (16–128 hexadecimal characters). Keyed calls send it as \`Authorization: Bearer <key>\`; the key never goes in an API URL. A group's view-only key opens every read but the alerts' and is answered \`403 read_only\` on every change.

Every 4xx and 5xx answer is \`{ "error": { "code", "message" } }\`. Besides the answers listed per operation, any request may be refused before it is routed: \`400 validation_failed\` (a malformed request), \`408 request_timeout\`, \`431 headers_too_large\`, \`429 too_many_connections\`, \`404 not_found\` for an unknown path.

The live channel (a WebSocket at \`/api/groups/{name}/live\`), rate limits, quotas and the rules behind each error are described in the project's docs/api.md.`;

/** A short title per error status, for the answer's description. */
const STATUS_TITLES: Record<number, string> = {
  400: 'Bad request',
  401: 'No key',
  403: 'Refused',
  404: 'Not found',
  409: 'Conflict',
  413: 'Body too large',
  415: 'Body is not JSON',
  422: 'Cannot be applied',
  429: 'Too many',
  500: 'Server error',
  503: 'Unavailable',
};

/** Statuses whose answers carry `Retry-After` (seconds). */
const RETRY_AFTER_STATUSES = new Set([429, 503]);

/** Codes implied by what an operation reads and does (operations.ts, Operation). */
function errorCodesOf(operation: DocumentedOperation): Set<ErrorCode> {
  // Every request, to any route, counts toward its address's open connections.
  const codes = new Set<ErrorCode>(['internal_error', 'too_many_connections']);
  if (operation.key !== 'none') {
    for (const code of [
      'invalid_group_name',
      'missing_key',
      'invalid_key_format',
      'group_not_found',
      'wrong_key',
      'rate_limited',
    ] as const)
      codes.add(code);
    if (operation.key === 'write' || operation.key === 'tap') codes.add('read_only');
    if (operation.key === 'write' || operation.key === 'read' || operation.key === 'tap')
      codes.add('tap_only');
  }
  if (operation.body) codes.add('validation_failed').add('payload_too_large');
  if (operation.query) codes.add('validation_failed');
  if (operation.change) {
    for (const code of [
      'validation_failed',
      'operation_id_reused',
      'operation_expired',
      'busy',
      'storage_unavailable',
    ] as const)
      codes.add(code);
  }
  for (const code of operation.errors ?? []) codes.add(code);
  return codes;
}

/** Each error status of an operation with the codes answered with it. */
export function errorStatusesOf(operation: DocumentedOperation): Map<number, ErrorCode[]> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of errorCodesOf(operation)) {
    const status = STATUS_OF[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  // A body that is not JSON: Fastify's 415, answered as validation_failed (routes/errors.ts).
  if (operation.body) byStatus.set(415, ['validation_failed']);
  return new Map([...byStatus].sort(([a], [b]) => a - b));
}

/**
 * The error shape with its code narrowed to what one status of one route can say. One schema per
 * set of codes (`known`): many routes share a set, and each schema is converted once.
 */
function errorSchemaOf(codes: ErrorCode[], known: Map<string, z.ZodType>): z.ZodType {
  const [first, ...rest] = codes;
  if (first === undefined) throw new Error('an error answer needs a code');
  const id = codes.join(' ');
  let schema = known.get(id);
  if (schema === undefined) {
    schema = ApiErrorSchema.extend({
      error: ApiErrorSchema.shape.error.extend({ code: ErrorCodeSchema.extract([first, ...rest]) }),
    });
    known.set(id, schema);
  }
  return schema;
}

/** `/api/groups/:name` → `/api/groups/{name}`. */
export function openApiPath(fastifyPath: string): string {
  return fastifyPath.replace(/:(\w+)/g, '{$1}');
}

/**
 * Converts zod schemas in one pass per direction: named ones become components (referenced
 * with $ref wherever they appear), the others are returned for inlining.
 */
class SchemaConverter {
  private readonly pending: Record<'input' | 'output', z.ZodType[]> = { input: [], output: [] };
  private readonly placeholders: { schema: z.ZodType; placeholder: JsonSchema }[] = [];
  private readonly converted = new Map<z.ZodType, JsonSchema>();
  readonly components: Record<string, JsonSchema> = {};

  /** A placeholder filled by `convert()`; named schemas are $refs at once. */
  refer(io: 'input' | 'output', schema: z.ZodType): JsonSchema {
    const name = Object.entries(NAMED[io]).find(([, named]) => named.schema === schema)?.[0];
    if (name !== undefined) return { $ref: `#/components/schemas/${name}` };
    const placeholder: JsonSchema = {};
    this.pending[io].push(schema);
    this.placeholders.push({ schema, placeholder });
    return placeholder;
  }

  convert(): void {
    for (const io of ['output', 'input'] as const) {
      const registry = z.registry<{ id: string }>();
      for (const [id, { schema }] of Object.entries(NAMED[io])) registry.add(schema, { id });
      const inlineIds = new Map<z.ZodType, string>();
      for (const schema of this.pending[io]) {
        if (inlineIds.has(schema)) continue;
        const id = `Inline${io}${inlineIds.size}`;
        inlineIds.set(schema, id);
        registry.add(schema, { id });
      }
      const { schemas } = z.toJSONSchema(registry, {
        target: 'draft-2020-12',
        io,
        uri: (id) => `#/components/schemas/${id}`,
      });
      // A schema given inline somewhere (a path parameter) and also used inside another (a
      // section name in an alert rule) is a $ref to its inline id there: written out instead.
      const inline = new Set(inlineIds.values());
      const expand = (node: unknown): unknown => {
        if (Array.isArray(node)) return node.map(expand);
        if (typeof node !== 'object' || node === null) return node;
        const { $ref, ...rest } = node as JsonSchema;
        const fields = Object.fromEntries(
          Object.entries(rest).map(([key, value]) => [key, expand(value)]),
        );
        const id = typeof $ref === 'string' ? $ref.replace('#/components/schemas/', '') : '';
        if (inline.has(id)) return { ...(expand(clean(schemas[id])) as JsonSchema), ...fields };
        return $ref === undefined ? fields : { $ref, ...fields };
      };
      const converted = (id: string) => expand(clean(schemas[id])) as JsonSchema;
      for (const [id, { about }] of Object.entries(NAMED[io])) {
        if (id in this.components) throw new Error(`component ${id} named twice`);
        this.components[id] = { ...converted(id), ...about };
      }
      for (const [schema, id] of inlineIds) this.converted.set(schema, converted(id));
    }
    for (const { schema, placeholder } of this.placeholders) {
      Object.assign(placeholder, this.converted.get(schema));
    }
  }
}

// ---- Examples -----------------------------------------------------------------------------------

const COUNTER_ID = '5f0c6a7e-1b2d-4c3e-9f8a-2b7d4e6c1a90';
const KEY_EXAMPLE = '3f9a1c2e7d4b6a8f0e1d2c3b4a5f6e7d8c9b0a1f2e3d4c5b6a7f8e9d0c1b2a3f';
const NUMBERED_OP_ID = 'tab-3f9a1c2e.42';

/**
 * A realistic example per property or parameter name, so that a reader (and Swagger UI's "Try it
 * out") sees a plausible group instead of each type's bound (an integer's was
 * -9007199254740991). `Component.property` wins over the bare name; an example is only given
 * where its type fits the schema (`id` is a counter's UUID in one place and an activity entry's
 * number in another). Enumerations and constants take their first value on their own.
 */
const CHAIN_HASH = '9c56cc51b374c3ba189210d5b6d4bf57790d351c96c47c02190ecf1e430635ab';
const EXAMPLES: Record<string, unknown[]> = {
  id: [COUNTER_ID, 812],
  checked: [1234],
  firstBrokenId: [812],
  hash: [CHAIN_HASH],
  anchor: [CHAIN_HASH],
  head: ['5f1d0c3e2b4a69788796a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4'],
  'Group.id': ['0b7e2f4a-9c1d-4e8b-a6f3-5d2c1b0a9e8f'],
  name: ['game-night'],
  'Counter.name': ['Coffees'],
  'CounterSnapshot.name': ['Coffees'],
  'CreateCounterBody.name': ['Coffees'],
  'CounterPatch.name': ['Coffees'],
  displayName: ['Game Night'],
  profileImageUrl: ['https://images.example.org/game-night.png'],
  thumbnailUrl: ['https://images.example.org/coffee.png'],
  timeZone: ['Europe/Berlin'],
  weekStart: [1],
  sectionLimits: [{ Entrances: 250 }],
  description: ['Cups from the office machine'],
  value: [12],
  incrementStep: [1],
  decrementStep: [1],
  goal: [20],
  min: [0],
  max: [50],
  'SectionBody.max': [250],
  startValue: [0],
  section: ['Entrances'],
  periodStart: ['2026-11-22T23:00:00.000Z'],
  allTime: [412],
  createdAt: ['2026-11-22T10:00:00.000Z'],
  version: [17],
  seq: [233],
  at: ['2026-11-23T08:15:00.000Z'],
  exportedAt: ['2026-11-23T09:00:00.000Z'],
  actor: ['Ada'],
  member: ['Ada'],
  label: ['Gate B'],
  link: ['Gate B'],
  lastUsedAt: ['2026-11-23T08:15:00.000Z'],
  taps: [318],
  links: [50],
  revokeTapLinks: [false],
  counterId: [COUNTER_ID],
  counter: [COUNTER_ID],
  counterName: ['Coffees'],
  delta: [5],
  increments: [5],
  decrements: [0],
  net: [5],
  reachedGoal: [20],
  final: [48],
  undoOf: [null],
  undoneBy: [null],
  note: ['table 4'],
  countedAt: ['2026-11-22T18:30:00.000Z'],
  from: ['Coffees'],
  to: ['Teas'],
  start: ['2026-11-21T23:00:00.000Z'],
  end: ['2026-11-22T23:00:00.000Z'],
  periodEnd: ['2026-11-22T23:00:00.000Z'],
  t: [1_763_805_600_000],
  v: [12],
  key: [KEY_EXAMPLE],
  AccessKey: [KEY_EXAMPLE],
  OperationId: [NUMBERED_OP_ID],
  viewKey: ['9d8c7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b2a1f0e9d8c'],
  opId: [NUMBERED_OP_ID],
  'Idempotency-Key': [NUMBERED_OP_ID],
  'Tally-Member': ['Ada%20Lovelace'],
  times: [1],
  created: [true],
  connections: [42],
  openapi: ['3.1.1'],
  message: ['Invalid access key for this group'],
  entryId: ['812'],
  limit: [50],
  before: [812],
  after: [800],
  points: [30],
  since: ['2026-11-23T00:00:00.000Z'],
  // Alerts.
  'AlertRuleView.id': [ALERT_ID],
  'AlertRuleSummary.id': [ALERT_ID],
  'AlertDestinationView.id': ['0aac674e-578a-49bc-bdc6-43eb4674f873'],
  'AlertDelivery.id': [4711],
  'AlertWhen.value': [200],
  'AlertRuleInput.value': [200],
  'AlertRuleInput.section': [null],
  'AlertEventBody.name': ['Visitors'],
  'AlertEventBody.value': [203],
  group: ['game-night'],
  url: ['https://ntfy.sh/game-night-visitors'],
  host: ['ntfy.sh'],
  subscribers: [null],
  rules: [MAX_ALERT_RULES_PER_GROUP],
  destinations: [MAX_ALERT_DESTINATIONS_PER_GROUP],
  secret: ['whsec_0pLoLWWN9ki1dblNNJeSxX+Px+S71JAGPnKvHImSr8g='],
  test: [false],
  status: [200],
  error: [null],
  attempt: [1],
  durationMs: [184],
  by: ['Ada'],
  multiple: [200],
  total: [48],
  folded: [3],
  publicKey: [
    'BGJeAqd-16u1Seokk8EtjuIgaRF-nPusjYYawminKedp-LuZbtb1oCXWnPSqBYPm3gXbHqdFJHthDAkQjs63kbc',
  ],
  endpoint: ['https://fcm.googleapis.com/fcm/send/c1KZ8s2Hn0E:APA91bG3xWqL7pT9vR2mN4kJ8hF6dS1aZ0'],
  p256dh: [
    'BC0PVeZE1K1-UgsRtKI96-wa6LO7E7NcZNwYjD7KeKbRLQbGKkqKZUBw8mwgpgAjH4pKWEc9tWzKF8NwlkCty7w',
  ],
  auth: ['hjpMbVwf2jjHXDshPXo7sA'],
};

/** The JSON Schema type names a value fits. */
function typesOf(value: unknown): string[] {
  if (value === null) return ['null'];
  if (Array.isArray(value)) return ['array'];
  if (typeof value === 'number')
    return Number.isInteger(value) ? ['integer', 'number'] : ['number'];
  return [typeof value];
}

/** The types a schema accepts at its top level or in its `anyOf` / `oneOf` branches. */
function typesAccepted(schema: JsonSchema): string[] {
  const own = typeof schema.type === 'string' ? [schema.type] : ((schema.type ?? []) as string[]);
  const branches = [
    ...((schema.anyOf ?? []) as JsonSchema[]),
    ...((schema.oneOf ?? []) as JsonSchema[]),
  ];
  return [...own, ...branches.flatMap(typesAccepted)];
}

/** The first value of the schema's constant or enumeration, in it or its first such branch. */
function firstAllowed(schema: JsonSchema): unknown {
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  for (const branch of [
    ...((schema.anyOf ?? []) as JsonSchema[]),
    ...((schema.oneOf ?? []) as JsonSchema[]),
  ]) {
    const value = firstAllowed(branch);
    if (value !== undefined) return value;
  }
  return undefined;
}

/** The example for a property or parameter `name` of schema `schema`, if one fits. */
function exampleFor(
  name: string,
  schema: JsonSchema,
  component: string | undefined,
): unknown[] | undefined {
  if ('$ref' in schema) return undefined;
  const allowed = firstAllowed(schema);
  if (allowed !== undefined) return [allowed];
  const accepted = typesAccepted(schema);
  const candidates = [...(EXAMPLES[`${component ?? ''}.${name}`] ?? []), ...(EXAMPLES[name] ?? [])];
  const fitting = candidates.find((value) =>
    typesOf(value).some((type) => accepted.includes(type)),
  );
  if (fitting !== undefined) return [fitting];
  return accepted.length === 1 && accepted[0] === 'null' ? [null] : undefined;
}

/**
 * Gives every property and parameter without an example the one EXAMPLES has for its name.
 * `component` is the named schema being walked, for `Component.property` examples.
 */
function addExamples(node: unknown, component?: string): void {
  if (Array.isArray(node)) {
    for (const item of node) addExamples(item, component);
    return;
  }
  if (typeof node !== 'object' || node === null) return;
  const object = node as JsonSchema;
  if (typeof object.in === 'string' && typeof object.name === 'string' && object.schema) {
    const schema = object.schema as JsonSchema;
    const examples =
      schema.examples === undefined ? exampleFor(object.name, schema, component) : undefined;
    if (examples !== undefined) schema.examples = examples;
  }
  if (typeof object.properties === 'object' && object.properties !== null) {
    for (const [name, property] of Object.entries(
      object.properties as Record<string, JsonSchema>,
    )) {
      if (property.examples !== undefined || property.example !== undefined) continue;
      const examples = exampleFor(name, property, component);
      if (examples !== undefined) property.examples = examples;
    }
  }
  for (const value of Object.values(object)) addExamples(value, component);
}

/** Drops what belongs to a standalone JSON Schema document, not to a schema inside OpenAPI. */
function clean(schema: JsonSchema | undefined): JsonSchema {
  if (schema === undefined) throw new Error('schema missing from the conversion');
  const { $schema: _dialect, $id: _id, ...rest } = schema;
  return rest;
}

/** Builds the document; `version` is Tally's (package.json). */
export function buildOpenApiDocument(version: string): OpenApiDocument {
  const converter = new SchemaConverter();
  const paths: OpenApiDocument['paths'] = {};
  /** A JSON body by its schema; a file (an import's) as text of each media type it may be. */
  const requestBodyOf = (body: NonNullable<DocumentedOperation['body']>): JsonSchema => ({
    required: body.required,
    content:
      body.mediaTypes === undefined
        ? { 'application/json': { schema: converter.refer('input', body.schema) } }
        : Object.fromEntries(
            body.mediaTypes.map((type) => [
              type,
              { schema: { type: 'string', maxLength: IMPORT_MAX_BYTES } },
            ]),
          ),
  });
  // Query parameters are read out of their converted object schema once conversion has run, and
  // go after the path parameters (`at`).
  const queries: {
    parameters: JsonSchema[];
    at: number;
    object: JsonSchema;
    defaults: Record<string, number>;
  }[] = [];
  const operations: JsonSchema[] = [];
  const errorSchemas = new Map<string, z.ZodType>();

  for (const operation of DOCUMENTED) {
    const parameters: JsonSchema[] = [];
    for (const [, name] of operation.path.matchAll(/:(\w+)/g)) {
      const param =
        name === undefined
          ? undefined
          : (operation.pathParameters?.[name] ?? PATH_PARAMETERS[name]);
      if (name === undefined || param === undefined)
        throw new Error(`no description of path parameter ${String(name)}`);
      parameters.push({
        name,
        in: 'path',
        required: true,
        description: param.description,
        schema: converter.refer('input', param.schema),
      });
    }
    if (operation.query) {
      queries.push({
        parameters,
        at: parameters.length,
        object: converter.refer('input', operation.query),
        defaults: operation.queryDefaults ?? {},
      });
    }
    if (operation.change) {
      for (const [name, header] of Object.entries(CHANGE_HEADERS)) {
        parameters.push({
          name,
          in: 'header',
          required: false,
          description: header.description,
          schema: converter.refer('input', header.schema),
        });
      }
    }

    const responses: Record<string, JsonSchema> = {};
    for (const answer of operation.answers) {
      responses[String(answer.status)] = {
        description: answer.description,
        ...(answer.headers && {
          headers: Object.fromEntries(
            Object.entries(answer.headers).map(([name, description]) => [
              name,
              { description, schema: { type: 'string' } },
            ]),
          ),
        }),
        ...(answer.content && {
          content: Object.fromEntries(
            Object.entries(answer.content).map(([mediaType, schema]) => [
              mediaType,
              { schema: converter.refer('output', schema) },
            ]),
          ),
        }),
      };
    }
    for (const [status, codes] of errorStatusesOf(operation)) {
      responses[String(status)] = {
        description: `${STATUS_TITLES[status] ?? 'Error'}: ${codes.map((code) => `\`${code}\``).join(', ')}.`,
        ...(RETRY_AFTER_STATUSES.has(status) && {
          headers: {
            'Retry-After': {
              description: 'Seconds to wait before trying again.',
              schema: { type: 'integer', minimum: 0 },
            },
          },
        }),
        content: {
          'application/json': {
            schema: converter.refer('output', errorSchemaOf(codes, errorSchemas)),
          },
        },
      };
    }

    const path = openApiPath(operation.path);
    const documented: JsonSchema = {
      operationId: operation.id,
      tags: [operation.tag],
      summary: operation.summary,
      ...(operation.description !== undefined && { description: operation.description }),
      // An empty list says the operation is public: it needs no key.
      security: operation.key === 'none' ? [] : [{ [GROUP_KEY]: [] }],
      parameters,
      ...(operation.body && { requestBody: requestBodyOf(operation.body) }),
      responses,
    };
    paths[path] ??= {};
    paths[path][operation.method] = documented;
    operations.push(documented);
  }

  const webhooks = alertWebhook(converter.refer('output', AlertEventBodySchema));
  converter.convert();
  for (const { parameters, at, object, defaults } of queries) {
    const properties = (object.properties ?? {}) as Record<string, JsonSchema>;
    const required = new Set((object.required ?? []) as string[]);
    const queryParameters = Object.entries(properties).map(([name, schema]) => ({
      name,
      in: 'query',
      required: required.has(name),
      ...(QUERY_DESCRIPTIONS[name] !== undefined && { description: QUERY_DESCRIPTIONS[name] }),
      schema: name in defaults ? { ...schema, default: defaults[name] } : schema,
    }));
    parameters.splice(at, 0, ...queryParameters);
  }
  for (const documented of operations) {
    if ((documented.parameters as unknown[]).length === 0) delete documented.parameters;
  }

  for (const [name, schema] of Object.entries(converter.components)) {
    // A named scalar (AccessKey, OperationId, AccessLevel) carries its example itself.
    const examples =
      schema.properties === undefined ? exampleFor(name, schema, undefined) : undefined;
    if (examples !== undefined && schema.examples === undefined) schema.examples = examples;
    addExamples(schema, name);
  }
  addExamples(paths);
  addExamples(webhooks);

  return {
    openapi: OPENAPI_VERSION,
    info: { title: 'Tally', version, description: DESCRIPTION },
    servers: [{ url: '/' }],
    tags: Object.entries(TAGS).map(([name, description]) => ({ name, description })),
    paths,
    webhooks,
    components: {
      schemas: converter.components,
      securitySchemes: {
        [GROUP_KEY]: {
          type: 'http',
          scheme: 'bearer',
          description:
            'The group’s access key, or its view-only key for reads: `Authorization: Bearer <key>`.',
        },
      },
    },
  };
}
