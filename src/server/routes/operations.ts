/**
 * Every HTTP route under /api/, with the zod schemas of what it reads and answers: the one place
 * that says route → schemas. The handlers (api.ts, activity.ts, health.ts, docs.ts) parse with
 * these same shared schemas; the OpenAPI document (openapi.ts) is built from this table at start,
 * and test/integration/openapi.test.ts checks the table against the routes the server registers
 * and every documented operation's real answers against the document.
 *
 * Nothing here runs per request: the routes carry no Fastify `schema`, so no validator or
 * serialiser is compiled or called for them (ADR 16).
 */
import { z } from 'zod';
import {
  ActivityEntrySchema,
  ActivityPageSchema,
  ChainVerdictSchema,
  CounterHistorySchema,
  ExportQuerySchema,
  GroupExportSchema,
  GroupHistorySchema,
  HistoryQuerySchema,
  UndoOperationBodySchema,
  ActivityQuerySchema,
  CounterPeriodsSchema,
  PeriodsQuerySchema,
} from '../../shared/activity.js';
import {
  AdjustBodySchema,
  NoteBodySchema,
  CounterPatchSchema,
  CounterSchema,
  CounterOrderSchema,
  CreateCounterBodySchema,
  GroupPatchSchema,
  OrderBodySchema,
  SectionBodySchema,
  SectionNameSchema,
  TalliesQuerySchema,
  TalliesSchema,
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
  IMPORT_MAX_BYTES,
  IMPORT_MAX_ROWS,
  ImportQuerySchema,
  ImportSummarySchema,
} from '../../shared/import.js';
import { GROUP_NAME_MAX_LENGTH, SPARKLINE_POINTS } from '../../shared/limits.js';
import {
  MAX_TAP_LINKS_PER_GROUP,
  TapLinkBodySchema,
  TapLinkCreatedSchema,
  TapLinkListSchema,
} from '../../shared/links.js';
import { MEMBER_HEADER_MAX } from './parse.js';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/**
 * The key a route checks (`Authorization: Bearer <key>`): none; any key that opens the group,
 * a tap link's too, answered for the tap link's counters only (`see`); the access key or the
 * view-only link's (`read`: a tap link's is answered 403 tap_only); the access key or a tap
 * link's, which the commit holds to its scope and rights (`tap`: a view-only key is answered 403
 * read_only); or the group's access key only (`write`: 403 read_only or tap_only).
 */
export type KeyNeed = 'none' | 'see' | 'read' | 'tap' | 'write';

export type Tag = 'Server' | 'Groups' | 'Counters' | 'Activity' | 'Access';

/** Media types Tally answers with. */
export type MediaType = 'application/json' | 'text/csv' | 'text/html';

/** Media types a request body may have. */
export type BodyMediaType = 'application/json' | 'text/csv';

/** An import's body: the file's text (its format, docs/api.md "Import"). */
const ImportFileSchema = z.string().max(IMPORT_MAX_BYTES);

export interface SuccessAnswer {
  status: 200 | 201 | 204;
  description: string;
  /** The body's schema by media type; none for an answer without a body. */
  content?: Partial<Record<MediaType, z.ZodType>>;
  /** Response headers worth knowing, by name: their description. */
  headers?: Record<string, string>;
}

export interface Operation {
  /** OpenAPI operationId. */
  id: string;
  method: HttpMethod;
  /** As Fastify registers it (`:name` parameters). */
  path: string;
  tag: Tag;
  summary: string;
  description?: string;
  key: KeyNeed;
  /** The query's schema (an object schema: each property is one query parameter). */
  query?: z.ZodType;
  /** Query defaults this route applies over the query schema's own (shown in the document). */
  queryDefaults?: Record<string, number>;
  /**
   * The body's schema; `required: false` when an empty body is fine. JSON unless `mediaTypes`
   * says otherwise (an import's file).
   */
  body?: { schema: z.ZodType; required: boolean; mediaTypes?: readonly BodyMediaType[] };
  /**
   * A change recorded in the group: it takes `Idempotency-Key` (retries apply once) and
   * `Tally-Member` (who made it), and goes through the commit queue (503 busy, 503
   * storage_unavailable, 422 operation_id_reused).
   */
  change?: boolean;
  answers: SuccessAnswer[];
  /** Error codes this route gives besides those its key, body, query and change imply. */
  errors?: readonly ErrorCode[];
}

