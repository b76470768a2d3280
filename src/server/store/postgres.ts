/**
 * PostgreSQL store: many stateless Tally instances on one database (any managed Postgres).
 *
 * Same contract as the SQLite store (test/integration/store.suite.ts). A batch is one
 * transaction that first locks the rows of the groups it touches, in id order (so two instances
 * never deadlock), takes the groups' change numbers, applies each operation as one statement
 * (increments as `value = value + times * step`), and announces the batch's changes with
 * pg_notify inside the same transaction: the announcement is sent if and only if the batch commits.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { ActivityEntry, HistoryPoint } from '../../shared/activity.js';
import type { Counter, CounterPatch, GroupPatch } from '../../shared/api.js';
import { DEFAULT_STEP, MAX_VALUE, MIN_VALUE } from '../../shared/limits.js';
import { MESSAGES } from '../../shared/messages.js';
import type { Change } from '../../shared/protocol.js';
import { clientConfig, notifyChannelOf, type PostgresConnection } from '../postgres/connection.js';
import {
  COUNTER_COLUMNS,
  COUNTER_FIELDS,
  GROUP_COLUMNS,
  toCounter,
  toGroup,
  type CounterRow,
  type GroupRow,
} from './columns.js';
import {
  accessChanged,
  activityNotFound,
  adjusted,
  alreadyUndone,
  counterNotFound,
  counterOutcome,
  created,
  definedEntries,
  deletedOutcome,
  failed,
  groupNotFound,
  groupUpdated,
  markUndo,
  tagWithOperationId,
  valueOutOfRange,
  type Applied,
} from './outcomes.js';
import {
  adjustOutcomes,
  counterRef,
  duplicateOutcome,
  fingerprintsOf,
  operationIdReused,
  planBatch,
  reuseOf,
  readsEarlierWrites,
  type Step,
  type StoredAnswer,
} from './batch.js';
import {
  ACTIVITY_FIELDS,
  adjustDrafts,
  bucketWidthMs,
  historyPoints,
  counterDraft,
  detailText,
  toActivityEntry,
  updateDraft,
  type ActivityDraft,
  type ActivityRow,
} from './activity.js';
import { inverseOf } from './undo.js';
import {
  ActivityTrimmer,
  deleteInChunks,
  tooManyCounters,
  ACTIVITY_TRIM_CHUNK,
  TRIM_ALL_PAGE,
  type StoreQuotas,
} from './quotas.js';
import { DEFAULT_LIMITS } from '../config.js';
import {
  StorageUnavailableError,
  type ActivityListQuery,
  type GroupRecord,
  type GroupState,
  type Operation,
  type OperationOutcome,
  type Store,
} from './types.js';

/** Operation ids deleted per statement when expired ones are pruned. */
const OPERATION_ID_PRUNE_CHUNK = 5_000;

/**
 * PostgreSQL error classes (SQLSTATE prefixes or codes) that mean writes cannot be committed at
 * all rather than that one operation was wrong: connection exceptions (08), insufficient
 * resources such as a full disk (53), operator intervention (57), read-only transaction (25006),
 * and Tally's tables or schema gone (42P01 undefined_table, 3F000 invalid_schema_name).
 */
const UNAVAILABLE_SQLSTATE = /^(08|53|57|25006$|42P01$|3F000$)/;

