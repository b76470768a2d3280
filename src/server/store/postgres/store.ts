/**
 * PostgreSQL store: many stateless Tally instances on one database (any managed Postgres).
 *
 * Same contract as the SQLite store (test/integration/store.suite.ts), same commit algorithm
 * (src/server/domain/commit.ts). A batch is one transaction of a fixed number of round trips whatever its
 * size: BEGIN; lock the rows of the groups it touches, in id order (so two instances never
 * deadlock); read what the batch names in one statement; write every row and announce the
 * batch's changes with pg_notify in one statement; COMMIT. The announcement is sent if and only
 * if the batch commits.
 */
import { PostgresAlerts } from './alerts.js';
import type { StoredChainEntry } from '../../domain/log-chain.js';
import { alertsText, parseAlerts } from '../../domain/alert-config.js';
import { tapLinksText } from '../../domain/tap-links.js';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { ActivityEntry, CounterPeriod, HistoryPoint } from '../../../shared/activity.js';
import type { Counter, Tally } from '../../../shared/api.js';
import {
  DEFAULT_ACTIVITY_RETENTION_DAYS,
  PERIODS_KEPT_PER_COUNTER,
} from '../../../shared/limits.js';
import {
  COUNTED_TIME,
  DECREMENTS,
  INCREMENTS,
  PERIOD_FIELDS,
  TALLY_ENTRIES,
  LINK_TAPS,
  tallyGrouping,
  toPeriod,
  toTally,
  type PeriodRow,
  type TallyRow,
} from '../tallies.js';
import type { Change } from '../../../shared/protocol.js';
import {
  clientConfig,
  isConnectionFailure,
  notifyChannelOf,
  type PostgresConnection,
} from './connection.js';
import { Availability } from './availability.js';
import {
  COUNTER_FIELDS,
  COUNTER_ORDER,
  STORED_COUNTER_FIELDS,
  sectionLimitsText,
  toCounter,
  toGroup,
  toStoredCounter,
  type CounterRow,
  type GroupRow,
  type StoredCounterRow,
} from '../columns.js';
import type { StoredAnswer } from '../../domain/operation-ids.js';
import { commitBatch } from '../../domain/commit.js';
import type { StagedEntry } from '../../domain/import.js';
import {
  DROP_STAGED_SLICE,
  DROP_STALE_STAGED,
  STAGE_ENTRIES,
  publishStaged,
  stagedJson,
} from './import-staging.js';
import {
  runAsync,
  type BatchResult,
  type CounterWrite,
  type OperationIdWrite,
  type PeriodWrite,
  type ImportFound,
  type ImportLookup,
  type ReadAnswer,
  type ReadRequest,
  type StoredGroup,
  type GroupWrite,
  type ChainedEntryWrite,
} from '../../domain/commit-io.js';
import {
  ACTIVITY_FIELDS,
  EARLIER_COUNT_FIELDS,
  NOTED_ENTRIES,
  bucketWidthMs,
  earlierCountOf,
  historyPoints,
  placeEarlierCounts,
  type EarlierCount,
  type EarlierCountRow,
} from '../activity.js';
import { draftColumns, toActivityEntry, type ActivityRow } from '../../domain/entry-record.js';
import {
  ActivityTrimmer,
  deleteInChunks,
  ACTIVITY_TRIM_CHUNK,
  TRIM_ALL_PAGE,
  DEFAULT_STORE_QUOTAS,
  type StoreQuotas,
} from '../quotas.js';
import {
  StorageUnavailableError,
  StoreBusyError,
  type ActivityListQuery,
  type ChainEnds,
  type DuePeriod,
  type GroupRecord,
  type TalliesListQuery,
  type TapLinkUsage,
  type GroupState,
  type Operation,
  type OperationOutcome,
  type Store,
  type StoreAvailability,
} from '../types.js';
import { MIGRATIONS } from './migrations.js';

/** Operation ids deleted per statement when expired ones are pruned. */
const OPERATION_ID_PRUNE_CHUNK = 5_000;

/**
 * PostgreSQL error classes (SQLSTATE prefixes or codes) that mean writes cannot be committed at
 * all rather than that one operation was wrong: connection exceptions (08), insufficient
 * resources such as a full disk (53), operator intervention (57), read-only transaction (25006),
 * and Tally's tables or schema gone (42P01 undefined_table, 3F000 invalid_schema_name).
 */
const UNAVAILABLE_SQLSTATE = /^(08|53|57|25006$|42P01$|3F000$)/;

/**
 * How long one statement may go unanswered before its connection counts as lost, ms (client side:
 * a black-holed path answers nothing, and TCP alone would wait minutes). Tally's statements take
 * milliseconds, and a lock held by someone else ends sooner, with LOCK_TIMEOUT_MS. A batch past it
 * is answered `storage_unavailable` (not applied as far as the caller knows; a retry with its
 * operation id is answered from what was stored).
 */
const REPLY_TIMEOUT_MS = 4_000;
/**
 * Longest a batch waits for a row or table lock, ms (server side): a table locked by an operator
 * answers the batch `busy`, retryable, instead of holding the lane.
 */
const LOCK_TIMEOUT_MS = 2_500;
/**
 * The health check's and the recovery probe's write (and the probe's connect), ms: it answers
 * within a second when the database is there, so /api/health says 503 within 2 s of the database
 * going away.
 */
const PROBE_TIMEOUT_MS = 1_000;

/**
 * A statement with its own client-side timeout, ms: `pg` reads `query_timeout` from a query's
 * config, which its type definitions leave out.
 */
function timed<T extends pg.QueryConfig>(config: T, timeoutMs: number): T {
  return Object.assign(config, { query_timeout: timeoutMs });
}

/**
 * The socket under a `pg` connection (not in its type definitions): destroying it fails the
 * statement under way at once with "Connection terminated unexpectedly".
 */
function socketOf(client: pg.PoolClient): { destroy(): void } | undefined {
  return (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection
    ?.stream;
}

/** Longest a statement waits for a connection of the pool, ms. */
const POOL_WAIT_MS = 10_000;

/** SQLSTATE 55P03, lock_not_available: the lock wait ran past LOCK_TIMEOUT_MS. */
const LOCK_NOT_AVAILABLE = '55P03';

/** A driver error that fails every operation alike, as the error the API answers it with. */
function storageError(error: unknown): unknown {
  if (error instanceof StorageUnavailableError || error instanceof StoreBusyError) return error;
  if (isConnectionFailure(error)) {
    return new StorageUnavailableError(error instanceof Error ? error.message : String(error));
  }
  const code = (error as { code?: unknown } | null)?.code;
  if (code === LOCK_NOT_AVAILABLE) return new StoreBusyError();
  if (typeof code === 'string' && UNAVAILABLE_SQLSTATE.test(code)) {
    return new StorageUnavailableError(error instanceof Error ? error.message : code);
  }
  // No SQLSTATE: the connection itself failed (refused, reset, timed out).
  if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) {
    return new StorageUnavailableError(code);
  }
  if (error instanceof Error && /timeout exceeded when trying to connect/i.test(error.message)) {
    return new StorageUnavailableError(error.message);
  }
  return error;
}

/** The health check's write: one row, in its own transaction. */
const PROBE_WRITE = `INSERT INTO health_probe (id, at) VALUES (1, now())
  ON CONFLICT (id) DO UPDATE SET at = excluded.at`;

