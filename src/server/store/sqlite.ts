/**
 * SQLite store (better-sqlite3, WAL). The embedded default: one file, nothing to install.
 *
 * Every change runs inside one write transaction per batch (see batcher.ts). Increments are
 * `value = value + times * step` in SQL, so concurrent taps add up instead of overwriting.
 * WAL with synchronous=NORMAL by default: an answered change survives a crash of the process;
 * SQLITE_SYNCHRONOUS=full adds an fsync per batch so it also survives power loss
 * (docs/decisions/0002-sqlite-durability.md).
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { CounterPatch, GroupPatch, Mutation } from '../../shared/api.js';
import { DEFAULT_STEP, MAX_VALUE, MIN_VALUE } from '../../shared/limits.js';
import { MESSAGES } from '../../shared/messages.js';
import type { SqliteSynchronous } from '../config.js';
import type { GroupRecord, GroupState, Operation, OperationOutcome, Store } from './types.js';
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

const MIGRATIONS: readonly string[] = [
  `CREATE TABLE counter_groups (
     id TEXT PRIMARY KEY,
     name TEXT NOT NULL UNIQUE,
     display_name TEXT NOT NULL,
     profile_image_url TEXT,
     access_key_hash TEXT NOT NULL,
     created_at INTEGER NOT NULL,
     seq INTEGER NOT NULL DEFAULT 0
   ) STRICT;
   CREATE TABLE counters (
     id TEXT PRIMARY KEY,
     group_id TEXT NOT NULL REFERENCES counter_groups(id),
     name TEXT NOT NULL,
     description TEXT NOT NULL,
     value INTEGER NOT NULL,
     increment_step INTEGER NOT NULL CHECK (increment_step >= 1),
     decrement_step INTEGER NOT NULL CHECK (decrement_step >= 1),
     thumbnail_url TEXT,
     created_at INTEGER NOT NULL,
     created_seq INTEGER NOT NULL,
     version INTEGER NOT NULL
   ) STRICT;
   CREATE INDEX counters_by_group ON counters (group_id, created_at, created_seq);
   CREATE TABLE operation_ids (
     group_id TEXT NOT NULL,
     op_id TEXT NOT NULL,
     result TEXT NOT NULL,
     created_at INTEGER NOT NULL,
     PRIMARY KEY (group_id, op_id)
   ) STRICT, WITHOUT ROWID;
   CREATE INDEX operation_ids_by_age ON operation_ids (created_at);`,
];

export class SqliteStore implements Store {
  readonly kind = 'sqlite' as const;
  private readonly db: Database.Database;
  /** Prepared statements by SQL text; patches have a bounded number of column combinations. */
  private readonly statements = new Map<string, Database.Statement>();

  constructor(file: string, options: { synchronous?: SqliteSynchronous } = {}) {
    if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true });
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma(`synchronous = ${options.synchronous === 'full' ? 'FULL' : 'NORMAL'}`);
    this.db.pragma('foreign_keys = ON');
    // Another process holding the write lock (a second server on the same file, a backup):
    // wait up to 5 s instead of failing at once.
    this.db.pragma('busy_timeout = 5000');
  }

  migrate(): Promise<void> {
    this.db.exec(
      'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL) STRICT',
    );
    const run = this.db.transaction(() => {
      const row = this.db.prepare('SELECT MAX(version) AS v FROM schema_migrations').get() as {
        v: number | null;
      };
      const current = row.v ?? 0;
      MIGRATIONS.forEach((sql, index) => {
        const version = index + 1;
        if (version <= current) return;
        this.db.exec(sql);
        this.db
          .prepare('INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)')
          .run(version, Date.now());
      });
    });
    run.immediate();
    return Promise.resolve();
  }

  findGroup(name: string): Promise<GroupRecord | null> {
    const row = this.prepare('SELECT * FROM counter_groups WHERE name = ?').get(name) as
      GroupRow | undefined;
    return Promise.resolve(row ? toGroup(row) : null);
  }

  createGroup(name: string, keyHash: string): Promise<{ group: GroupRecord; created: boolean }> {
    const insert = this.prepare(
      `INSERT INTO counter_groups (id, name, display_name, access_key_hash, created_at)
       VALUES (?, ?, ?, ?, ?) ON CONFLICT (name) DO NOTHING`,
    );
    const info = insert.run(randomUUID(), name, name, keyHash, Date.now());
    const row = this.prepare('SELECT * FROM counter_groups WHERE name = ?').get(name) as GroupRow;
    return Promise.resolve({ group: toGroup(row), created: info.changes === 1 });
  }

  loadGroupState(groupId: string): Promise<GroupState | null> {
    const read = this.db.transaction((): GroupState | null => {
      const row = this.prepare('SELECT * FROM counter_groups WHERE id = ?').get(groupId) as
        GroupRow | undefined;
      if (!row) return null;
      const counters = this.prepare(
        `SELECT ${COUNTER_FIELDS} FROM counters WHERE group_id = ? ORDER BY created_at, created_seq`,
      ).all(groupId) as CounterRow[];
      return { group: toGroup(row), counters: counters.map(toCounter), seq: row.seq };
    });
    return Promise.resolve(read.deferred());
  }

  commit(operations: readonly Operation[]): Promise<OperationOutcome[]> {
    const run = this.db.transaction(() => {
      const outcomes: (OperationOutcome | undefined)[] = new Array<OperationOutcome | undefined>(
        operations.length,
      );
      operations.forEach((operation, index) => {
        outcomes[index] = this.replay(operation);
      });
      const replayed = new Set(outcomes.flatMap((outcome, index) => (outcome ? [index] : [])));
      const plan = planBatch(operations, replayed);
      const seqs = new Map<string, number>();
      for (const step of plan.steps) {
        if (step.kind === 'single') {
          const operation = operations[step.index] as Operation;
          outcomes[step.index] = this.applyOne(operation, seqs);
        } else {
          for (const [index, outcome] of this.applyAdjust(step, operations, seqs)) {
            outcomes[index] = outcome;
          }
        }
      }
      for (const [index, first] of plan.duplicates) {
        outcomes[index] = duplicateOutcome(outcomes[first]);
      }
      const writeSeq = this.prepare('UPDATE counter_groups SET seq = ? WHERE id = ?');
      for (const [groupId, seq] of seqs) writeSeq.run(seq, groupId);
      return outcomes.map((outcome) => outcome ?? groupNotFound());
    });
    return Promise.resolve(run.immediate());
  }

  pruneOperationIds(olderThanMs: number): Promise<number> {
    const info = this.prepare('DELETE FROM operation_ids WHERE created_at < ?').run(
      Date.now() - olderThanMs,
    );
    return Promise.resolve(info.changes);
  }

  ping(): Promise<void> {
    this.prepare('SELECT 1').get();
    return Promise.resolve();
  }

  close(): Promise<void> {
    if (this.db.open) this.db.close();
    return Promise.resolve();
  }

  private prepare(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  // ---- inside the write transaction ----------------------------------------------------------

  /** The answer again, if this group already applied this operation id. */
  private replay(operation: Operation): OperationOutcome | undefined {
    if (operation.opId === undefined) return undefined;
    const stored = this.prepare(
      'SELECT result FROM operation_ids WHERE group_id = ? AND op_id = ?',
    ).get(operation.groupId, operation.opId) as { result: string } | undefined;
    if (!stored) return undefined;
    const answer = JSON.parse(stored.result) as StoredAnswer;
    if (answer.kind !== 'counterRef') {
      return { ok: true, result: answer, changes: [], replayed: true };
    }
    const row = this.prepare(
      `SELECT ${COUNTER_FIELDS} FROM counters WHERE id = ? AND group_id = ?`,
    ).get(answer.counterId, operation.groupId) as CounterRow | undefined;
    if (!row) return counterNotFound();
    const result = { kind: 'counter', counter: toCounter(row), created: false } as const;
    return { ok: true, result, changes: [], replayed: true };
  }

  private nextSeq(groupId: string, seqs: Map<string, number>): number | undefined {
    const current =
      seqs.get(groupId) ??
      (
        this.prepare('SELECT seq FROM counter_groups WHERE id = ?').get(groupId) as
          { seq: number } | undefined
      )?.seq;
    return current === undefined ? undefined : current + 1;
  }

  private remember(groupId: string, opId: string | undefined, result: string): void {
    if (opId === undefined) return;
    this.prepare(
      'INSERT INTO operation_ids (group_id, op_id, result, created_at) VALUES (?, ?, ?, ?)',
    ).run(groupId, opId, result, Date.now());
  }

  private applyOne(operation: Operation, seqs: Map<string, number>): OperationOutcome {
    const { groupId, opId } = operation;
    const seq = this.nextSeq(groupId, seqs);
    if (seq === undefined) return groupNotFound();
    const outcome = tagWithOperationId(this.applyMutation(groupId, operation.mutation, seq), opId);
    if (outcome.ok) {
      seqs.set(groupId, seq);
      this.remember(groupId, opId, JSON.stringify(outcome.result));
    }
    return outcome;
  }

  /** A coalesced run of taps on one counter: one UPDATE, one change number, one change. */
  private applyAdjust(
    step: Extract<Step, { kind: 'adjust' }>,
    operations: readonly Operation[],
    seqs: Map<string, number>,
  ): Map<number, OperationOutcome> {
    const { groupId, counterId } = step;
    const seq = this.nextSeq(groupId, seqs);
    if (seq === undefined) return new Map(step.indices.map((index) => [index, groupNotFound()]));
    const next = 'value + ? * increment_step - ? * decrement_step';
    const row = this.prepare(
      `UPDATE counters SET value = ${next}, version = ?
       WHERE id = ? AND group_id = ? AND ${next} BETWEEN ? AND ?
       RETURNING ${COUNTER_FIELDS}`,
    ).get(
      step.increments,
      step.decrements,
      seq,
      counterId,
      groupId,
      step.increments,
      step.decrements,
      MIN_VALUE,
      MAX_VALUE,
    ) as CounterRow | undefined;
    if (row) {
      seqs.set(groupId, seq);
      const reference = counterRef(counterId);
      for (const index of step.indices) this.remember(groupId, operations[index]?.opId, reference);
      return adjustOutcomes(step, operations, toCounter(row), seq);
    }
    if (!this.counterExists(groupId, counterId)) {
      return new Map(step.indices.map((index) => [index, counterNotFound()]));
    }
    // Together the taps would leave the exact range: apply them one by one, so each is
    // refused or applied on its own.
    return new Map(
      step.indices.map((index) => [index, this.applyOne(operations[index] as Operation, seqs)]),
    );
  }

  private applyMutation(groupId: string, mutation: Mutation, seq: number): OperationOutcome {
    switch (mutation.kind) {
      case 'createCounter': {
        const fields = mutation.fields;
        const row = this.prepare(
          `INSERT INTO counters (id, group_id, name, description, value, increment_step,
               decrement_step, thumbnail_url, created_at, created_seq, version)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING ${COUNTER_FIELDS}`,
        ).get(
          randomUUID(),
          groupId,
          fields.name ?? MESSAGES.newCounterName,
          fields.description ?? '',
          fields.value ?? 0,
          fields.incrementStep ?? DEFAULT_STEP,
          fields.decrementStep ?? DEFAULT_STEP,
          fields.thumbnailUrl ?? null,
          Date.now(),
          seq,
          seq,
        ) as CounterRow;
        const counter = toCounter(row);
        return counterOutcome(counter, true, { type: 'counter.created', seq, counter });
      }
      case 'updateCounter': {
        const entries = definedEntries<CounterPatch>(mutation.patch);
        const sets = entries.map(([field]) => `${COUNTER_COLUMNS[field]} = ?`);
        const row = this.prepare(
          `UPDATE counters SET ${[...sets, 'version = ?'].join(', ')}
             WHERE id = ? AND group_id = ? RETURNING ${COUNTER_FIELDS}`,
        ).get(...entries.map(([, v]) => v), seq, mutation.counterId, groupId) as
          CounterRow | undefined;
        if (!row) return counterNotFound();
        const counter = toCounter(row);
        return counterOutcome(counter, false, { type: 'counter.updated', seq, counter });
      }
      case 'adjustCounter': {
        const column = mutation.direction === 'increment' ? 'increment_step' : 'decrement_step';
        const sign = mutation.direction === 'increment' ? 1 : -1;
        // The delta is computed by the database from the stored step: a tap is "one step", never
        // a value the client computed. The range check keeps values exact in every client.
        const delta = `(${sign} * ? * ${column})`;
        const row = this.prepare(
          `UPDATE counters SET value = value + ${delta}, version = ?
             WHERE id = ? AND group_id = ? AND value + ${delta} BETWEEN ? AND ?
             RETURNING ${COUNTER_FIELDS}`,
        ).get(
          mutation.times,
          seq,
          mutation.counterId,
          groupId,
          mutation.times,
          MIN_VALUE,
          MAX_VALUE,
        ) as CounterRow | undefined;
        if (!row)
          return this.counterExists(groupId, mutation.counterId)
            ? valueOutOfRange()
            : counterNotFound();
        const counter = toCounter(row);
        return counterOutcome(counter, false, { type: 'counter.updated', seq, counter });
      }
      case 'deleteCounter': {
        const row = this.prepare(
          'DELETE FROM counters WHERE id = ? AND group_id = ? RETURNING id',
        ).get(mutation.counterId, groupId) as { id: string } | undefined;
        if (!row) return counterNotFound();
        return deletedOutcome(row.id, seq);
      }
      case 'updateGroup': {
        const entries = definedEntries<GroupPatch>(mutation.patch);
        const sets = entries.map(([field]) => `${GROUP_COLUMNS[field]} = ?`);
        const row = this.prepare(
          `UPDATE counter_groups SET ${sets.join(', ')} WHERE id = ? RETURNING *`,
        ).get(...entries.map(([, v]) => v), groupId) as GroupRow;
        const { keyHash: _hidden, ...group } = toGroup(row);
        return {
          ok: true,
          result: { kind: 'group', group },
          changes: [{ type: 'group.updated', seq, group }],
          replayed: false,
        };
      }
    }
  }

  private counterExists(groupId: string, counterId: string): boolean {
    return (
      this.prepare('SELECT 1 FROM counters WHERE id = ? AND group_id = ?').get(
        counterId,
        groupId,
      ) !== undefined
    );
  }
}