/** A driver error that fails every operation alike, as the error the API answers it with. */
function storageError(error: unknown): unknown {
  if (error instanceof StorageUnavailableError) return error;
  const code = (error as { code?: unknown } | null)?.code;
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

/** The migrations, in order; each runs once, under an advisory lock. */
const MIGRATIONS: readonly string[] = [
  `CREATE TABLE counter_groups (
     id text PRIMARY KEY,
     name text NOT NULL UNIQUE,
     display_name text NOT NULL,
     profile_image_url text,
     access_key_hash text NOT NULL,
     created_at timestamptz NOT NULL DEFAULT now(),
     seq bigint NOT NULL DEFAULT 0
   );
   CREATE TABLE counters (
     id text PRIMARY KEY,
     group_id text NOT NULL REFERENCES counter_groups(id),
     name text NOT NULL,
     description text NOT NULL,
     value bigint NOT NULL,
     increment_step bigint NOT NULL CHECK (increment_step >= 1),
     decrement_step bigint NOT NULL CHECK (decrement_step >= 1),
     thumbnail_url text,
     created_at timestamptz NOT NULL,
     created_seq bigint NOT NULL,
     version bigint NOT NULL
   );
   CREATE INDEX counters_by_group ON counters (group_id, created_at, created_seq);
   CREATE TABLE operation_ids (
     group_id text NOT NULL,
     op_id text NOT NULL,
     result jsonb NOT NULL,
     created_at timestamptz NOT NULL DEFAULT now(),
     PRIMARY KEY (group_id, op_id)
   );
   CREATE INDEX operation_ids_by_age ON operation_ids (created_at);`,
  // 2: the activity log (shared/activity.ts, ADR 0007). BRIN on `at`: entries arrive in time
  // order, so a few kilobytes of index serve the age-based pruning.
  `CREATE TABLE activity (
     id bigserial PRIMARY KEY,
     group_id text NOT NULL,
     seq bigint NOT NULL,
     at timestamptz NOT NULL DEFAULT now(),
     actor text NOT NULL,
     kind text NOT NULL,
     counter_id text,
     counter_name text,
     value_after bigint,
     delta bigint,
     detail text,
     undo_of bigint,
     undone_by bigint
   );
   CREATE INDEX activity_by_group ON activity (group_id, id);
   CREATE INDEX activity_by_counter ON activity (counter_id, id) WHERE counter_id IS NOT NULL;
   CREATE INDEX activity_by_age ON activity USING brin (at);
   ALTER TABLE operation_ids ADD COLUMN activity_id bigint;`,
  // 3: view-only links (issue 8): the hash of the view-only key, null while there is none.
  `ALTER TABLE counter_groups ADD COLUMN view_key_hash text;`,
  // 4: (issue 14) what each operation id meant (batch.ts fingerprintOf; null for older rows),
  // and the one-row table the health check's write probe updates.
  `ALTER TABLE operation_ids ADD COLUMN fingerprint text;
   CREATE TABLE health_probe (id integer PRIMARY KEY CHECK (id = 1), at timestamptz NOT NULL);`,
  // 5: a counter's history as index seeks by time (issue 14: one seek per chart bucket, never a
  // scan of every entry of the counter).
  `CREATE INDEX activity_by_counter_time ON activity (counter_id, at, id) WHERE counter_id IS NOT NULL;`,
];

/** One batch's transaction and what it has decided so far. */
interface PostgresBatch {
  client: pg.PoolClient;
  operations: readonly Operation[];
  /** Each locked group's latest change number. */
  seqs: Map<string, number>;
  /** Operation ids to store with their answers, written in one statement (writeActivity). */
  remembered: {
    groupId: string;
    opId: string;
    result: string;
    draft?: ActivityDraft | undefined;
  }[];
  /** Each operation's fingerprint by group and operation id (its first use in the batch). */
  fingerprints: Map<string, string>;
  /** Activity entries of the batch not yet written (writeActivity: at its end, before an undo). */
  drafts: ActivityDraft[];
  /** Entries taken back in this batch, and the entries that took them back. */
  undone: Set<number>;
  undos: { draft: ActivityDraft; target: number }[];
  /** Activity entries written per group (told to the trimmer after the commit). */
  written: Map<string, number>;
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
  /** Per-group quotas; DEFAULT_LIMITS unless given. */
  quotas?: StoreQuotas;
  /** Told when trimming the activity log fails (it is retried on later writes). */
  onTrimError?: (error: unknown) => void;
}

export class PostgresStore implements Store {
  readonly kind = 'postgres' as const;
  readonly pool: pg.Pool;
  readonly schema: string;
  readonly notifyChannel: string;
  private readonly encodeAnnouncements: PostgresStoreOptions['encodeAnnouncements'];
  private readonly activityLog: boolean;
  /** Counters per group; activity entries kept per group (store/quotas.ts). */
  private readonly quotas: StoreQuotas;
  private readonly trimmer: ActivityTrimmer;

  constructor(options: PostgresStoreOptions) {
    this.quotas = options.quotas ?? DEFAULT_LIMITS;
    this.trimmer = new ActivityTrimmer(
      this.quotas.activityEntriesPerGroup,
      {
        boundary: (groupId, cap) => this.activityBoundary(groupId, cap),
        deleteUpTo: (groupId, upTo, limit) => this.deleteActivityUpTo(groupId, upTo, limit),
      },
      options.onTrimError ?? (() => undefined),
    );
    this.schema = options.connection.schema;
    this.notifyChannel = notifyChannelOf(this.schema);
    this.encodeAnnouncements = options.encodeAnnouncements;
    this.activityLog = options.activityLog ?? true;
    this.pool = new pg.Pool({
      ...clientConfig(options.connection, 'tally'),
      max: options.poolSize,
      // A query waiting this long for a free connection fails instead of hanging, ms.
      connectionTimeoutMillis: 10_000,
      idleTimeoutMillis: 30_000,
    });
    // An idle connection dropped by the server must not crash the process; the pool replaces it.
    this.pool.on('error', () => undefined);
  }

  async migrate(): Promise<void> {
    const client = await this.pool.connect();
    const lock = `tally-migrations:${this.schema}`;
    try {
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
          await client.query('ROLLBACK');
          throw error;
        }
      }
    } finally {
      await client.query('SELECT pg_advisory_unlock(hashtext($1))', [lock]).catch(() => undefined);
      client.release();
    }
  }

  async findGroup(name: string): Promise<GroupRecord | null> {
    // Every request starts here: a vanished schema answers 503, not 500.
    const { rows } = await this.pool
      .query<GroupRow>('SELECT * FROM counter_groups WHERE name = $1', [name])
      .catch((error: unknown) => {
        throw storageError(error);
      });
    return rows[0] ? toGroup(rows[0]) : null;
  }

  async createGroup(
    name: string,
    keyHash: string,
  ): Promise<{ group: GroupRecord; created: boolean }> {
    const inserted = await this.pool.query<GroupRow>(
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
    const client = await this.pool.connect();
    try {
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
        `SELECT ${COUNTER_FIELDS} FROM counters WHERE group_id = $1 ORDER BY created_at, created_seq`,
        [groupId],
      );
      await client.query('COMMIT');
      return { group: toGroup(group), counters: counters.rows.map(toCounter), seq: group.seq };
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  /** The current row of one counter (resolves oversized announcements). */
  async loadCounter(groupId: string, counterId: string): Promise<Counter | null> {
    const { rows } = await this.pool.query<CounterRow>(
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

  async probeWrite(): Promise<void> {
    try {
      await this.pool.query(
        `INSERT INTO health_probe (id, at) VALUES (1, now())
         ON CONFLICT (id) DO UPDATE SET at = excluded.at`,
      );
    } catch (error) {
      throw new StorageUnavailableError(error instanceof Error ? error.message : String(error));
    }
  }

  private async commitBatch(operations: readonly Operation[]): Promise<OperationOutcome[]> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const groupIds = [...new Set(operations.map((operation) => operation.groupId))].sort();
      const locked = await client.query<{ id: string; seq: number }>(
        'SELECT id, seq FROM counter_groups WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE',
        [groupIds],
      );
      const fingerprints = fingerprintsOf(operations);
      const batch: PostgresBatch = {
        client,
        operations,
        seqs: new Map(locked.rows.map((row) => [row.id, row.seq])),
        remembered: [],
        fingerprints: new Map(),
        drafts: [],
        undone: new Set(),
        undos: [],
        written: new Map(),
      };
      operations.forEach(({ groupId, opId }, index) => {
        const key = `${groupId}\u0000${opId}`;
        const fingerprint = fingerprints[index];
        if (fingerprint !== undefined && !batch.fingerprints.has(key)) {
          batch.fingerprints.set(key, fingerprint);
        }
      });
      const startSeqs = new Map(batch.seqs);
      const outcomes = new Array<OperationOutcome | undefined>(operations.length);
      for (const [index, outcome] of await this.replays(client, operations, fingerprints)) {
        outcomes[index] = outcome;
      }
      const replayed = new Set(outcomes.flatMap((outcome, index) => (outcome ? [index] : [])));
      const plan = planBatch(operations, replayed, fingerprints);
      for (const step of plan.steps) {
        if (step.kind === 'single') {
          if (readsEarlierWrites(operations[step.index] as Operation)) {
            await this.writeActivity(batch);
          }
          outcomes[step.index] = await this.applyOne(batch, step.index);
        } else {
          for (const [index, outcome] of await this.applyAdjust(batch, step)) {
            outcomes[index] = outcome;
          }
        }
      }
      for (const [index, first] of plan.duplicates) {
        outcomes[index] = duplicateOutcome(outcomes[first]);
      }
      for (const index of plan.reused) outcomes[index] = operationIdReused();
      await this.writeActivity(batch);
      const changed = [...batch.seqs].filter(([id, seq]) => startSeqs.get(id) !== seq);
      if (changed.length > 0) {
        await client.query(
          `UPDATE counter_groups SET seq = v.seq
           FROM unnest($1::text[], $2::bigint[]) AS v(id, seq) WHERE counter_groups.id = v.id`,
          [changed.map(([id]) => id), changed.map(([, seq]) => seq)],
        );
      }
      const final = outcomes.map((outcome) => outcome ?? groupNotFound());
      await this.announce(client, operations, final);
      await client.query('COMMIT');
      for (const [groupId, entries] of batch.written) this.trimmer.noteWritten(groupId, entries);
      this.trimmer.kick();
      return final;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  /** Deletes expired operation ids in chunks, so no statement holds locks for long. */
  pruneOperationIds(olderThanMs: number): Promise<number> {
    return deleteInChunks(OPERATION_ID_PRUNE_CHUNK, async () => {
      if (this.pool.ended) return null;
      const result = await this.pool.query(
        `DELETE FROM operation_ids WHERE (group_id, op_id) IN (
           SELECT group_id, op_id FROM operation_ids
           WHERE created_at < now() - ($1::double precision * interval '1 millisecond') LIMIT $2)`,
        [olderThanMs, OPERATION_ID_PRUNE_CHUNK],
      );
      return result.rowCount ?? 0;
    });
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
    params.push(query.limit);
    const { rows } = await this.pool.query<ActivityRow>(
      `SELECT ${ACTIVITY_FIELDS} FROM activity WHERE ${where.join(' AND ')}
       ORDER BY id ${query.order === 'newest' ? 'DESC' : 'ASC'} LIMIT $${params.length}`,
      params,
    );
    return rows.map(toActivityEntry);
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
    const first = await this.pool.query<{ id: number; at: Date; value_after: number }>(
      `SELECT id, at, value_after FROM activity
       WHERE counter_id = $1 AND group_id = $2 AND value_after IS NOT NULL ORDER BY id LIMIT 1`,
      [counterId, groupId],
    );
    const firstRow = first.rows[0];
    if (!firstRow) return [current];
    const firstAt = firstRow.at.getTime();
    const width = bucketWidthMs(firstAt, now, points);
    const buckets = Math.ceil((now - firstAt + 1) / width);
    const { rows } = await this.pool.query<{ id: number; at: Date; value_after: number }>(
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
    return historyPoints(asMs(firstRow), distinct.map(asMs), current);
  }

  async recentValues(groupId: string, points: number): Promise<Record<string, HistoryPoint[]>> {
    // One statement: each counter's newest entries through a lateral index scan.
    const { rows } = await this.pool.query<{ id: string; at: Date; value_after: number }>(
      `SELECT c.id, a.at, a.value_after FROM counters c
       CROSS JOIN LATERAL (
         SELECT id AS entry_id, at, value_after FROM activity
         WHERE counter_id = c.id AND group_id = c.group_id AND value_after IS NOT NULL
         ORDER BY id DESC LIMIT $2) a
       WHERE c.group_id = $1
       ORDER BY c.id, a.entry_id`,
      [groupId, points],
    );
    const { rows: counters } = await this.pool.query<{ id: string }>(
      'SELECT id FROM counters WHERE group_id = $1',
      [groupId],
    );
    const series: Record<string, HistoryPoint[]> = {};
    for (const { id } of counters) series[id] = [];
    for (const row of rows) series[row.id]?.push({ t: row.at.getTime(), v: row.value_after });
    return series;
  }

  /**
   * Deletes entries past the age in chunks of ACTIVITY_TRIM_CHUNK, so no statement holds locks
   * for long, then trims every group to its cap of entries (store/quotas.ts).
   */
  async pruneActivity(olderThanMs: number): Promise<number> {
    const pruned = await this.pruneByAge(olderThanMs);
    await this.trimmer.trimAll(async (after) => {
      if (this.pool.ended) return [];
      const { rows } = await this.pool.query<{ id: string }>(
        'SELECT id FROM counter_groups WHERE id > $1 ORDER BY id LIMIT $2',
        [after, TRIM_ALL_PAGE],
      );
      return rows.map((row) => row.id);
    });
    return pruned;
  }

  private pruneByAge(olderThanMs: number): Promise<number> {
    return deleteInChunks(ACTIVITY_TRIM_CHUNK, async () => {
      const result = await this.pool.query(
        `DELETE FROM activity WHERE id IN (
           SELECT id FROM activity
           WHERE at < now() - ($1::double precision * interval '1 millisecond') LIMIT $2)`,
        [olderThanMs, ACTIVITY_TRIM_CHUNK],
      );
      return result.rowCount ?? 0;
    });
  }

  /** Resolves when no activity trim is running (tests). */
  activityTrimmed(): Promise<void> {
    return this.trimmer.settled();
  }

  /** The newest of the group's entries beyond its `cap` newest, or null (activity_by_group). */
  private async activityBoundary(groupId: string, cap: number): Promise<number | null> {
    if (this.pool.ended) return null;
    const { rows } = await this.pool.query<{ id: number }>(
      'SELECT id FROM activity WHERE group_id = $1 ORDER BY id DESC LIMIT 1 OFFSET $2',
      [groupId, cap],
    );
    return rows[0]?.id ?? null;
  }

  private async deleteActivityUpTo(groupId: string, upTo: number, limit: number): Promise<number> {
    if (this.pool.ended) return 0;
    const result = await this.pool.query(
      `DELETE FROM activity WHERE id IN (
         SELECT id FROM activity WHERE group_id = $1 AND id <= $2 ORDER BY id LIMIT $3)`,
      [groupId, upTo, limit],
    );
    return result.rowCount ?? 0;
  }

  async groupSeq(groupId: string): Promise<number | null> {
    const { rows } = await this.pool.query<{ seq: number }>(
      'SELECT seq FROM counter_groups WHERE id = $1',
      [groupId],
    );
    return rows[0]?.seq ?? null;
  }

  async ping(): Promise<void> {
    await this.pool.query('SELECT 1');
  }

  async close(): Promise<void> {
    await this.trimmer.stop();
    if (!this.pool.ended) await this.pool.end();
  }

  // ---- inside the batch transaction ----------------------------------------------------------

  /** The answers again for operation ids the groups already applied, by batch position. */
  private async replays(
    client: pg.PoolClient,
    operations: readonly Operation[],
    fingerprints: readonly (string | undefined)[],
  ): Promise<Map<number, OperationOutcome>> {
    const withIds = operations.flatMap((operation, index) =>
      operation.opId === undefined
        ? []
        : [{ index, groupId: operation.groupId, opId: operation.opId }],
    );
    const found = new Map<number, OperationOutcome>();
    if (withIds.length === 0) return found;
    const { rows } = await client.query<{
      group_id: string;
      op_id: string;
      result: StoredAnswer;
      fingerprint: string | null;
    }>(
      `SELECT o.group_id, o.op_id, o.result, o.fingerprint FROM operation_ids o
       JOIN unnest($1::text[], $2::text[]) AS q(group_id, op_id)
         ON o.group_id = q.group_id AND o.op_id = q.op_id`,
      [withIds.map((entry) => entry.groupId), withIds.map((entry) => entry.opId)],
    );
    const byKey = new Map(rows.map((row) => [`${row.group_id}\u0000${row.op_id}`, row]));
    for (const entry of withIds) {
      const stored = byKey.get(`${entry.groupId}\u0000${entry.opId}`);
      if (!stored) continue;
      const reused = reuseOf(stored.fingerprint, fingerprints[entry.index]);
      if (reused) {
        found.set(entry.index, reused);
        continue;
      }
      const answer = stored.result;
      if (answer.kind !== 'counterRef') {
        found.set(entry.index, { ok: true, result: answer, changes: [], replayed: true });
        continue;
      }
      const { rows: counters } = await client.query<CounterRow>(
        `SELECT ${COUNTER_FIELDS} FROM counters WHERE id = $1 AND group_id = $2`,
        [answer.counterId, entry.groupId],
      );
      const row = counters[0];
      found.set(
        entry.index,
        row
          ? {
              ok: true,
              result: { kind: 'counter', counter: toCounter(row), created: false },
              changes: [],
              replayed: true,
            }
          : counterNotFound(),
      );
    }
    return found;
  }

  /** pg_notify of the batch's changes, per group, inside the transaction. */
  private async announce(
    client: pg.PoolClient,
    operations: readonly Operation[],
    outcomes: readonly OperationOutcome[],
  ): Promise<void> {
    const changesByGroup = new Map<string, Change[]>();
    outcomes.forEach((outcome, index) => {
      const groupId = operations[index]?.groupId;
      if (!outcome.ok || outcome.changes.length === 0 || groupId === undefined) return;
      const list = changesByGroup.get(groupId) ?? [];
      list.push(...outcome.changes);
      changesByGroup.set(groupId, list);
    });
    for (const [groupId, changes] of changesByGroup) {
      changes.sort((a, b) => a.seq - b.seq);
      for (const payload of this.encodeAnnouncements(groupId, changes)) {
        await client.query('SELECT pg_notify($1, $2)', [this.notifyChannel, payload]);
      }
    }
  }

  private async applyOne(batch: PostgresBatch, index: number): Promise<OperationOutcome> {
    const operation = batch.operations[index] as Operation;
    const { groupId, opId } = operation;
    const current = batch.seqs.get(groupId);
    if (current === undefined) return groupNotFound();
    const seq = current + 1;
    const applied = await this.applyMutation(batch, operation, seq);
    const outcome = tagWithOperationId(applied.outcome, opId);
    if (outcome.ok) {
      batch.seqs.set(groupId, seq);
      batch.drafts.push(...applied.drafts);
      const draft = applied.drafts[0];
      if (applied.undoes !== undefined && draft) {
        batch.undone.add(applied.undoes);
        batch.undos.push({ draft, target: applied.undoes });
      }
      if (opId !== undefined) {
        batch.remembered.push({ groupId, opId, result: JSON.stringify(outcome.result), draft });
      }
    }
    return outcome;
  }

  /** A coalesced run of taps on one counter: one UPDATE, one change number, one change. */
  private async applyAdjust(
    batch: PostgresBatch,
    step: Extract<Step, { kind: 'adjust' }>,
  ): Promise<Map<number, OperationOutcome>> {
    const { groupId, counterId } = step;
    const current = batch.seqs.get(groupId);
    if (current === undefined) {
      return new Map(step.indices.map((index) => [index, groupNotFound()]));
    }
    const seq = current + 1;
    // numeric: the range check itself must not overflow bigint.
    const next = '(value::numeric + $4::numeric * increment_step - $5::numeric * decrement_step)';
    const { rows } = await batch.client.query<CounterRow>(
      `UPDATE counters SET value = ${next}::bigint, version = $3
       WHERE id = $1 AND group_id = $2 AND ${next} BETWEEN $6 AND $7
       RETURNING ${COUNTER_FIELDS}`,
      [counterId, groupId, seq, step.increments, step.decrements, MIN_VALUE, MAX_VALUE],
    );
    const row = rows[0];
    if (row) {
      batch.seqs.set(groupId, seq);
      const counter = toCounter(row);
      const result = counterRef(counterId);
      for (const draft of adjustDrafts(step, batch.operations, counter, seq)) {
        batch.drafts.push(draft);
        for (const opId of draft.opIds) batch.remembered.push({ groupId, opId, result, draft });
      }
      return adjustOutcomes(step, batch.operations, counter, seq);
    }
    if (!(await this.readCounter(batch.client, groupId, counterId))) {
      return new Map(step.indices.map((index) => [index, counterNotFound()]));
    }
    // Together the taps would leave the exact range: apply them one by one.
    const outcomes = new Map<number, OperationOutcome>();
    for (const index of step.indices) outcomes.set(index, await this.applyOne(batch, index));
    return outcomes;
  }

  /**
   * Writes the batch's activity entries held so far (ids taken from the sequence first, so
   * operation ids and undone entries can point at them), then the operation ids with their
   * entries, and empties those lists. Once at the end of a batch, and before an undo.
   */
  private async writeActivity(batch: PostgresBatch): Promise<void> {
    const { client } = batch;
    const drafts = this.activityLog ? batch.drafts : [];
    for (const draft of drafts) {
      batch.written.set(draft.groupId, (batch.written.get(draft.groupId) ?? 0) + 1);
    }
    const ids = new Map<ActivityDraft, number>();
    if (drafts.length > 0) {
      const allocated = await client.query<{ id: number }>(
        `SELECT nextval(pg_get_serial_sequence('activity', 'id'))::bigint AS id
         FROM generate_series(1, $1)`,
        [drafts.length],
      );
      drafts.forEach((draft, index) => ids.set(draft, Number(allocated.rows[index]?.id)));
      await client.query(
        `INSERT INTO activity (id, group_id, seq, actor, kind, counter_id, counter_name,
           value_after, delta, detail, undo_of)
         SELECT * FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::text[], $5::text[],
           $6::text[], $7::text[], $8::bigint[], $9::bigint[], $10::text[], $11::bigint[])`,
        [
          drafts.map((draft) => ids.get(draft)),
          drafts.map((draft) => draft.groupId),
          drafts.map((draft) => draft.seq),
          drafts.map((draft) => draft.actor),
          drafts.map((draft) => draft.kind),
          drafts.map((draft) => draft.counterId),
          drafts.map((draft) => draft.counterName),
          drafts.map((draft) => draft.value),
          drafts.map((draft) => draft.delta),
          drafts.map(detailText),
          drafts.map((draft) => draft.undoOf),
        ],
      );
    }
    if (drafts.length > 0 && batch.undos.length > 0) {
      await client.query(
        `UPDATE activity SET undone_by = v.by
         FROM unnest($1::bigint[], $2::bigint[]) AS v(id, by) WHERE activity.id = v.id`,
        [batch.undos.map((undo) => undo.target), batch.undos.map((undo) => ids.get(undo.draft))],
      );
    }
    if (batch.remembered.length > 0) {
      const { remembered } = batch;
      await client.query(
        `INSERT INTO operation_ids (group_id, op_id, result, activity_id, fingerprint)
         SELECT * FROM unnest($1::text[], $2::text[], $3::jsonb[], $4::bigint[], $5::text[])`,
        [
          remembered.map((entry) => entry.groupId),
          remembered.map((entry) => entry.opId),
          remembered.map((entry) => entry.result),
          remembered.map((entry) => (entry.draft ? (ids.get(entry.draft) ?? null) : null)),
          remembered.map(
            (entry) => batch.fingerprints.get(`${entry.groupId}\u0000${entry.opId}`) ?? null,
          ),
        ],
      );
    }
    batch.drafts.length = 0;
    batch.undos.length = 0;
    batch.remembered.length = 0;
  }

  private async applyMutation(
    batch: PostgresBatch,
    operation: Operation,
    seq: number,
  ): Promise<Applied> {
    const { client } = batch;
    const { groupId, mutation } = operation;
    switch (mutation.kind) {
      case 'createCounter': {
        if (await this.groupIsFull(client, groupId)) {
          return failed(tooManyCounters(this.quotas.countersPerGroup));
        }
        const fields = mutation.fields;
        const { rows } = await client.query<CounterRow>(
          `INSERT INTO counters (id, group_id, name, description, value, increment_step,
             decrement_step, thumbnail_url, created_at, created_seq, version)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, now(), $9, $9) RETURNING ${COUNTER_FIELDS}`,
          [
            randomUUID(),
            groupId,
            fields.name ?? MESSAGES.newCounterName,
            fields.description ?? '',
            fields.value ?? 0,
            fields.incrementStep ?? DEFAULT_STEP,
            fields.decrementStep ?? DEFAULT_STEP,
            fields.thumbnailUrl ?? null,
            seq,
          ],
        );
        return created(operation, toCounter(rows[0] as CounterRow), seq);
      }
      case 'updateCounter': {
        const entries = definedEntries<CounterPatch>(mutation.patch);
        return this.patchCounter(
          client,
          operation,
          mutation.counterId,
          entries,
          0n,
          seq,
          'counter.updated',
        );
      }
      case 'adjustCounter': {
        const column = mutation.direction === 'increment' ? 'increment_step' : 'decrement_step';
        const sign = mutation.direction === 'increment' ? 1 : -1;
        // Computed by the database from the stored step: a tap is "one step", never a value the
        // client computed. numeric avoids bigint overflow while checking the range.
        const next = `(value::numeric + ${sign} * $4::numeric * ${column})`;
        const { rows } = await client.query<CounterRow>(
          `UPDATE counters SET value = ${next}::bigint, version = $3
           WHERE id = $1 AND group_id = $2 AND ${next} BETWEEN $5 AND $6
           RETURNING ${COUNTER_FIELDS}`,
          [mutation.counterId, groupId, seq, mutation.times, MIN_VALUE, MAX_VALUE],
        );
        if (!rows[0]) {
          const exists = await this.readCounter(client, groupId, mutation.counterId);
          return failed(exists ? valueOutOfRange() : counterNotFound());
        }
        return adjusted(operation, toCounter(rows[0]), seq);
      }
      case 'deleteCounter':
        return this.deleteCounter(client, operation, mutation.counterId, seq);
      case 'updateGroup':
        return this.patchGroup(client, operation, mutation.patch, seq);
      case 'undoEntry':
        return this.undo(batch, operation, mutation.entryId, seq);
      case 'rotateKey':
      case 'setViewKey': {
        const { rows } =
          mutation.kind === 'rotateKey'
            ? await client.query<GroupRow>(
                `UPDATE counter_groups SET access_key_hash = $2,
                   view_key_hash = CASE WHEN view_key_hash IS NULL THEN NULL ELSE $3 END
                 WHERE id = $1 RETURNING *`,
                [groupId, mutation.keyHash, mutation.viewKeyHash],
              )
            : await client.query<GroupRow>(
                'UPDATE counter_groups SET view_key_hash = $2 WHERE id = $1 RETURNING *',
                [groupId, mutation.viewKeyHash],
              );
        return rows[0] ? accessChanged(toGroup(rows[0]), seq) : failed(groupNotFound());
      }
      case 'undoOperation': {
        const { rows } = await client.query<{ activity_id: number | null }>(
          'SELECT activity_id FROM operation_ids WHERE group_id = $1 AND op_id = $2',
          [groupId, mutation.opId],
        );
        const entryId = rows[0]?.activity_id;
        if (entryId == null) return failed(activityNotFound());
        return this.undo(batch, operation, entryId, seq);
      }
    }
  }

  /** Sets fields and adds `valueDelta` to the value in one statement (edits and their undo). */
  private async patchCounter(
    client: pg.PoolClient,
    operation: Operation,
    counterId: string,
    entries: [string, unknown][],
    valueDelta: bigint,
    seq: number,
    entryKind: 'counter.updated' | 'counter.adjusted',
  ): Promise<Applied> {
    const { groupId } = operation;
    const before = await this.readCounter(client, groupId, counterId);
    if (!before) return failed(counterNotFound());
    const sets = entries.map(
      ([field], index) => `${COUNTER_COLUMNS[field as keyof CounterPatch]} = $${index + 7}`,
    );
    // numeric: the range check itself must not overflow bigint. A typed value is set as is.
    const next = '(value::numeric + $4::numeric)';
    const addToValue = entries.some(([field]) => field === 'value')
      ? []
      : [`value = ${next}::bigint`];
    const { rows } = await client.query<CounterRow>(
      `UPDATE counters SET ${[...sets, ...addToValue, 'version = $3'].join(', ')}
       WHERE id = $1 AND group_id = $2 AND ${next} BETWEEN $5 AND $6
       RETURNING ${COUNTER_FIELDS}`,
      [
        counterId,
        groupId,
        seq,
        valueDelta.toString(),
        MIN_VALUE,
        MAX_VALUE,
        ...entries.map(([, v]) => v),
      ],
    );
    if (!rows[0]) return failed(valueOutOfRange());
    const after = toCounter(rows[0]);
    const draft =
      entryKind === 'counter.adjusted'
        ? { ...counterDraft(operation, entryKind, after, seq), delta: Number(valueDelta) }
        : updateDraft(operation, before, after, seq);
    return {
      outcome: counterOutcome(after, false, { type: 'counter.updated', seq, counter: after }),
      drafts: [draft],
    };
  }

  private async deleteCounter(
    client: pg.PoolClient,
    operation: Operation,
    counterId: string,
    seq: number,
  ): Promise<Applied> {
    const { rows } = await client.query<CounterRow>(
      `DELETE FROM counters WHERE id = $1 AND group_id = $2 RETURNING ${COUNTER_FIELDS}`,
      [counterId, operation.groupId],
    );
    if (!rows[0]) return failed(counterNotFound());
    const counter = toCounter(rows[0]);
    return {
      outcome: deletedOutcome(counter.id, seq),
      drafts: [counterDraft(operation, 'counter.deleted', counter, seq)],
    };
  }

  private async patchGroup(
    client: pg.PoolClient,
    operation: Operation,
    patch: GroupPatch,
    seq: number,
  ): Promise<Applied> {
    const { groupId } = operation;
    const before = await client.query<GroupRow>('SELECT * FROM counter_groups WHERE id = $1', [
      groupId,
    ]);
    if (!before.rows[0]) return failed(groupNotFound());
    const entries = definedEntries<GroupPatch>(patch);
    const sets = entries.map(([field], index) => `${GROUP_COLUMNS[field]} = $${index + 2}`);
    const { rows } = await client.query<GroupRow>(
      `UPDATE counter_groups SET ${sets.join(', ')} WHERE id = $1 RETURNING *`,
      [groupId, ...entries.map(([, value]) => value)],
    );
    return groupUpdated(operation, toGroup(before.rows[0]), toGroup(rows[0] as GroupRow), seq);
  }

  /** Takes back one entry of this group by applying its inverse (store/undo.ts). */
  private async undo(
    batch: PostgresBatch,
    operation: Operation,
    entryId: number,
    seq: number,
  ): Promise<Applied> {
    const { client } = batch;
    const { groupId } = operation;
    const { rows } = await client.query<ActivityRow>(
      `SELECT ${ACTIVITY_FIELDS} FROM activity WHERE id = $1 AND group_id = $2`,
      [entryId, groupId],
    );
    const row = rows[0];
    if (!row) return failed(activityNotFound());
    if (row.undone_by !== null || batch.undone.has(entryId)) return failed(alreadyUndone());
    const inverse = inverseOf(toActivityEntry(row));
    let applied: Applied;
    switch (inverse.kind) {
      case 'counter':
        applied = await this.patchCounter(
          client,
          operation,
          inverse.counterId,
          definedEntries(inverse.patch),
          inverse.valueDelta,
          seq,
          inverse.entryKind,
        );
        break;
      case 'delete':
        applied = await this.deleteCounter(client, operation, inverse.counterId, seq);
        break;
      case 'restore': {
        const { counter } = inverse;
        if (await this.groupIsFull(client, groupId)) {
          applied = failed(tooManyCounters(this.quotas.countersPerGroup));
          break;
        }
        const restored = await client.query<CounterRow>(
          `INSERT INTO counters (id, group_id, name, description, value, increment_step,
             decrement_step, thumbnail_url, created_at, created_seq, version)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10) ON CONFLICT (id) DO NOTHING
           RETURNING ${COUNTER_FIELDS}`,
          [
            counter.id,
            groupId,
            counter.name,
            counter.description,
            counter.value,
            counter.incrementStep,
            counter.decrementStep,
            counter.thumbnailUrl,
            new Date(counter.createdAt),
            seq,
          ],
        );
        applied = restored.rows[0]
          ? created(operation, toCounter(restored.rows[0]), seq)
          : failed(alreadyUndone());
        break;
      }
      case 'group':
        applied = await this.patchGroup(client, operation, inverse.patch, seq);
        break;
    }
    return markUndo(applied, entryId);
  }

  /**
   * Whether the group holds its quota of counters. The batch holds the group's row lock, so no
   * concurrent batch can add one meanwhile; counts at most that many index entries.
   */
  private async groupIsFull(client: pg.PoolClient, groupId: string): Promise<boolean> {
    const max = this.quotas.countersPerGroup;
    const { rows } = await client.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM (SELECT 1 FROM counters WHERE group_id = $1 LIMIT $2) c',
      [groupId, max],
    );
    return (rows[0]?.n ?? 0) >= max;
  }

  private async readCounter(
    client: pg.PoolClient,
    groupId: string,
    counterId: string,
  ): Promise<Counter | null> {
    const { rows } = await client.query<CounterRow>(
      `SELECT ${COUNTER_FIELDS} FROM counters WHERE id = $1 AND group_id = $2`,
      [counterId, groupId],
    );
    return rows[0] ? toCounter(rows[0]) : null;
  }
}