/** What BATCH_READ answers: one row of JSON arrays. */
interface BatchReadRow {
  operation_ids: {
    g: string;
    o: string;
    r: StoredAnswer;
    f: string | null;
    a: number | null;
  }[];
  sessions: { g: string; s: string; h: number; w: string }[];
  entries: ActivityRow[];
  counters: StoredCounterRow[];
  counts: { g: string; n: number }[];
}

/**
 * The reads of one commit round after the lock, in one statement: stored operation ids, activity
 * entries and counters by id, and capped counts of counters per group. Keys come as arrays
 * joined with unnest (a hash or index join), never `= ANY(array)`, which the planner may check
 * against every row one element at a time. Empty arrays read nothing.
 */
const BATCH_READ = `SELECT
  (SELECT coalesce(json_agg(json_build_object('g', o.group_id, 'o', o.op_id, 'r', o.result,
       'f', o.fingerprint, 'a', o.activity_id)), '[]'::json)
     FROM operation_ids o JOIN unnest($1::text[], $2::text[]) AS q(group_id, op_id)
       ON o.group_id = q.group_id AND o.op_id = q.op_id) AS operation_ids,
  (SELECT coalesce(json_agg(json_build_object('g', s.group_id, 's', s.session, 'h', s.high,
       'w', s.seen)), '[]'::json)
     FROM operation_sessions s JOIN unnest($10::text[], $11::text[]) AS q(group_id, session)
       ON s.group_id = q.group_id AND s.session = q.session) AS sessions,
  (SELECT coalesce(json_agg(a), '[]'::json)
     FROM (SELECT ${ACTIVITY_FIELDS} FROM activity JOIN unnest($3::bigint[]) AS q(id) USING (id)) a)
     AS entries,
  (SELECT coalesce(json_agg(c), '[]'::json)
     FROM (SELECT ${STORED_COUNTER_FIELDS} FROM counters
           JOIN unnest($4::text[]) AS q(id) USING (id)
           UNION ALL
           SELECT ${STORED_COUNTER_FIELDS} FROM counters
           JOIN unnest($7::text[]) AS w(gid) ON counters.group_id = w.gid
           UNION ALL
           SELECT ${STORED_COUNTER_FIELDS} FROM counters
           JOIN unnest($8::text[], $9::text[]) AS s(gid, sec)
             ON counters.group_id = s.gid AND counters.section = s.sec) c) AS counters,
  (SELECT coalesce(json_agg(json_build_object('g', g.id, 'n',
       (SELECT count(*) FROM (SELECT 1 FROM counters c WHERE c.group_id = g.id LIMIT $6) x))),
     '[]'::json)
     FROM unnest($5::text[]) AS g(id)) AS counts`;

/**
 * Every write of a batch in one statement: data-modifying CTEs each run once, to completion,
 * whether or not the final SELECT reads them, and all see the snapshot from before the statement
 * (the domain's commit never writes one row twice: a counter is deleted or written, not both). New
 * entries take ids from the sequence in entry order (`ids`), which the entries, the operation ids
 * and the undone marks refer to by their 1-based position. The final SELECT sends the batch's
 * announcements, delivered if and only if the transaction commits.
 */
const BATCH_WRITE = `WITH
  deleted AS (DELETE FROM counters WHERE id = ANY($1::text[])),
  deleted_periods AS (DELETE FROM counter_periods WHERE counter_id = ANY($1::text[])),
  counter_rows AS MATERIALIZED (
    SELECT * FROM json_to_recordset($2::json) AS v(id text, group_id text, name text,
      description text, value bigint, increment_step bigint, decrement_step bigint,
      thumbnail_url text, created_at timestamptz, created_seq bigint, version bigint,
      goal bigint, min_value bigint, max_value bigint, reset_period text, start_value bigint,
      section text, position bigint, period_start bigint, next_reset_at bigint,
      closed_total bigint, existed boolean)),
  updated AS (
    UPDATE counters c SET name = v.name, description = v.description, value = v.value,
      increment_step = v.increment_step, decrement_step = v.decrement_step,
      thumbnail_url = v.thumbnail_url, created_at = v.created_at, created_seq = v.created_seq,
      version = v.version, goal = v.goal, min_value = v.min_value, max_value = v.max_value,
      reset_period = v.reset_period, start_value = v.start_value, section = v.section,
      position = v.position, period_start = v.period_start, next_reset_at = v.next_reset_at,
      closed_total = v.closed_total
    FROM counter_rows v WHERE v.existed AND c.id = v.id),
  inserted AS (
    INSERT INTO counters (id, group_id, name, description, value, increment_step,
      decrement_step, thumbnail_url, created_at, created_seq, version, goal, min_value,
      max_value, reset_period, start_value, section, position, period_start, next_reset_at,
      closed_total)
    SELECT id, group_id, name, description, value, increment_step, decrement_step,
      thumbnail_url, created_at, created_seq, version, goal, min_value, max_value,
      reset_period, start_value, section, position, period_start, next_reset_at, closed_total
    FROM counter_rows WHERE NOT existed),
  groups_written AS (
    UPDATE counter_groups g SET display_name = v.display_name,
      profile_image_url = v.profile_image_url, access_key_hash = v.access_key_hash,
      view_key_hash = v.view_key_hash, seq = v.seq, time_zone = v.time_zone,
      week_start = v.week_start, section_limits = v.section_limits,
      alerts = CASE WHEN v.alerts_changed THEN v.alerts ELSE g.alerts END, log_head = v.log_head,
      tap_links = v.tap_links
    FROM json_to_recordset($3::json) AS v(id text, display_name text, profile_image_url text,
      access_key_hash text, view_key_hash text, seq bigint, time_zone text, week_start integer,
      section_limits text, alerts_changed boolean, alerts text, log_head text, tap_links text)
    WHERE g.id = v.id),
  -- A group's rules changed: the waiting alerts and logs of destinations no rule sends to any
  -- more go with them, so a group's logs are bounded by its destinations.
  changed_alerts AS MATERIALIZED (
    SELECT v.id, v.kept_destinations::jsonb AS kept
    FROM json_to_recordset($3::json) AS v(id text, alerts_changed boolean, kept_destinations text)
    WHERE v.alerts_changed),
  outbox_forgotten AS (
    DELETE FROM alert_outbox o USING changed_alerts c
    WHERE o.group_id = c.id AND NOT c.kept ? o.destination_id),
  deliveries_forgotten AS (
    DELETE FROM alert_deliveries d USING changed_alerts c
    WHERE d.group_id = c.id AND NOT c.kept ? d.destination_id),
  period_rows AS MATERIALIZED (
    SELECT * FROM json_to_recordset($11::json) AS p(counter_id text, group_id text,
      start_at bigint, end_at bigint, final_value bigint)),
  periods_written AS (
    INSERT INTO counter_periods (counter_id, group_id, start_at, end_at, final_value)
    SELECT counter_id, group_id, start_at, end_at, final_value FROM period_rows
    ON CONFLICT (counter_id, start_at)
    DO UPDATE SET end_at = excluded.end_at, final_value = excluded.final_value),
  periods_trimmed AS (
    -- The statement's snapshot does not hold the row just inserted: keep one fewer old ones
    -- (the 400th newest old one and older go).
    DELETE FROM counter_periods o USING period_rows p
    WHERE o.counter_id = p.counter_id AND o.start_at <= (
      SELECT start_at FROM counter_periods k WHERE k.counter_id = p.counter_id
      ORDER BY start_at DESC OFFSET ${PERIODS_KEPT_PER_COUNTER - 1} LIMIT 1)),
  -- Counts for periods that ended before this batch: each kept period whose span holds a
  -- count's time gains its delta (several counts into one period add up).
  periods_corrected AS (
    UPDATE counter_periods p SET final_value = p.final_value + s.total
    FROM (SELECT k.counter_id, k.start_at, sum(c.delta) AS total
          FROM json_to_recordset($14::json) AS c(counter_id text, at bigint, delta bigint)
          JOIN counter_periods k
            ON k.counter_id = c.counter_id AND k.start_at <= c.at AND k.end_at > c.at
          GROUP BY k.counter_id, k.start_at) s
    WHERE p.counter_id = s.counter_id AND p.start_at = s.start_at),
  ids AS MATERIALIZED (
    SELECT id, row_number() OVER (ORDER BY id) AS n
    FROM (SELECT nextval('activity_id_seq') AS id FROM generate_series(1, $4::int)) s),
  entries_written AS (
    INSERT INTO activity (id, group_id, seq, at, actor, kind, counter_id, counter_name,
      value_after, delta, detail, undo_of, undone_by, increments, decrements, hash, link_id,
      link_label, import_fingerprint, import_hash, note, counted_at)
    SELECT i.id, e.group_id, e.seq, to_timestamp(coalesce(e.at, $5::double precision) / 1000),
      e.actor, e.kind, e.counter_id, e.counter_name, e.value_after, e.delta, e.detail,
      coalesce(e.undo_of, u.id), b.id, e.increments, e.decrements, e.hash, e.link_id,
      e.link_label, e.import_fingerprint, e.import_hash, e.note, to_timestamp(e.counted_at / 1000)
    FROM json_to_recordset($6::json) AS e(n bigint, group_id text, seq bigint, at double precision,
      actor text, kind text, counter_id text, counter_name text, value_after bigint, delta bigint,
      detail text, undo_of bigint, undo_of_new bigint, undone_by_new bigint, increments bigint,
      decrements bigint, hash text, link_id text, link_label text, import_fingerprint text,
      import_hash text, note text, counted_at double precision)
    JOIN ids i ON i.n = e.n
    LEFT JOIN ids u ON u.n = e.undo_of_new
    LEFT JOIN ids b ON b.n = e.undone_by_new),
  undone AS (
    UPDATE activity SET undone_by = i.id
    FROM json_to_recordset($7::json) AS x(e bigint, b bigint) JOIN ids i ON i.n = x.b
    WHERE activity.id = x.e),
  operation_ids_written AS (
    INSERT INTO operation_ids (group_id, op_id, result, created_at, activity_id, fingerprint)
    SELECT o.g, o.o, o.r, to_timestamp($5::double precision / 1000), i.id, o.f
    FROM json_to_recordset($8::json) AS o(g text, o text, r jsonb, e bigint, f text)
    LEFT JOIN ids i ON i.n = o.e),
  sessions_written AS (
    INSERT INTO operation_sessions (group_id, session, high, seen, updated_at)
    SELECT s.g, s.s, s.h, s.w, to_timestamp($5::double precision / 1000)
    FROM json_to_recordset($12::json) AS s(g text, s text, h bigint, w text)
    ON CONFLICT (group_id, session) DO UPDATE SET high = excluded.high, seen = excluded.seen,
      updated_at = excluded.updated_at),
  alerts_written AS (
    INSERT INTO alert_outbox (group_id, destination_id, body, created_at, next_attempt_at)
    SELECT a.g, a.d, a.b, $5::bigint, greatest($5::bigint, (SELECT h.next_attempt_at
      FROM alert_outbox h WHERE h.group_id = a.g AND h.destination_id = a.d
      ORDER BY h.id LIMIT 1))
    FROM json_to_recordset($13::json) AS a(g text, d text, b text))
SELECT pg_notify($9, payload) FROM unnest($10::text[]) AS payload`;