// ---- Shapes only the document needs (the routes read these parts without a schema) ---------

/** `{name}`: a group name; the server normalises it (docs/product.md#group-names), so any casing or spacing works. */
export const GroupNameParamSchema = z.string().min(1);
/** `{id}`: a counter id (a UUID). */
export const CounterIdParamSchema = z.string().min(1).max(64);
/** `{entryId}`: an activity entry id, a positive whole number. */
export const EntryIdParamSchema = z.string().regex(/^[1-9]\d{0,15}$/);

/** `Tally-Member`: the member's display name, percent-encoded UTF-8 (routes/parse.ts). */
export const MemberHeaderSchema = z.string().max(MEMBER_HEADER_MAX);

/** GET /api/health's answer (routes/health.ts). */
export const HealthSchema = z.object({
  status: z.literal('ok'),
  store: z.enum(['sqlite', 'postgres']),
  /** Live sockets open on this instance. */
  connections: z.number().int().min(0),
});

/** GET /api/openapi.json: this document (only its version is pinned here). */
export const OpenApiDocumentSchema = z.looseObject({ openapi: z.string().regex(/^3\.1\./) });

/** The CSV export: RFC 4180, UTF-8 with a byte-order mark, CRLF line ends. */
const CsvSchema = z.string();
const HtmlSchema = z.string();

export const PATH_PARAMETERS: Record<string, { schema: z.ZodType; description: string }> = {
  name: {
    schema: GroupNameParamSchema,
    description: `Group name, normalised by the server (lowercase; anything outside a-z 0-9 _ - becomes -; at most ${GROUP_NAME_MAX_LENGTH} characters), so \`Game%20Night\` and \`game-night\` are the same group.`,
  },
  id: { schema: CounterIdParamSchema, description: 'Counter id.' },
  entryId: { schema: EntryIdParamSchema, description: 'Activity entry id.' },
  section: {
    schema: SectionNameSchema,
    description: 'Section name, percent-encoded (cleaned like all text, cut to 60 characters).',
  },
};

export const QUERY_DESCRIPTIONS: Record<string, string> = {
  limit: 'Most entries in the page.',
  before: 'Entries older than this entry id (the previous page’s `next`).',
  after: 'Entries newer than this entry id, the oldest of them first (catching up).',
  counter: 'Only the entries of this counter id.',
  points: 'Most points per counter.',
  format: '`json` (everything) or `csv` (one table).',
  data: 'CSV only: `counters` (default), `activity` (the whole log, oldest first) or `periods` (every ended period).',
  counterId: 'Only this counter’s tallies.',
  since: 'Only changes at or after this time (ISO 8601 or epoch ms).',
};

export const CHANGE_HEADERS = {
  'Idempotency-Key': {
    schema: OperationIdSchema,
    description:
      "Client operation id: a retry with the same id in the same group is applied once and answered with the first answer; reused for another change it is 422 `operation_id_reused`. Remembered for 24 hours. A numbered id, `<session>.<n>` (a session of 8–40 id characters, n from 1), makes a tap cost one row per session: it is applied once within 512 numbers of the session's newest, and further behind it is 409 `operation_expired` (ADR 24).",
  },
  'Tally-Member': {
    schema: MemberHeaderSchema,
    description:
      'Who made the change, for the activity log: the display name percent-encoded as UTF-8 (`encodeURIComponent`). A label, not a proof of identity.',
  },
} as const;

