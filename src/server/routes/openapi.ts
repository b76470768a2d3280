/**
 * The OpenAPI 3.1 document of the HTTP API, built once at start from the route table
 * (operations.ts) and the shared zod schemas, with zod's own JSON Schema (draft 2020-12, the
 * dialect OpenAPI 3.1 uses). Request parts are described as the schemas accept them (`io:
 * 'input'`), answers as the server sends them (`io: 'output'`: objects list every field and no
 * others, so an answer that gains or loses a field no longer matches).
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
import { KEY_MAX_LENGTH, KEY_MIN_LENGTH } from '../../shared/limits.js';
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
      about: { description: '`full`: the access key; `view`: the view-only link’s key.' },
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
    AdjustBody: { schema: AdjustBodySchema },
    UndoOperationBody: { schema: UndoOperationBodySchema },
  },
};

const TAGS: Record<Tag, string> = {
  Server: 'Health and this reference.',
  Groups: 'Opening, creating and editing a group.',
  Counters: 'Counters, taps and their history.',
  Activity: 'Who changed what, undo, and exports.',
  Access: 'Key rotation and the view-only link: the group’s access key only.',
};

const DESCRIPTION = `Live group counters. JSON in and out, camelCase fields.

A group is a name plus an access key (16–128 hexadecimal characters). Keyed calls send it as \`Authorization: Bearer <key>\`; the key never goes in an API URL. A group's view-only key opens every read and is answered \`403 read_only\` on every change.

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
function errorCodesOf(operation: Operation): Set<ErrorCode> {
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
    if (operation.key === 'write') codes.add('read_only');
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
export function errorStatusesOf(operation: Operation): Map<number, ErrorCode[]> {
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
      for (const [id, { about }] of Object.entries(NAMED[io])) {
        if (id in this.components) throw new Error(`component ${id} named twice`);
        this.components[id] = { ...clean(schemas[id]), ...about };
      }
      for (const [schema, id] of inlineIds) this.converted.set(schema, clean(schemas[id]));
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
const EXAMPLES: Record<string, unknown[]> = {
  id: [COUNTER_ID, 812],
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

  for (const operation of OPERATIONS) {
    const parameters: JsonSchema[] = [];
    for (const [, name] of operation.path.matchAll(/:(\w+)/g)) {
      const param = name === undefined ? undefined : PATH_PARAMETERS[name];
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
      ...(operation.body && {
        requestBody: {
          required: operation.body.required,
          content: {
            'application/json': { schema: converter.refer('input', operation.body.schema) },
          },
        },
      }),
      responses,
    };
    paths[path] ??= {};
    paths[path][operation.method] = documented;
    operations.push(documented);
  }

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

  return {
    openapi: OPENAPI_VERSION,
    info: { title: 'Tally', version, description: DESCRIPTION },
    servers: [{ url: '/' }],
    tags: Object.entries(TAGS).map(([name, description]) => ({ name, description })),
    paths,
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