const counterJson = ({
  groupId,
  createdSeq,
  existed,
  counter,
  position,
  nextResetAt,
  closedTotal,
}: CounterWrite) => ({
  id: counter.id,
  group_id: groupId,
  name: counter.name,
  description: counter.description,
  value: counter.value,
  increment_step: counter.incrementStep,
  decrement_step: counter.decrementStep,
  thumbnail_url: counter.thumbnailUrl,
  created_at: counter.createdAt,
  created_seq: createdSeq,
  version: counter.version,
  goal: counter.goal,
  min_value: counter.min,
  max_value: counter.max,
  reset_period: counter.reset,
  start_value: counter.startValue,
  section: counter.section,
  position,
  period_start: counter.periodStart === null ? null : Date.parse(counter.periodStart),
  next_reset_at: nextResetAt,
  closed_total: closedTotal,
  existed,
});

const periodJson = (period: PeriodWrite) => ({
  counter_id: period.counterId,
  group_id: period.groupId,
  start_at: period.start,
  end_at: period.end,
  final_value: period.value,
});

const groupJson = ({ record, seq, alerts, alertsChanged, logHead }: GroupWrite) => ({
  id: record.id,
  display_name: record.displayName,
  profile_image_url: record.profileImageUrl,
  access_key_hash: record.keyHash,
  view_key_hash: record.viewKeyHash,
  seq,
  time_zone: record.timeZone,
  week_start: record.weekStart,
  section_limits: sectionLimitsText(record.sectionLimits),
  tap_links: tapLinksText(record.tapLinks),
  log_head: logHead,
  alerts_changed: alertsChanged,
  alerts: alertsChanged ? alertsText(alerts) : null,
  kept_destinations: JSON.stringify(alerts.destinations.map((destination) => destination.id)),
});

/** An entry as BATCH_WRITE reads it; positions of new entries are 1-based. */
const entryJson = ({ draft, undoOf, undoneBy, hash }: ChainedEntryWrite, index: number) => ({
  n: index + 1,
  ...draftColumns(draft),
  at: draft.at ?? null,
  hash,
  undo_of: undoOf !== null && 'id' in undoOf ? undoOf.id : null,
  undo_of_new: undoOf !== null && 'draft' in undoOf ? undoOf.draft + 1 : null,
  undone_by_new: undoneBy === null ? null : undoneBy + 1,
});

/**
 * The operation-id rows as JSON text, written by hand: there is one per tap, and each `result`
 * is JSON text already, so it is spliced in rather than parsed and stringified again.
 */
function operationIdsJson(rows: readonly OperationIdWrite[]): string {
  const parts = rows.map(
    ({ groupId, opId, result, entry, fingerprint }) =>
      `{"g":${JSON.stringify(groupId)},"o":${JSON.stringify(opId)},"r":${result},"e":${
        entry === null ? 'null' : entry + 1
      },"f":${JSON.stringify(fingerprint)}}`,
  );
  return `[${parts.join(',')}]`;
}

export interface PostgresStoreOptions {
  connection: PostgresConnection;
  /** Most connections this instance opens for queries. */
  poolSize: number;
  /**
   * Encodes a group's committed changes as NOTIFY payloads (bus/notify.ts, given by the
   * composition root, so the store never imports the bus).
   */
  encodeAnnouncements: (groupId: string, changes: readonly Change[]) => string[];
  /** Whether changes are written to the activity log (ACTIVITY_LOG); on by default. */
  activityLog?: boolean;
  /** Per-group quotas; DEFAULT_STORE_QUOTAS unless given. */
  quotas?: StoreQuotas;
  /** Told when trimming the activity log fails (it is retried on later writes). */
  onTrimError?: (error: unknown) => void;
  /** The batches' clock, epoch ms (tests move it across period boundaries); Date.now. */
  clock?: () => number;
  /** How many days back a count may be for; DEFAULT_ACTIVITY_RETENTION_DAYS unless given. */
  countedAtWindowDays?: number;
}