const counterAnswer = (status: 200 | 201, description: string): SuccessAnswer => ({
  status,
  description,
  content: { 'application/json': CounterSchema },
});

const undoErrors: readonly ErrorCode[] = [
  'activity_not_found',
  'already_undone',
  'cannot_undo',
  'counter_not_found',
  'limit_reached',
  'value_out_of_range',
  'too_many_counters',
];

/** Every documented /api/ route. */
export const OPERATIONS: readonly Operation[] = [
  {
    id: 'health',
    method: 'get',
    path: '/api/health',
    tag: 'Server',
    summary: 'Whether a write can be committed now',
    description:
      'Runs a one-row write probe (one probe answers every check for 1 s). 503 when the disk is full or read-only, the SQLite file was replaced, the PostgreSQL schema is gone (`storage_unavailable`), or another process holds SQLite’s write lock (`busy`).',
    key: 'none',
    answers: [
      {
        status: 200,
        description: 'Writes can be committed.',
        content: { 'application/json': HealthSchema },
      },
    ],
    errors: ['busy', 'storage_unavailable'],
  },
  {
    id: 'openApiDocument',
    method: 'get',
    path: '/api/openapi.json',
    tag: 'Server',
    summary: 'This OpenAPI 3.1 document',
    key: 'none',
    answers: [
      {
        status: 200,
        description: 'The document.',
        content: { 'application/json': OpenApiDocumentSchema },
      },
    ],
  },
  {
    id: 'apiReference',
    method: 'get',
    path: '/api/docs',
    tag: 'Server',
    summary: 'This reference as a web page',
    key: 'none',
    answers: [{ status: 200, description: 'The page.', content: { 'text/html': HtmlSchema } }],
  },
  {
    id: 'previewGroup',
    method: 'get',
    path: '/api/groups/:name',
    tag: 'Groups',
    summary: 'What anyone may see of a group',
    description: 'Its name and profile picture, for the landing page. No key needed.',
    key: 'none',
    answers: [
      {
        status: 200,
        description: 'The group exists.',
        content: { 'application/json': GroupPreviewSchema },
      },
    ],
    errors: ['invalid_group_name', 'group_not_found'],
  },
  {
    id: 'joinGroup',
    method: 'post',
    path: '/api/groups/:name/join',
    tag: 'Groups',
    summary: 'Open a group with its key, or create it',
    description:
      'A group that does not exist is created with this key (201); an existing one checks the key (200). The key goes in the body here, not in `Authorization`. `access` says which key it was: `full` (the access key) or `view` (the view-only link).',
    key: 'none',
    body: { schema: JoinBodySchema, required: true },
    answers: [
      {
        status: 200,
        description: 'The key opens the group: its state now.',
        content: { 'application/json': GroupSnapshotSchema },
      },
      {
        status: 201,
        description: 'The group was created with this key.',
        content: { 'application/json': GroupSnapshotSchema },
      },
    ],
    errors: [
      'invalid_group_name',
      'wrong_key',
      'rate_limited',
      'too_many_groups',
      'busy',
      'storage_unavailable',
    ],
  },
  {
    id: 'updateGroup',
    method: 'patch',
    path: '/api/groups/:name',
    tag: 'Groups',
    summary: 'Change the display name or profile picture',
    key: 'write',
    body: { schema: GroupPatchSchema, required: true },
    change: true,
    answers: [
      {
        status: 200,
        description: 'The group after the change.',
        content: { 'application/json': GroupSchema },
      },
    ],
  },
  {
    id: 'listCounters',
    method: 'get',
    path: '/api/groups/:name/counters',
    tag: 'Counters',
    summary: 'The group’s counters',
    description: 'By `createdAt` ascending.',
    key: 'see',
    answers: [
      {
        status: 200,
        description: 'Every counter of the group.',
        content: { 'application/json': z.array(CounterSchema) },
      },
    ],
  },
  {
    id: 'createCounter',
    method: 'post',
    path: '/api/groups/:name/counters',
    tag: 'Counters',
    summary: 'Add a counter',
    description:
      'Every field is optional: `New Counter`, `""`, 0, 1, 1 and null fill the rest. `opId` works like `Idempotency-Key`.',
    key: 'write',
    body: { schema: CreateCounterBodySchema, required: false },
    change: true,
    answers: [counterAnswer(201, 'The new counter.')],
    errors: ['too_many_counters', 'limit_reached'],
  },
  {
    id: 'reorderCounters',
    method: 'put',
    path: '/api/groups/:name/order',
    tag: 'Counters',
    summary: 'Put the counters in a new order',
    description:
      'List every counter of the group exactly once (anything else is 422 `invalid_order`). Every member sees the new order at once (`counters.reordered`); counters created later go last.',
    key: 'write',
    body: { schema: OrderBodySchema, required: true },
    change: true,
    answers: [
      {
        status: 200,
        description: 'The counter ids in their new order.',
        content: { 'application/json': CounterOrderSchema },
      },
    ],
    errors: ['invalid_order'],
  },
  {
    id: 'updateSection',
    method: 'put',
    path: '/api/groups/:name/sections/:section',
    tag: 'Counters',
    summary: 'Set or clear a section’s maximum',
    description:
      'A section is the `section` its counters name. With a maximum, a change that would take the total of its counters past it is refused (409 `limit_reached`), and so is a maximum below the current total. At most 100 sections of a group carry one.',
    key: 'write',
    body: { schema: SectionBodySchema, required: true },
    change: true,
    answers: [
      {
        status: 200,
        description: 'The group with its section limits.',
        content: { 'application/json': GroupSchema },
      },
    ],
    errors: ['limit_reached'],
  },
  {
    id: 'updateCounter',
    method: 'patch',
    path: '/api/groups/:name/counters/:id',
    tag: 'Counters',
    summary: 'Edit a counter',
    description: 'Text is cleaned and cut to 1000 characters; a typed value replaces the count.',
    key: 'write',
    body: { schema: CounterPatchSchema, required: true },
    change: true,
    answers: [counterAnswer(200, 'The counter after the change.')],
    errors: ['counter_not_found', 'value_out_of_range', 'limit_reached'],
  },
  {
    id: 'incrementCounter',
    method: 'post',
    path: '/api/groups/:name/counters/:id/increment',
    tag: 'Counters',
    summary: 'Tap +',
    description:
      '`value += times × incrementStep`. Taps are applied one after another in commit order, so concurrent taps add up; taps committed together are answered with the row after them all.',
    key: 'tap',
    body: { schema: AdjustBodySchema, required: false },
    change: true,
    answers: [counterAnswer(200, 'The counter after the tap.')],
    errors: ['counter_not_found', 'value_out_of_range', 'limit_reached'],
  },
  {
    id: 'decrementCounter',
    method: 'post',
    path: '/api/groups/:name/counters/:id/decrement',
    tag: 'Counters',
    summary: 'Tap −',
    description: '`value -= times × decrementStep`.',
    key: 'tap',
    body: { schema: AdjustBodySchema, required: false },
    change: true,
    answers: [counterAnswer(200, 'The counter after the tap.')],
    errors: ['counter_not_found', 'value_out_of_range', 'limit_reached'],
  },
  {
    id: 'deleteCounter',
    method: 'delete',
    path: '/api/groups/:name/counters/:id',
    tag: 'Counters',
    summary: 'Delete a counter',
    key: 'write',
    change: true,
    answers: [{ status: 204, description: 'Deleted.' }],
    errors: ['counter_not_found'],
  },
  {
    id: 'counterHistory',
    method: 'get',
    path: '/api/groups/:name/counters/:id/history',
    tag: 'Counters',
    summary: 'A counter’s value over its whole life',
    description: 'Oldest first, ending with its value now.',
    key: 'see',
    query: HistoryQuerySchema,
    answers: [
      {
        status: 200,
        description: 'The points.',
        content: { 'application/json': CounterHistorySchema },
      },
    ],
    errors: ['counter_not_found', 'too_many_reads'],
  },
  {
    id: 'groupHistory',
    method: 'get',
    path: '/api/groups/:name/history',
    tag: 'Counters',
    summary: 'Each counter’s latest values (sparklines)',
    description: 'Oldest first.',
    key: 'see',
    query: HistoryQuerySchema,
    queryDefaults: { points: SPARKLINE_POINTS },
    answers: [
      {
        status: 200,
        description: 'Points by counter id.',
        content: { 'application/json': GroupHistorySchema },
      },
    ],
    errors: ['too_many_reads'],
  },
  {
    id: 'listActivity',
    method: 'get',
    path: '/api/groups/:name/activity',
    tag: 'Activity',
    summary: 'A page of the activity log',
    description:
      'Newest first. `next` is the `before` of the next (older) page, null at the beginning. Use either `before` or `after`.',
    key: 'see',
    query: ActivityQuerySchema,
    answers: [
      {
        status: 200,
        description: 'The page.',
        content: { 'application/json': ActivityPageSchema },
      },
    ],
    errors: ['too_many_reads'],
  },
  {
    id: 'verifyActivity',
    method: 'get',
    path: '/api/groups/:name/activity/verify',
    tag: 'Activity',
    summary: 'Check that the activity log is as it was written',
    description:
      "Re-computes the log's hash chain (each entry's SHA-256 over the one before and what it says) from its anchor (the last pruned entry) to its head. `firstBrokenId` is the first entry that does not follow from the one before: an edited entry, the entry after a deleted one, or the id after the last when the newest were removed.",
    key: 'read',
    answers: [
      {
        status: 200,
        description: 'Whether the chain holds, and how many entries were checked.',
        content: { 'application/json': ChainVerdictSchema },
      },
    ],
    errors: ['too_many_reads'],
  },
  {
    id: 'undoEntry',
    method: 'post',
    path: '/api/groups/:name/activity/:entryId/undo',
    tag: 'Activity',
    summary: 'Take back one activity entry',
    description:
      'Applies the opposite operation, so what others did since stays. An entry is undone at most once.',
    key: 'tap',
    change: true,
    answers: [
      {
        status: 200,
        description: 'The undo’s result.',
        content: { 'application/json': MutationResultSchema },
      },
    ],
    errors: undoErrors,
  },
  {
    id: 'editEntryNote',
    method: 'patch',
    path: '/api/groups/:name/activity/:entryId',
    tag: 'Activity',
    summary: 'Add, change or remove the note of your own recent entry',
    description:
      'Only with the same `Tally-Member` name (and tap link) that made the entry (403 `not_your_entry`), within 24 hours of it (409 `note_edit_closed`). Notes are outside the log’s hash chain (ADR 36).',
    key: 'tap',
    body: { schema: NoteBodySchema, required: true },
    answers: [
      {
        status: 200,
        description: 'The entry with its new note.',
        content: { 'application/json': ActivityEntrySchema },
      },
    ],
    errors: ['activity_not_found', 'not_your_entry', 'note_edit_closed'],
  },
  {
    id: 'undoOperation',
    method: 'post',
    path: '/api/groups/:name/undo',
    tag: 'Activity',
    summary: 'Take back the change one of your operation ids made',
    description: '404 when that operation made no entry, or was more than 24 hours ago.',
    key: 'tap',
    body: { schema: UndoOperationBodySchema, required: true },
    change: true,
    answers: [
      {
        status: 200,
        description: 'The undo’s result.',
        content: { 'application/json': MutationResultSchema },
      },
    ],
    errors: undoErrors,
  },
  {
    id: 'tallies',
    method: 'get',
    path: '/api/groups/:name/tallies',
    tag: 'Activity',
    summary: 'What each member added and took away',
    description:
      'From the activity log (what it keeps): one row per member and counter, largest net first, at most 1000. Undone taps and undos do not count. `since` (ISO 8601 or epoch ms) counts only changes at or after it, e.g. a counter’s `periodStart`.',
    key: 'see',
    query: TalliesQuerySchema,
    answers: [
      {
        status: 200,
        description: 'The tallies.',
        content: { 'application/json': TalliesSchema },
      },
    ],
  },
  {
    id: 'counterPeriods',
    method: 'get',
    path: '/api/groups/:name/counters/:id/periods',
    tag: 'Counters',
    summary: 'A counter’s ended periods',
    description:
      'Newest first: each period’s start, end and the value it ended with. The newest 400 periods of each counter are kept.',
    key: 'see',
    query: PeriodsQuerySchema,
    answers: [
      {
        status: 200,
        description: 'The periods.',
        content: { 'application/json': CounterPeriodsSchema },
      },
    ],
    errors: ['counter_not_found'],
  },
  {
    id: 'exportGroup',
    method: 'get',
    path: '/api/groups/:name/export',
    tag: 'Activity',
    summary: 'Download the group',
    description:
      "JSON: the group, its counters, the whole log (each entry with its chain hash, and the chain's anchor and head: `node scripts/verify-export.mjs` checks a file offline) and every ended period. CSV (RFC 4180, UTF-8 with a byte-order mark, CRLF): the counters, the log or the ended periods (`data`); cells starting with `= + - @`, tab or CR get a leading `'`. Streamed; never cached.",
    key: 'read',
    query: ExportQuerySchema,
    answers: [
      {
        status: 200,
        description: 'A file.',
        content: { 'application/json': GroupExportSchema, 'text/csv': CsvSchema },
        headers: { 'Content-Disposition': 'attachment; filename="{name}-export.json" (or .csv)' },
      },
    ],
    errors: ['too_many_reads'],
  },
  {
    id: 'importGroup',
    method: 'post',
    path: '/api/groups/:name/import',
    tag: 'Activity',
    summary: 'Import counters and their log from a file',
    description: `The body is the file: Tally's JSON export (counters, their settings and the log) or counters CSV, BetterCounter's CSV export, or Simple Counter's JSON backup; its format is detected, or named with \`format\`. \`dryRun=true\` answers what the import would create, change and add, and changes nothing. The import is all or nothing, never deletes, and adds nothing a second time (counters are recognised by their id, entries by their hash or a fingerprint). A file that cannot be read is 400 \`import_invalid\` with the line and column of its first problem. At most ${IMPORT_MAX_BYTES / 1024 / 1024} MB (413) and ${IMPORT_MAX_ROWS.toLocaleString('en-US')} rows (413); the group's counters and activity entries stay within their quotas (409 \`too_many_counters\`, \`too_many_entries\`). Counts as a heavy read of the address (429 \`too_many_reads\`).`,
    key: 'write',
    query: ImportQuerySchema,
    body: {
      schema: ImportFileSchema,
      required: true,
      mediaTypes: ['text/csv', 'application/json'],
    },
    answers: [
      {
        status: 200,
        description: 'What was (with `dryRun=true`: would be) created, changed and added.',
        content: { 'application/json': ImportSummarySchema },
      },
    ],
    errors: [
      'import_invalid',
      'too_many_counters',
      'too_many_entries',
      'limit_reached',
      'too_many_reads',
      'busy',
      'storage_unavailable',
    ],
  },
  {
    id: 'rotateKey',
    method: 'post',
    path: '/api/groups/:name/key',
    tag: 'Access',
    summary: 'Replace the access key',
    description:
      'Takes effect at once on every instance: the old key and the old view-only link stop working, and live sockets opened with them are closed (4410). Tap links keep working unless `revokeTapLinks` is true. The same key again is 400.',
    key: 'write',
    body: { schema: RotateKeyBodySchema, required: true },
    change: true,
    answers: [
      {
        status: 200,
        description: 'The group.',
        content: { 'application/json': GroupSchema },
      },
    ],
  },
  {
    id: 'getViewKey',
    method: 'get',
    path: '/api/groups/:name/view-key',
    tag: 'Access',
    summary: 'The view-only link’s key',
    description: 'null while the view-only link is off. The link is `/{name}?key=<viewKey>`.',
    key: 'write',
    answers: [
      {
        status: 200,
        description: 'The key, or null.',
        content: { 'application/json': ViewKeySchema },
      },
    ],
  },
  {
    id: 'enableViewKey',
    method: 'post',
    path: '/api/groups/:name/view-key',
    tag: 'Access',
    summary: 'Turn the view-only link on',
    description:
      'Its key is derived from the access key, so any member can show the same link again.',
    key: 'write',
    answers: [
      {
        status: 200,
        description: 'The view-only key.',
        content: { 'application/json': ViewKeySchema },
      },
    ],
    errors: ['busy', 'storage_unavailable'],
  },
  {
    id: 'disableViewKey',
    method: 'delete',
    path: '/api/groups/:name/view-key',
    tag: 'Access',
    summary: 'Turn the view-only link off',
    description: 'Its open live sockets are closed with 4410.',
    key: 'write',
    answers: [{ status: 204, description: 'Off.' }],
    errors: ['busy', 'storage_unavailable'],
  },
  {
    id: 'listTapLinks',
    method: 'get',
    path: '/api/groups/:name/links',
    tag: 'Access',
    summary: 'The group’s tap links',
    description: `Live links, oldest first, with what the activity log holds of their use (\`taps\`, \`lastUsedAt\`); never a key. At most ${String(MAX_TAP_LINKS_PER_GROUP)} per group.`,
    key: 'write',
    answers: [
      {
        status: 200,
        description: 'The links and the group’s bound.',
        content: { 'application/json': TapLinkListSchema },
      },
    ],
  },
  {
    id: 'createTapLink',
    method: 'post',
    path: '/api/groups/:name/links',
    tag: 'Access',
    summary: 'Make a tap link',
    description: `A link whose holder sees and taps only the counters of \`scope\` (every counter, chosen ones, or one section, followed as counters move), in the directions of \`can\`, and nothing else: any other change is 403 \`tap_only\`, a counter outside its scope 404 \`counter_not_found\`. Its changes are logged with \`link: { id, label }\`. \`key\` (64 hex characters; the link is \`/{name}?key=<key>\`) is in this answer only: the server keeps its SHA-256. A retry with the same Idempotency-Key answers 200 with the same link and no key. At most ${String(MAX_TAP_LINKS_PER_GROUP)} live links per group (409 \`too_many_links\`).`,
    key: 'write',
    body: { schema: TapLinkBodySchema, required: true },
    change: true,
    answers: [
      {
        status: 201,
        description: 'The new link, with its key.',
        content: { 'application/json': TapLinkCreatedSchema },
      },
      {
        status: 200,
        description: 'A retry of the same request: the link, without its key.',
        content: { 'application/json': TapLinkCreatedSchema },
      },
    ],
    errors: ['too_many_links'],
  },
  {
    id: 'revokeTapLink',
    method: 'delete',
    path: '/api/groups/:name/links/:id',
    tag: 'Access',
    summary: 'Revoke a tap link',
    description:
      'Its key stops at once on every instance: its live sockets are closed (4410) and its later calls, queued offline taps included, are answered 403 `wrong_key` with a sentence that says the link was revoked.',
    key: 'write',
    change: true,
    answers: [{ status: 204, description: 'Revoked.' }],
    errors: ['link_not_found'],
  },
];
