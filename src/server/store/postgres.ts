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
import type { Counter, CounterPatch, GroupPatch, Mutation } from '../../shared/api.js';
import { DEFAULT_STEP, MAX_VALUE, MIN_VALUE } from '../../shared/limits.js';
import { MESSAGES } from '../../shared/messages.js';
import type { Change } from '../../shared/protocol.js';
import { encodeAnnouncements } from '../bus/notify.js';
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
  counterNotFound,
  counterOutcome,
  definedEntries,
  deletedOutcome,
  groupNotFound,
  tagWithOperationId,
  valueOutOfRange,
} from './outcomes.js';
import {
  adjustOutcomes,
  counterRef,
  duplicateOutcome,
  planBatch,
  type Step,
  type StoredAnswer,
} from './batch.js';
import type { GroupRecord, GroupState, Operation, OperationOutcome, Store } from './types.js';

/** Counter values are bounded to ±(2^53 − 1), so a bigint always fits a JS number exactly. */
const BIGINT_AS_NUMBER = new pg.TypeOverrides();
BIGINT_AS_NUMBER.setTypeParser(pg.types.builtins.INT8, (value: string) => Number(value));

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
];

export interface PostgresConnection {
  /** The connection string without Tally's own `schema` parameter. */
  connectionString: string;
  /** The schema Tally's tables live in. */
  schema: string;
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** Splits Tally's `schema` query parameter off a postgres:// URL. */
export function parsePostgresUrl(url: string): PostgresConnection {
  const parsed = new URL(url);
  const schema = parsed.searchParams.get('schema') ?? 'public';
  if (!SCHEMA_NAME.test(schema)) {
    throw new Error('DATABASE_URL schema must be lowercase letters, digits and underscores');
  }
  parsed.searchParams.delete('schema');
  return { connectionString: parsed.toString(), schema };
}

/** Connection settings every Tally connection uses: its schema, and bigint as number. */
export function clientConfig(
  connection: PostgresConnection,
  applicationName: string,
): pg.ClientConfig {
  return {
    connectionString: connection.connectionString,
    options: `-c search_path=${connection.schema}`,
    application_name: applicationName,
    types: BIGINT_AS_NUMBER,
  };
}

/** The NOTIFY channel of a schema, so two deployments on one database never hear each other. */
export const notifyChannelOf = (schema: string) => `tally_changes_${schema}`;

/** One batch's transaction and what it has decided so far. */
interface PostgresBatch {
  client: pg.PoolClient;
  operations: readonly Operation[];
  /** Each locked group's latest change number. */
  seqs: Map<string, number>;
  /** Operation ids to store with their answers, written in one statement at the end. */
  remembered: { groupId: string; opId: string; result: string }[];
}

export interface PostgresStoreOptions {
  connection: PostgresConnection;
  /** Most connections this instance opens for queries. */
  poolSize: number;
  /** This instance's id, carried in announcements so it can skip its own. */
  instanceId: string;
}

export class PostgresStore implements Store {
  readonly kind = 'postgres' as const;
  readonly pool: pg.Pool;
  readonly schema: string;
  readonly notifyChannel: string;
  private readonly instanceId: string;