export class PostgresStore implements Store {
  readonly kind = 'postgres' as const;
  readonly schema: string;
  readonly notifyChannel: string;
  /** Whether changes can be saved now; lost on a connection failure, back once a probe commits. */
  readonly availability: StoreAvailability;
  private readonly watch: Availability;
  private readonly connection: PostgresConnection;
  private readonly poolSize: number;
  /** Replaced when a connection fails, so no connection of the lost database is used again. */
  private currentPool: pg.Pool;
  /** Connections checked out for a transaction now: cut when the database is found gone. */
  private readonly checkedOut = new Set<pg.PoolClient>();
  private closed = false;
  private readonly encodeAnnouncements: PostgresStoreOptions['encodeAnnouncements'];
  private readonly activityLog: boolean;
  /** Counters per group; activity entries kept per group (store/quotas.ts). */
  private readonly quotas: StoreQuotas;
  private readonly trimmer: ActivityTrimmer;

  /** The batches' clock, epoch ms. */
  private readonly clock: () => number;
  /** How many days back a count may be for (CommitOptions). */
  private readonly countedAtWindowDays: number;

  constructor(options: PostgresStoreOptions) {
    this.clock = options.clock ?? Date.now;
    this.countedAtWindowDays = options.countedAtWindowDays ?? DEFAULT_ACTIVITY_RETENTION_DAYS;
    this.quotas = options.quotas ?? DEFAULT_STORE_QUOTAS;
    this.trimmer = new ActivityTrimmer(
      this.quotas.activityEntriesPerGroup,
      {
        boundary: (groupId, cap) => this.activityBoundary(groupId, cap),
        deleteUpTo: (groupId, upTo, limit) => this.deleteActivityUpTo(groupId, upTo, limit),
      },
      options.onTrimError ?? (() => undefined),
    );
    this.connection = options.connection;
    this.poolSize = options.poolSize;
    this.schema = options.connection.schema;
    this.notifyChannel = notifyChannelOf(this.schema);
    this.encodeAnnouncements = options.encodeAnnouncements;
    this.activityLog = options.activityLog ?? true;
    this.currentPool = this.newPool();
    this.watch = new Availability(() => this.probe());
    this.availability = this.watch;
    this.alerts = new PostgresAlerts(
      (text, values) => this.query(text, values),
      (work) => this.inTransaction(work),
    );
  }

  /** The alert outbox, delivery log, push subscriptions and settings (store/alerts.ts). */
  readonly alerts: PostgresAlerts;

  /** `work` in one transaction on a connection of the pool, rolled back if it throws. */
  private async inTransaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const { client, release } = await this.checkout();
    let failure: unknown;
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      failure = error;
      if (!isConnectionFailure(error)) await client.query('ROLLBACK').catch(() => undefined);
      throw this.failed(error);
    } finally {
      release(failure);
    }
  }

  /** The pool queries go through now (tests watch its statements). */
  get pool(): pg.Pool {
    return this.currentPool;
  }

  private newPool(): pg.Pool {
    const pool = new pg.Pool({
      ...clientConfig(this.connection, 'tally'),
      max: this.poolSize,
      query_timeout: REPLY_TIMEOUT_MS,
      lock_timeout: LOCK_TIMEOUT_MS,
      // Waiting for a free connection of the pool (and a new one's connect): under load many
      // statements may wait their turn, which is not a lost database, ms.
      connectionTimeoutMillis: POOL_WAIT_MS,
      idleTimeoutMillis: 30_000,
    });
    // An idle connection dropped (a restart, pg_terminate_backend, a firewall's idle cut) must not
    // end the process: the pool discards it, and one probe says whether the database is gone too
    // (then the store stops accepting changes until a probe commits) or only that connection was.
    const noteLost = (error: Error) => {
      if (pool === this.currentPool && isConnectionFailure(error)) this.checkConnection();
    };
    pool.on('error', noteLost);
    // Every connection keeps a listener of its own too. The pool takes its idle listener off a
    // connection as it hands it to a waiting caller, whose own listener is added a microtask
    // later: a server's FATAL read in the same chunk as the answer that freed the connection (a
    // restart ends every backend) would otherwise be an unhandled 'error' that ends the process.
    // The connection is then unusable, and its next statement fails as a lost connection.
    pool.on('connect', (client) => {
      client.on('error', noteLost);
    });
    return pool;
  }

  /**
   * A connection failed during a transaction or a probe: changes are refused at once from now
   * on, every connection of the pool is replaced, and the probe runs until the database commits a
   * write again. (A batch cut mid-transaction may have committed without this instance delivering
   * its change: the fresh snapshots sent when the store is back carry it.)
   */
  connectionLost(reason: unknown): void {
    if (this.closed) return;
    if (this.watch.saving) {
      const old = this.currentPool;
      this.currentPool = this.newPool();
      // Idle connections close now. Those in a transaction are cut: a statement waiting on a
      // black-holed path would otherwise hold its batch until its own timeout (REPLY_TIMEOUT_MS);
      // cut, it is answered `storage_unavailable` now (a retry is answered by operation id).
      for (const client of this.checkedOut) socketOf(client)?.destroy();
      old.end().catch(() => undefined);
    }
    this.watch.lost(reason);
  }

  /**
   * Another connection to the same database failed (the bus's listening connection): one probe
   * now says whether this store's connections are affected too. A single connection killed on
   * its own changes nothing; a database or path that is gone makes the store unavailable.
   */
  checkConnection(): void {
    if (this.closed || !this.watch.saving) return;
    this.probe().catch((error: unknown) => {
      if (isConnectionFailure(error)) this.connectionLost(error);
    });
  }

  /**
   * The recovery probe: the health check's one-row write on a connection of its own, past the
   * availability gate. Not through the pool: a connection waiting there (all busy, or a connect
   * hanging on a black-holed path) would make the probe as slow as the pool's wait.
   */
  private async probe(): Promise<void> {
    const client = new pg.Client({
      ...clientConfig(this.connection, 'tally-probe'),
      connectionTimeoutMillis: PROBE_TIMEOUT_MS,
    });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.query(timed({ text: PROBE_WRITE }, PROBE_TIMEOUT_MS));
    } finally {
      client.end().catch(() => undefined);
    }
  }

  /** Refuses at once while the database is known to be away. */
  private ensureAvailable(): void {
    if (!this.watch.saving) throw new StorageUnavailableError('database unavailable');
  }

  /** A statement's failure as the error to answer with; a lost connection is noted. */
  private failed(error: unknown): unknown {
    if (isConnectionFailure(error)) this.connectionLost(error);
    return storageError(error);
  }

  /** One statement outside a transaction. */
  private async query<R extends pg.QueryResultRow = pg.QueryResultRow>(
    text: string,
    values?: unknown[],
  ): Promise<pg.QueryResult<R>> {
    this.ensureAvailable();
    try {
      return await this.pool.query<R>(text, values);
    } catch (error) {
      throw this.failed(error);
    }
  }

  /**
   * A connection of the pool for a transaction. A checked-out connection has no listener of the
   * pool's: its `error` (the server going away between two statements) would otherwise end the
   * process. `release` discards the connection when it failed.
   */
  private async checkout(): Promise<{ client: pg.PoolClient; release: (error?: unknown) => void }> {
    this.ensureAvailable();
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      throw this.failed(error);
    }
    let broken: Error | undefined;
    const onError = (error: Error) => {
      broken ??= error;
    };
    client.on('error', onError);
    this.checkedOut.add(client);
    return {
      client,
      release: (error?: unknown) => {
        this.checkedOut.delete(client);
        client.off('error', onError);
        const failure = broken ?? (isConnectionFailure(error) ? (error as Error) : undefined);
        client.release(failure);
        if (failure) this.connectionLost(failure);
      },
    };
  }

  async migrate(): Promise<void> {
    // A connection of its own, without the pool's timeouts: a migration of a large table may take
    // minutes, and an instance starting beside one that migrates waits for its lock as long.
    const client = new pg.Client(clientConfig(this.connection, 'tally-migrate'));
    // A connection lost mid-migration rejects the statement under way; the event must not also
    // end the process with an unhandled 'error' (start-up then fails with its one-line reason).
    client.on('error', () => undefined);
    try {
      await client.connect();
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    const lock = `tally-migrations:${this.schema}`;
    try {
      await client.query('SET statement_timeout = 0');
      // Several instances starting at once: one migrates, the others wait and then find it done.
      await client.query('SELECT pg_advisory_lock(hashtext($1))', [lock]);
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${this.schema}`);
      await client.query(
        'CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
      );
      const { rows } = await client.query<{ v: number | null }>(
        'SELECT MAX(version) AS v FROM schema_migrations',
      );
      const current = rows[0]?.v ?? 0;
      for (const [index, sql] of MIGRATIONS.entries()) {
        const version = index + 1;
        if (version <= current) continue;
        await client.query('BEGIN');
        try {
          await client.query(sql);
          await client.query('INSERT INTO schema_migrations (version) VALUES ($1)', [version]);
          await client.query('COMMIT');
        } catch (error) {
          await client.query('ROLLBACK').catch(() => undefined);
          throw error;
        }
      }
    } finally {
      // Ending the session also releases the advisory lock.
      await client.end().catch(() => undefined);
    }
  }

  async findGroup(name: string): Promise<GroupRecord | null> {
    // Every request starts here: a vanished schema answers 503, not 500.
    const { rows } = await this.query<GroupRow>('SELECT * FROM counter_groups WHERE name = $1', [
      name,
    ]);
    return rows[0] ? toGroup(rows[0]) : null;
  }

  async createGroup(
    name: string,
    keyHash: string,
  ): Promise<{ group: GroupRecord; created: boolean }> {
    const inserted = await this.query<GroupRow>(
      `INSERT INTO counter_groups (id, name, display_name, access_key_hash)
       VALUES ($1, $2, $2, $3) ON CONFLICT (name) DO NOTHING RETURNING *`,
      [randomUUID(), name, keyHash],
    );
    if (inserted.rows[0]) return { group: toGroup(inserted.rows[0]), created: true };
    const existing = await this.findGroup(name);
    if (!existing) throw new Error('group vanished after a name conflict');
    return { group: existing, created: false };
  }

  async loadGroupState(groupId: string): Promise<GroupState | null> {
    return this.onConnection(async (client) => {
      // One snapshot for both reads, so the counters and seq belong to the same moment.
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      const groups = await client.query<GroupRow>('SELECT * FROM counter_groups WHERE id = $1', [
        groupId,
      ]);
      const group = groups.rows[0];
      if (!group) {
        await client.query('COMMIT');
        return null;
      }
      const counters = await client.query<CounterRow>(
        `SELECT ${COUNTER_FIELDS} FROM counters WHERE group_id = $1 ORDER BY ${COUNTER_ORDER}`,
        [groupId],
      );
      await client.query('COMMIT');
      return { group: toGroup(group), counters: counters.rows.map(toCounter), seq: group.seq };
    });
  }

  /**
   * Runs `work` on a connection of its own that begins (and ends) its own transaction: on an
   * error, rolled back (unless the connection was lost) and answered as a storage error.
   */
  private async onConnection<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const { client, release } = await this.checkout();
    let failure: unknown;
    try {
      return await work(client);
    } catch (error) {
      failure = error;
      if (!isConnectionFailure(error)) await client.query('ROLLBACK').catch(() => undefined);
      throw storageError(error);
    } finally {
      release(failure);
    }
  }

  /** The current row of one counter (resolves oversized announcements). */
  async loadCounter(groupId: string, counterId: string): Promise<Counter | null> {
    const { rows } = await this.query<CounterRow>(
      `SELECT ${COUNTER_FIELDS} FROM counters WHERE id = $1 AND group_id = $2`,
      [counterId, groupId],
    );
    return rows[0] ? toCounter(rows[0]) : null;
  }

  async commit(operations: readonly Operation[]): Promise<OperationOutcome[]> {
    try {
      return await this.commitBatch(operations);
    } catch (error) {
      throw storageError(error);
    }
  }

  /**
   * The health check's write through the pool, given PROBE_TIMEOUT_MS in all (waiting for a
   * connection included). Past it, or on a failed connection, the store's own probe decides
   * whether the database is gone.
   */
  async probeWrite(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    try {
      this.ensureAvailable();
      await Promise.race([
        this.pool.query(timed({ text: PROBE_WRITE }, PROBE_TIMEOUT_MS)),
        new Promise((_resolve, reject) => {
          timer = setTimeout(() => {
            reject(new Error('Query read timeout'));
          }, PROBE_TIMEOUT_MS);
        }),
      ]);
    } catch (error) {
      if (isConnectionFailure(error)) this.checkConnection();
      if (error instanceof StorageUnavailableError) throw error;
      throw new StorageUnavailableError(error instanceof Error ? error.message : String(error));
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Deletes expired operation ids in chunks, so no statement holds locks for long, then the
   * sessions of numbered taps unused as long.
   */
  async pruneOperationIds(olderThanMs: number): Promise<number> {
    const rows = await deleteInChunks(OPERATION_ID_PRUNE_CHUNK, async () => {
      if (this.closed) return null;
      const result = await this.query(
        `DELETE FROM operation_ids WHERE (group_id, op_id) IN (
           SELECT group_id, op_id FROM operation_ids
           WHERE created_at < now() - ($1::double precision * interval '1 millisecond') LIMIT $2)`,
        [olderThanMs, OPERATION_ID_PRUNE_CHUNK],
      );
      return result.rowCount ?? 0;
    });
    if (this.closed) return rows;
    // Sessions of numbered taps (ADR 24) unused as long: idle rows, so one statement locks
    // nothing a batch waits for (a session back after a day waits for this statement only).
    const sessions = await this.query(
      `DELETE FROM operation_sessions
       WHERE updated_at < now() - ($1::double precision * interval '1 millisecond')`,
      [olderThanMs],
    );
    return rows + (sessions.rowCount ?? 0);
  }

  async listActivity(groupId: string, query: ActivityListQuery): Promise<ActivityEntry[]> {
    const where = ['group_id = $1'];
    const params: unknown[] = [groupId];
    const add = (condition: string, value: unknown) => {
      params.push(value);
      where.push(condition.replace('?', `$${params.length}`));
    };
    if (query.before !== undefined) add('id < ?', query.before);
    if (query.after !== undefined) add('id > ?', query.after);
    if (query.counterId !== undefined) add('counter_id = ?', query.counterId);
    // Noted entries through their own partial indexes: a few among a group's many plain taps.
    if (query.noted === true) where.push(NOTED_ENTRIES);
    params.push(query.limit);
    const { rows } = await this.query<ActivityRow>(
      `SELECT ${ACTIVITY_FIELDS} FROM activity WHERE ${where.join(' AND ')}
       ORDER BY id ${query.order === 'newest' ? 'DESC' : 'ASC'} LIMIT $${params.length}`,
      params,
    );
    return rows.map(toActivityEntry);
  }

  async activityEntry(groupId: string, entryId: number): Promise<ActivityEntry | null> {
    const { rows } = await this.query<ActivityRow>(
      `SELECT ${ACTIVITY_FIELDS} FROM activity WHERE id = $1 AND group_id = $2`,
      [entryId, groupId],
    );
    const row = rows[0];
    return row ? toActivityEntry(row) : null;
  }

  async setEntryNote(
    groupId: string,
    entryId: number,
    note: string | null,
  ): Promise<ActivityEntry | null> {
    const { rows } = await this.query<ActivityRow>(
      `UPDATE activity SET note = $3 WHERE id = $1 AND group_id = $2 RETURNING ${ACTIVITY_FIELDS}`,
      [entryId, groupId, note],
    );
    const row = rows[0];
    return row ? toActivityEntry(row) : null;
  }

  /**
   * The first entry, then one index seek per time bucket (the bucket's last entry, on
   * activity_by_counter_time) in one statement: at most `points` seeks whatever the number of
   * entries.
   */
  async counterHistory(
    groupId: string,
    counterId: string,
    points: number,
  ): Promise<HistoryPoint[] | null> {
    const counter = await this.loadCounter(groupId, counterId);
    if (!counter) return null;
    const now = Date.now();
    const current = { t: now, v: counter.value };
    const first = await this.query<{ id: number; at: Date; value_after: number }>(
      `SELECT id, at, value_after FROM activity
       WHERE counter_id = $1 AND group_id = $2 AND value_after IS NOT NULL ORDER BY id LIMIT 1`,
      [counterId, groupId],
    );
    const firstRow = first.rows[0];
    if (!firstRow) return [current];
    const firstAt = firstRow.at.getTime();
    const width = bucketWidthMs(firstAt, now, points);
    const buckets = Math.ceil((now - firstAt + 1) / width);
    const { rows } = await this.query<{ id: number; at: Date; value_after: number }>(
      `SELECT a.id, a.at, a.value_after FROM generate_series(0, $3::int - 1) AS k
       CROSS JOIN LATERAL (
         SELECT id, at, value_after FROM activity
         WHERE counter_id = $1 AND group_id = $2 AND value_after IS NOT NULL
           AND at < to_timestamp(($4::double precision + (k + 1) * $5::double precision) / 1000)
         ORDER BY at DESC, id DESC LIMIT 1) a
       WHERE a.at >= to_timestamp(($4::double precision + k * $5::double precision) / 1000)
       ORDER BY k`,
      [counterId, groupId, buckets, firstAt, width],
    );
    const asMs = (row: { id: number; at: Date; value_after: number }) => ({
      ...row,
      at: row.at.getTime(),
    });
    const distinct = rows.filter((row, index) => row.id !== rows[index - 1]?.id);
    return placeEarlierCounts(
      historyPoints(asMs(firstRow), distinct.map(asMs), current),
      await this.earlierCounts(groupId, counterId),
      points,
    );
  }

  async recentValues(groupId: string, points: number): Promise<Record<string, HistoryPoint[]>> {
    // One statement: each counter's newest entries through a lateral index scan.
    const { rows } = await this.query<{ id: string; at: Date; value_after: number }>(
      `SELECT c.id, a.at, a.value_after FROM counters c
       CROSS JOIN LATERAL (
         SELECT id AS entry_id, at, value_after FROM activity
         WHERE counter_id = c.id AND group_id = c.group_id AND value_after IS NOT NULL
         ORDER BY id DESC LIMIT $2) a
       WHERE c.group_id = $1
       ORDER BY c.id, a.entry_id`,
      [groupId, points],
    );
    const { rows: counters } = await this.query<{ id: string }>(
      'SELECT id FROM counters WHERE group_id = $1',
      [groupId],
    );
    const series: Record<string, HistoryPoint[]> = {};
    for (const { id } of counters) series[id] = [];
    for (const row of rows) series[row.id]?.push({ t: row.at.getTime(), v: row.value_after });
    const earlier = await this.earlierCounts(groupId);
    if (earlier.length === 0) return series;
    for (const [id, values] of Object.entries(series)) {
      series[id] = placeEarlierCounts(
        values,
        earlier.filter((count) => count.counterId === id),
        points,
      );
    }
    return series;
  }

  /** The group's (or one counter's) changes counted for an earlier time (a partial index). */
  private async earlierCounts(groupId: string, counterId?: string): Promise<EarlierCount[]> {
    const { rows } = await this.query<EarlierCountRow>(
      `SELECT ${EARLIER_COUNT_FIELDS} FROM activity
       WHERE group_id = $1 AND counted_at IS NOT NULL AND ($2::text IS NULL OR counter_id = $2)`,
      [groupId, counterId ?? null],
    );
    return rows.map(earlierCountOf);
  }

  /**
   * Deletes entries past the age in chunks of ACTIVITY_TRIM_CHUNK, so no statement holds locks
   * for long, then trims every group to its cap of entries (store/quotas.ts).
   */
  async pruneActivity(olderThanMs: number): Promise<number> {
    const pruned = await this.pruneByAge(olderThanMs);
    await this.trimmer.trimAll(async (after) => {
      if (this.closed) return [];
      const { rows } = await this.query<{ id: string }>(
        'SELECT id FROM counter_groups WHERE id > $1 ORDER BY id LIMIT $2',
        [after, TRIM_ALL_PAGE],
      );
      return rows.map((row) => row.id);
    });
    return pruned;
  }

  /**
   * Deletes entries past the age, oldest first in chunks; each chunk's groups keep the hash of
   * their last entry deleted as their chain's anchor (ADR 30), in the chunk's transaction. The
   * groups are locked in id order first, as the commit locks them, so the two never deadlock.
   */
  private pruneByAge(olderThanMs: number): Promise<number> {
    return deleteInChunks(ACTIVITY_TRIM_CHUNK, () =>
      this.inTransaction(async (client) => {
        const { rows } = await client.query<{ id: string; group_id: string }>(
          `SELECT id, group_id FROM activity
           WHERE at < now() - ($1::double precision * interval '1 millisecond')
           ORDER BY id LIMIT $2`,
          [olderThanMs, ACTIVITY_TRIM_CHUNK],
        );
        if (rows.length === 0) return 0;
        await this.anchorAt(client, rows);
        const result = await client.query('DELETE FROM activity WHERE id = ANY($1::bigint[])', [
          rows.map((row) => row.id),
        ]);
        return result.rowCount ?? 0;
      }),
    );
  }

  /**
   * Entries about to be deleted (in id order): each group's last one's hash becomes its anchor
   * (an entry written before the chain, without a hash, leaves the anchor as it is).
   */
  private async anchorAt(
    client: pg.PoolClient,
    rows: readonly { id: string; group_id: string }[],
  ): Promise<void> {
    const last = new Map<string, string>();
    for (const row of rows) last.set(row.group_id, row.id);
    const groups = [...last.keys()].sort();
    await client.query(
      'SELECT 1 FROM counter_groups WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE',
      [groups],
    );
    await client.query(
      `UPDATE counter_groups g SET log_anchor = coalesce(a.hash, g.log_anchor)
       FROM activity a JOIN unnest($1::bigint[]) AS l(id) ON a.id = l.id
       WHERE g.id = a.group_id`,
      [[...last.values()]],
    );
  }

  activityChain(groupId: string, afterId: number, limit: number): Promise<StoredChainEntry[]> {
    return this.query<ActivityRow & { hash: string | null }>(
      `SELECT ${ACTIVITY_FIELDS}, hash FROM activity WHERE group_id = $1 AND id > $2
       ORDER BY id LIMIT $3`,
      [groupId, afterId, limit],
    ).then(({ rows }) => rows.map((row) => ({ hash: row.hash, entry: toActivityEntry(row) })));
  }

  async activityChainEnds(groupId: string): Promise<ChainEnds | null> {
    const { rows } = await this.query<{ log_anchor: string | null; log_head: string | null }>(
      'SELECT log_anchor, log_head FROM counter_groups WHERE id = $1',
      [groupId],
    );
    const row = rows[0];
    return row ? { anchor: row.log_anchor, head: row.log_head } : null;
  }

  /** Resolves when no activity trim is running (tests). */
  activityTrimmed(): Promise<void> {
    return this.trimmer.settled();
  }

  /** The newest of the group's entries beyond its `cap` newest, or null (activity_by_group). */
  private async activityBoundary(groupId: string, cap: number): Promise<number | null> {
    if (this.closed) return null;
    const { rows } = await this.query<{ id: number }>(
      'SELECT id FROM activity WHERE group_id = $1 ORDER BY id DESC LIMIT 1 OFFSET $2',
      [groupId, cap],
    );
    return rows[0]?.id ?? null;
  }

  /**
   * Deletes the group's oldest entries up to `upTo`, at most `limit`; the hash of the last one
   * deleted becomes the chain's anchor (ADR 30), in the same transaction.
   */
  private async deleteActivityUpTo(groupId: string, upTo: number, limit: number): Promise<number> {
    if (this.closed) return 0;
    return this.inTransaction(async (client) => {
      const { rows } = await client.query<{ id: string; group_id: string }>(
        `SELECT id, group_id FROM activity WHERE group_id = $1 AND id <= $2
         ORDER BY id LIMIT $3`,
        [groupId, upTo, limit],
      );
      const last = rows[rows.length - 1];
      if (!last) return 0;
      await this.anchorAt(client, [last]);
      const result = await client.query('DELETE FROM activity WHERE group_id = $1 AND id <= $2', [
        groupId,
        last.id,
      ]);
      return result.rowCount ?? 0;
    });
  }

  async tapLinkUsage(groupId: string): Promise<Map<string, TapLinkUsage>> {
    const { rows } = await this.query<{ link_id: string; taps: number; last: Date }>(
      `SELECT link_id, sum(${LINK_TAPS})::float8 AS taps, max(at) AS last
       FROM activity
       WHERE group_id = $1 AND link_id IS NOT NULL AND ${TALLY_ENTRIES} GROUP BY link_id`,
      [groupId],
    );
    return new Map(
      rows.map((row) => [row.link_id, { taps: row.taps, lastUsedAt: row.last.getTime() }]),
    );
  }

  async tallies(groupId: string, query: TalliesListQuery): Promise<Tally[]> {
    const where = ['group_id = $1', TALLY_ENTRIES];
    const values: unknown[] = [groupId];
    if (query.counterId !== undefined) {
      values.push(query.counterId);
      where.push(`counter_id = $${values.length}`);
    }
    if (query.since !== undefined) {
      // A change counted for an earlier time belongs to that time (ADR 36). It is never counted
      // for later than it was recorded, so `at >= since` still holds and keeps the index's range.
      values.push(query.since);
      const since = `to_timestamp($${values.length}::double precision / 1000)`;
      where.push(`at >= ${since}`, `${COUNTED_TIME} >= ${since}`);
    }
    values.push(query.limit);
    // float8 sums: exact to 2^53, and a bigint sum's numeric result would arrive as text.
    const { select, groupBy } = tallyGrouping(query.by ?? 'member');
    const { rows } = await this.query<TallyRow>(
      `SELECT ${select}, counter_id, sum(${INCREMENTS})::float8 AS increments,
         sum(${DECREMENTS})::float8 AS decrements
       FROM activity WHERE ${where.join(' AND ')}
       GROUP BY ${groupBy}
       ORDER BY sum(${INCREMENTS})::float8 - sum(${DECREMENTS})::float8 DESC, actor,
         link_label, counter_id
       LIMIT $${values.length}`,
      values,
    );
    return rows.map(toTally);
  }

  async counterPeriods(
    groupId: string,
    counterId: string,
    limit: number,
  ): Promise<CounterPeriod[] | null> {
    if (!(await this.loadCounter(groupId, counterId))) return null;
    const { rows } = await this.query<PeriodRow>(
      `SELECT ${PERIOD_FIELDS} FROM counter_periods WHERE counter_id = $1 AND group_id = $2
       ORDER BY start_at DESC LIMIT $3`,
      [counterId, groupId, limit],
    );
    return rows.map(toPeriod);
  }

  async groupPeriods(groupId: string): Promise<CounterPeriod[]> {
    const { rows } = await this.query<PeriodRow>(
      `SELECT ${PERIOD_FIELDS} FROM counter_periods WHERE group_id = $1
       ORDER BY start_at, counter_id`,
      [groupId],
    );
    return rows.map(toPeriod);
  }

  async duePeriods(now: number, limit: number): Promise<DuePeriod[]> {
    const { rows } = await this.query<{ group_id: string; id: string }>(
      `SELECT group_id, id FROM counters WHERE next_reset_at IS NOT NULL AND next_reset_at <= $1
       ORDER BY next_reset_at LIMIT $2`,
      [now, limit],
    );
    return rows.map((row) => ({ groupId: row.group_id, counterId: row.id }));
  }

  async groupSeq(groupId: string): Promise<number | null> {
    const { rows } = await this.query<{ seq: number }>(
      'SELECT seq FROM counter_groups WHERE id = $1',
      [groupId],
    );
    return rows[0]?.seq ?? null;
  }

  async ping(): Promise<void> {
    await this.query('SELECT 1');
  }

  async close(): Promise<void> {
    this.closed = true;
    this.watch.close();
    await this.trimmer.stop();
    if (!this.pool.ended) await this.pool.end();
  }

  // ---- inside the batch transaction: the reads and writes of domain/commit.ts ----------------

  private commitOptions() {
    return {
      activityLog: this.activityLog,
      countersPerGroup: this.quotas.countersPerGroup,
      activityEntriesPerGroup: this.quotas.activityEntriesPerGroup,
      countedAtWindowDays: this.countedAtWindowDays,
    };
  }

  /**
   * What committing `operation` alone would answer now, writing nothing: the commit's reads
   * (its group's row locked as a commit would, for as long as they take) in a transaction rolled
   * back (an import's preview).
   */
  async preview(operation: Operation): Promise<OperationOutcome> {
    return this.onConnection(async (client) => {
      await client.query('BEGIN');
      const options = { ...this.commitOptions(), now: this.clock(), preview: true };
      const { outcomes } = await runAsync(commitBatch([operation], options), (request) =>
        this.read(client, request),
      );
      await client.query('ROLLBACK');
      const [outcome] = outcomes;
      if (!outcome) throw new Error('the commit answered no outcome');
      return outcome;
    });
  }

  async importedFingerprints(
    groupId: string,
    fingerprints: readonly string[],
  ): Promise<Set<string>> {
    const { rows } = await this.query<{ f: string }>(
      `SELECT a.import_fingerprint AS f FROM activity a
       JOIN unnest($2::text[]) AS k(fingerprint)
         ON a.group_id = $1 AND a.import_fingerprint = k.fingerprint`,
      [groupId, fingerprints],
    );
    return new Set(rows.map((row) => row.f));
  }

  async stageImport(importId: string, entries: readonly StagedEntry[]): Promise<void> {
    await this.query(STAGE_ENTRIES, [importId, JSON.stringify(entries.map(stagedJson))]);
  }

  async dropStagedImport(importId: string, limit: number): Promise<number> {
    return (await this.query(DROP_STAGED_SLICE, [importId, limit])).rowCount ?? 0;
  }

  async dropStaleImports(before: number): Promise<number> {
    return (await this.query(DROP_STALE_STAGED, [before])).rowCount ?? 0;
  }

  private async commitBatch(operations: readonly Operation[]): Promise<OperationOutcome[]> {
    const { client, release } = await this.checkout();
    let failure: unknown;
    try {
      await client.query('BEGIN');
      const options = { ...this.commitOptions(), now: this.clock() };
      const result = await runAsync(commitBatch(operations, options), (request) =>
        this.read(client, request),
      );
      await this.write(client, result, options.now);
      // A connection lost while COMMIT is under way leaves its outcome unknown: the batch is
      // answered `storage_unavailable` all the same, a retry with its operation id is answered
      // from what was stored, and live clients get fresh snapshots when the database is back.
      await client.query('COMMIT');
      this.trimmer.noteBatch(result.writes.entries.map(({ draft }) => draft.groupId));
      if (result.writes.alerts.length > 0) this.alerts.written();
      return result.outcomes;
    } catch (error) {
      failure = error;
      // A lost connection has nothing to roll back (the server ends the transaction with it).
      if (!isConnectionFailure(error)) {
        await client.query('ROLLBACK').catch(() => undefined);
      }
      throw error;
    } finally {
      release(failure);
    }
  }

  /**
   * One round of the commit's reads in at most two statements, whatever the batch's size: the
   * groups' rows are locked first (in id order, so two instances never deadlock) in a statement
   * of their own, so that the rest, read in one statement as JSON, is read after the lock.
   */
  private async read(client: pg.PoolClient, request: ReadRequest): Promise<ReadAnswer> {
    const groups: StoredGroup[] = [];
    if (request.groups.length > 0) {
      const { rows } = await client.query<GroupRow>({
        name: 'tally-lock-groups',
        text: 'SELECT * FROM counter_groups WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE',
        values: [request.groups],
      });
      for (const row of rows) {
        groups.push({
          record: toGroup(row),
          seq: row.seq,
          alerts: parseAlerts(row.alerts),
          logHead: row.log_head,
        });
      }
    }
    const answer: ReadAnswer = {
      groups,
      operationIds: [],
      sessions: [],
      entries: [],
      counters: [],
      counts: new Map(),
    };
    const { operationIds, sessions, entries, counters, countGroups, groupCounters, sections } =
      request;
    if (
      operationIds.length +
        sessions.length +
        entries.length +
        counters.length +
        countGroups.length +
        groupCounters.length +
        sections.length ===
      0
    ) {
      return answer;
    }
    const { rows } = await client.query<BatchReadRow>({
      name: 'tally-batch-read',
      text: BATCH_READ,
      values: [
        operationIds.map((key) => key.groupId),
        operationIds.map((key) => key.opId),
        entries,
        counters,
        countGroups,
        request.countCap,
        groupCounters,
        sections.map((key) => key.groupId),
        sections.map((key) => key.section),
        sessions.map((key) => key.groupId),
        sessions.map((key) => key.session),
      ],
    });
    const row = rows[0];
    if (!row) return answer;
    answer.operationIds = row.operation_ids.map((stored) => ({
      groupId: stored.g,
      opId: stored.o,
      result: stored.r,
      fingerprint: stored.f,
      activityId: stored.a,
    }));
    answer.sessions = row.sessions.map((stored) => ({
      groupId: stored.g,
      session: stored.s,
      high: stored.h,
      seen: stored.w,
    }));
    answer.entries = row.entries.map((entry) => ({
      groupId: entry.group_id,
      entry: toActivityEntry(entry),
    }));
    answer.counters = row.counters.map(toStoredCounter);
    answer.counts = new Map(row.counts.map((count) => [count.g, count.n]));
    if (request.imports) answer.imports = await this.readImports(client, request.imports);
    return answer;
  }

  /** An import's lookups: each group's entries, and which fingerprints its log holds. */
  private async readImports(
    client: pg.PoolClient,
    lookups: readonly ImportLookup[],
  ): Promise<ImportFound[]> {
    const found: ImportFound[] = [];
    for (const { groupId, fingerprints } of lookups) {
      const { rows } = await client.query<{ entries: string; known: string[] | null }>(
        `SELECT (SELECT count(*) FROM activity WHERE group_id = $1) AS entries,
           (SELECT array_agg(a.import_fingerprint) FROM activity a
              JOIN unnest($2::text[]) AS f(fingerprint)
                ON a.group_id = $1 AND a.import_fingerprint = f.fingerprint) AS known`,
        [groupId, fingerprints],
      );
      found.push({
        groupId,
        entries: Number(rows[0]?.entries ?? 0),
        known: rows[0]?.known ?? [],
      });
    }
    return found;
  }

  /**
   * A batch's writes and its announcement in one statement (BATCH_WRITE), whatever the batch
   * holds: the rows travel as JSON arrays, so the statement's text never changes and stays
   * prepared.
   */
  private async write(client: pg.PoolClient, result: BatchResult, now: number): Promise<void> {
    const { writes } = result;
    const payloads: string[] = [];
    for (const [groupId, changes] of result.changes) {
      payloads.push(...this.encodeAnnouncements(groupId, changes));
    }
    if (
      writes.counters.length +
        writes.deletedCounters.length +
        writes.groups.length +
        writes.entries.length +
        writes.operationIds.length +
        writes.sessions.length +
        writes.periods.length +
        writes.periodCorrections.length +
        writes.alerts.length +
        payloads.length ===
      0
    ) {
      return;
    }
    await client.query({
      name: 'tally-batch-write',
      text: BATCH_WRITE,
      values: [
        writes.deletedCounters,
        JSON.stringify(writes.counters.map(counterJson)),
        JSON.stringify(writes.groups.map(groupJson)),
        writes.entries.length,
        now,
        JSON.stringify(writes.entries.map(entryJson)),
        JSON.stringify(writes.undone.map(({ entryId, by }) => ({ e: entryId, b: by + 1 }))),
        operationIdsJson(writes.operationIds),
        this.notifyChannel,
        payloads,
        JSON.stringify(writes.periods.map(periodJson)),
        JSON.stringify(
          writes.sessions.map(({ groupId, session, high, seen }) => ({
            g: groupId,
            s: session,
            h: high,
            w: seen,
          })),
        ),
        JSON.stringify(
          writes.alerts.map(({ groupId, destinationId, body }) => ({
            g: groupId,
            d: destinationId,
            b: body,
          })),
        ),
        JSON.stringify(
          writes.periodCorrections.map(({ counterId, at, delta }) => ({
            counter_id: counterId,
            at,
            delta,
          })),
        ),
      ],
    });
    for (const published of writes.publishedImports ?? []) await publishStaged(client, published);
  }
}