  constructor(options: PostgresStoreOptions) {
    this.schema = options.connection.schema;
    this.notifyChannel = notifyChannelOf(this.schema);
    this.instanceId = options.instanceId;
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
    const { rows } = await this.pool.query<GroupRow>(
      'SELECT * FROM counter_groups WHERE name = $1',
      [name],
    );
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
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const groupIds = [...new Set(operations.map((operation) => operation.groupId))].sort();
      const locked = await client.query<{ id: string; seq: number }>(
        'SELECT id, seq FROM counter_groups WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE',
        [groupIds],
      );
      const batch: PostgresBatch = {
        client,
        operations,
        seqs: new Map(locked.rows.map((row) => [row.id, row.seq])),
        remembered: [],
      };
      const startSeqs = new Map(batch.seqs);
      const outcomes = new Array<OperationOutcome | undefined>(operations.length);
      for (const [index, outcome] of await this.replays(client, operations)) {
        outcomes[index] = outcome;
      }
      const replayed = new Set(outcomes.flatMap((outcome, index) => (outcome ? [index] : [])));
      const plan = planBatch(operations, replayed);
      for (const step of plan.steps) {
        if (step.kind === 'single') {
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
      if (batch.remembered.length > 0) {
        await client.query(
          `INSERT INTO operation_ids (group_id, op_id, result)
           SELECT * FROM unnest($1::text[], $2::text[], $3::jsonb[])`,
          [
            batch.remembered.map((entry) => entry.groupId),
            batch.remembered.map((entry) => entry.opId),
            batch.remembered.map((entry) => entry.result),
          ],
        );
      }
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
      return final;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  async pruneOperationIds(olderThanMs: number): Promise<number> {
    const result = await this.pool.query(
      `DELETE FROM operation_ids WHERE created_at < now() - ($1::double precision * interval '1 millisecond')`,
      [olderThanMs],
    );
    return result.rowCount ?? 0;
  }

  async ping(): Promise<void> {
    await this.pool.query('SELECT 1');
  }

  async close(): Promise<void> {
    if (!this.pool.ended) await this.pool.end();
  }

  // ---- inside the batch transaction ----------------------------------------------------------

  /** The answers again for operation ids the groups already applied, by batch position. */
  private async replays(
    client: pg.PoolClient,
    operations: readonly Operation[],
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
    }>(
      `SELECT o.group_id, o.op_id, o.result FROM operation_ids o
       JOIN unnest($1::text[], $2::text[]) AS q(group_id, op_id)
         ON o.group_id = q.group_id AND o.op_id = q.op_id`,
      [withIds.map((entry) => entry.groupId), withIds.map((entry) => entry.opId)],
    );
    const byKey = new Map(rows.map((row) => [`${row.group_id}\u0000${row.op_id}`, row.result]));
    for (const entry of withIds) {
      const answer = byKey.get(`${entry.groupId}\u0000${entry.opId}`);
      if (!answer) continue;
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
      for (const payload of encodeAnnouncements(this.instanceId, groupId, changes)) {
        await client.query('SELECT pg_notify($1, $2)', [this.notifyChannel, payload]);
      }
    }
  }

  private async applyOne(batch: PostgresBatch, index: number): Promise<OperationOutcome> {
    const { groupId, opId, mutation } = batch.operations[index] as Operation;
    const current = batch.seqs.get(groupId);
    if (current === undefined) return groupNotFound();
    const seq = current + 1;
    const outcome = tagWithOperationId(
      await this.applyMutation(batch.client, groupId, mutation, seq),
      opId,
    );
    if (outcome.ok) {
      batch.seqs.set(groupId, seq);
      if (opId !== undefined) {
        batch.remembered.push({ groupId, opId, result: JSON.stringify(outcome.result) });
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
      const result = counterRef(counterId);
      for (const index of step.indices) {
        const opId = batch.operations[index]?.opId;
        if (opId !== undefined) batch.remembered.push({ groupId, opId, result });
      }
      return adjustOutcomes(step, batch.operations, toCounter(row), seq);
    }
    const exists = await batch.client.query(
      'SELECT 1 FROM counters WHERE id = $1 AND group_id = $2',
      [counterId, groupId],
    );
    if (!exists.rowCount) {
      return new Map(step.indices.map((index) => [index, counterNotFound()]));
    }
    // Together the taps would leave the exact range: apply them one by one.
    const outcomes = new Map<number, OperationOutcome>();
    for (const index of step.indices) outcomes.set(index, await this.applyOne(batch, index));
    return outcomes;
  }

  private async applyMutation(
    client: pg.PoolClient,
    groupId: string,
    mutation: Mutation,
    seq: number,
  ): Promise<OperationOutcome> {
    switch (mutation.kind) {
      case 'createCounter': {
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
        const counter = toCounter(rows[0] as CounterRow);
        return counterOutcome(counter, true, { type: 'counter.created', seq, counter });
      }
      case 'updateCounter': {
        const entries = definedEntries<CounterPatch>(mutation.patch);
        const sets = entries.map(([field], index) => `${COUNTER_COLUMNS[field]} = $${index + 4}`);
        const { rows } = await client.query<CounterRow>(
          `UPDATE counters SET ${[...sets, 'version = $3'].join(', ')}
           WHERE id = $1 AND group_id = $2 RETURNING ${COUNTER_FIELDS}`,
          [mutation.counterId, groupId, seq, ...entries.map(([, value]) => value)],
        );
        if (!rows[0]) return counterNotFound();
        const counter = toCounter(rows[0]);
        return counterOutcome(counter, false, { type: 'counter.updated', seq, counter });
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
          const exists = await client.query(
            'SELECT 1 FROM counters WHERE id = $1 AND group_id = $2',
            [mutation.counterId, groupId],
          );
          return exists.rowCount ? valueOutOfRange() : counterNotFound();
        }
        const counter = toCounter(rows[0]);
        return counterOutcome(counter, false, { type: 'counter.updated', seq, counter });
      }
      case 'deleteCounter': {
        const { rows } = await client.query<{ id: string }>(
          'DELETE FROM counters WHERE id = $1 AND group_id = $2 RETURNING id',
          [mutation.counterId, groupId],
        );
        const deleted = rows[0];
        if (!deleted) return counterNotFound();
        return deletedOutcome(deleted.id, seq);
      }
      case 'updateGroup': {
        const entries = definedEntries<GroupPatch>(mutation.patch);
        const sets = entries.map(([field], index) => `${GROUP_COLUMNS[field]} = $${index + 2}`);
        const { rows } = await client.query<GroupRow>(
          `UPDATE counter_groups SET ${sets.join(', ')} WHERE id = $1 RETURNING *`,
          [groupId, ...entries.map(([, value]) => value)],
        );
        const { keyHash: _hidden, ...group } = toGroup(rows[0] as GroupRow);
        return {
          ok: true,
          result: { kind: 'group', group },
          changes: [{ type: 'group.updated', seq, group }],
          replayed: false,
        };
      }
    }
  }
}
