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
import type { ActivityEntry, HistoryPoint } from '../../shared/activity.js';
import type { Counter, CounterPatch, GroupPatch } from '../../shared/api.js';
import { DEFAULT_STEP, MAX_VALUE, MIN_VALUE } from '../../shared/limits.js';
import { MESSAGES } from '../../shared/messages.js';
import type { SqliteSynchronous } from '../config.js';
import {
  StorageUnavailableError,
  StoreBusyError,
  type ActivityListQuery,
  type GroupRecord,
  type GroupState,
  type Operation,
  type OperationOutcome,
  type Store,
} from './types.js';
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
import { startCheckpointer, type Checkpointer } from './checkpointer.js';
import { lockDatabaseFile, type FileLock } from './file-lock.js';
import {
  ActivityTrimmer,
  deleteInChunks,
  tooManyCounters,
  ACTIVITY_TRIM_CHUNK,
  TRIM_ALL_PAGE,
  type StoreQuotas,
} from './quotas.js';
import { DEFAULT_LIMITS } from '../config.js';

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
  // 2: the activity log (shared/activity.ts, ADR 0007). AUTOINCREMENT: an id is never reused
  // after pruning, so "newer than id N" stays true for every client.
  `CREATE TABLE activity (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     group_id TEXT NOT NULL,
     seq INTEGER NOT NULL,
     at INTEGER NOT NULL,
     actor TEXT NOT NULL,
     kind TEXT NOT NULL,
     counter_id TEXT,
     counter_name TEXT,
     value_after INTEGER,
     delta INTEGER,
     detail TEXT,
     undo_of INTEGER,
     undone_by INTEGER
   ) STRICT;
   CREATE INDEX activity_by_group ON activity (group_id, id);
   CREATE INDEX activity_by_counter ON activity (counter_id, id) WHERE counter_id IS NOT NULL;
   CREATE INDEX activity_by_age ON activity (at);
   ALTER TABLE operation_ids ADD COLUMN activity_id INTEGER;`,
  // 3: view-only links (issue 8): the hash of the view-only key, null while there is none.
  `ALTER TABLE counter_groups ADD COLUMN view_key_hash TEXT;`,
  // 4: (issue 14) what each operation id meant (batch.ts fingerprintOf; null for older rows),
  // and the one-row table the health check's write probe updates.
  `ALTER TABLE operation_ids ADD COLUMN fingerprint TEXT;
   CREATE TABLE health_probe (id INTEGER PRIMARY KEY CHECK (id = 1), at INTEGER NOT NULL) STRICT;`,
  // 5: a counter's history as index seeks by time (issue 14: one seek per chart bucket, never a
  // scan of every entry of the counter).
  `CREATE INDEX activity_by_counter_time ON activity (counter_id, at, id) WHERE counter_id IS NOT NULL;`,
];

/**
 * How long a write waits for another process's write lock, ms: none. Waiting blocks the event
 * loop (better-sqlite3 is synchronous; the old 5 s timeout froze every request for 5 s per
 * write); the batch is answered 503 `busy` instead, which clients retry. The checkpoint worker
 * never takes the write lock (PASSIVE checkpoints), so it never causes this.
 */
export const BUSY_TIMEOUT_MS = 0;

/** The file a path names now, to notice the database being deleted or replaced under us. */
interface FileIdentity {
  dev: number;
  ino: number;
}

function identityOf(file: string): FileIdentity | undefined {
  const stats = fs.statSync(file, { throwIfNoEntry: false });
  return stats ? { dev: stats.dev, ino: stats.ino } : undefined;
}

/** SQLite errors that fail a whole batch alike, as the errors the API answers them with. */
function storageError(error: unknown): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return error;
  if (code.startsWith('SQLITE_BUSY')) return new StoreBusyError();
  if (/^SQLITE_(FULL|IOERR|READONLY|CANTOPEN|CORRUPT|NOTADB)/.test(code)) {
    return new StorageUnavailableError(code);
  }
  return error;
}

/** Values per operation_ids row, and most rows per INSERT (a power of two). */
const REMEMBER_COLUMNS = 6;
const REMEMBER_ROWS = 128;

/** The INSERT of `rows` operation-id rows. */
function insertOperationIds(rows: number): string {
  const placeholders = Array.from({ length: rows }, () => '(?, ?, ?, ?, ?, ?)').join(', ');
  return `INSERT INTO operation_ids (group_id, op_id, result, created_at, activity_id, fingerprint) VALUES ${placeholders}`;
}

interface ValueRow {
  id: number;
  /** Epoch ms. */
  at: number;
  value_after: number;
}

export class SqliteStore implements Store {
  readonly kind = 'sqlite' as const;
  private readonly db: Database.Database;
  /** Prepared statements by SQL text; patches have a bounded number of column combinations. */
  private readonly statements = new Map<string, Database.Statement>();

  /** Operation-id rows of the running batch not yet inserted, REMEMBER_COLUMNS values each. */
  private readonly remembered: (string | number | null)[] = [];
  /** The running batch's fingerprints by group and operation id (the first use of each id). */
  private readonly fingerprints = new Map<string, string>();
  /** The operation-id INSERTs by row count (powers of two up to REMEMBER_ROWS). */
  private readonly rememberStatements = new Map<number, Database.Statement>();

  /** Whether changes are written to the activity log (ACTIVITY_LOG). */
  private readonly activityLog: boolean;

  /** Checkpoints the WAL from a worker thread (file databases only). */
  private readonly checkpointer: Checkpointer | undefined;

  /** The database file's path, and the file it named when opened (file databases only). */
  private readonly file: string;
  private readonly identity: FileIdentity | undefined;
  /** Held for the store's life: a second server on this file refuses to start. */
  private readonly lock: FileLock | undefined;
  /** Counters per group; activity entries kept per group (store/quotas.ts). */
  private readonly quotas: StoreQuotas;
  private readonly trimmer: ActivityTrimmer;
  /** Activity entries the running batch wrote, per group (told to the trimmer after commit). */
  private readonly batchEntries = new Map<string, number>();

  constructor(
    file: string,
    options: {
      synchronous?: SqliteSynchronous;
      activityLog?: boolean;
      /** Told when WAL checkpoints fail or move back onto the event loop. */
      onCheckpointError?: (message: string) => void;
      /** Per-group quotas; DEFAULT_LIMITS unless given. */
      quotas?: StoreQuotas;
      /** Told when trimming the activity log fails (it is retried on later writes). */
      onTrimError?: (error: unknown) => void;
    } = {},
  ) {
    this.activityLog = options.activityLog ?? true;
    this.quotas = options.quotas ?? DEFAULT_LIMITS;
    this.trimmer = new ActivityTrimmer(
      this.quotas.activityEntriesPerGroup,
      {
        boundary: (groupId, cap) => Promise.resolve(this.activityBoundary(groupId, cap)),
        deleteUpTo: (groupId, upTo, limit) =>
          Promise.resolve(this.deleteActivityUpTo(groupId, upTo, limit)),
      },
      options.onTrimError ?? (() => undefined),
    );
    this.file = file;
    if (file !== ':memory:') {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      this.lock = lockDatabaseFile(file);
    }
    try {
      this.db = new Database(file, { timeout: BUSY_TIMEOUT_MS });
    } catch (error) {
      this.lock?.release();
      throw error;
    }
    this.identity = file === ':memory:' ? undefined : identityOf(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma(`synchronous = ${options.synchronous === 'full' ? 'FULL' : 'NORMAL'}`);
    this.db.pragma('foreign_keys = ON');
    // Another process holding the write lock (a backup, a sqlite3 shell): fail at once with
    // 503 busy rather than block the event loop (BUSY_TIMEOUT_MS).
    this.db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    // Counters, groups and recent operation ids stay in memory: 64 MiB (negative = KiB).
    this.db.pragma('cache_size = -65536');
    if (file !== ':memory:') {
      this.checkpointer = startCheckpointer(
        this.db,
        file,
        options.onCheckpointError ?? (() => undefined),
      );
    }
  }

  /** Checkpoints run by the worker so far (tests and diagnostics). */
  get checkpoints(): number {
    return this.checkpointer?.runs ?? 0;
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
    this.assertSameFile();
    const insert = this.prepare(
      `INSERT INTO counter_groups (id, name, display_name, access_key_hash, created_at)
       VALUES (?, ?, ?, ?, ?) ON CONFLICT (name) DO NOTHING`,
    );
    let info: Database.RunResult;
    try {
      info = insert.run(randomUUID(), name, name, keyHash, Date.now());
    } catch (error) {
      throw storageError(error);
    }
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
    this.batchEntries.clear();
    const outcomes = this.commitBatch(operations);
    for (const [groupId, entries] of this.batchEntries) this.trimmer.noteWritten(groupId, entries);
    this.batchEntries.clear();
    this.trimmer.kick();
    return outcomes;
  }

  /** Resolves when no activity trim is running (tests). */
  activityTrimmed(): Promise<void> {
    return this.trimmer.settled();
  }

  private commitBatch(operations: readonly Operation[]): Promise<OperationOutcome[]> {
    const run = this.db.transaction(() => {
      this.remembered.length = 0;
      const fingerprints = fingerprintsOf(operations);
      this.fingerprints.clear();
      operations.forEach(({ groupId, opId }, index) => {
        const key = `${groupId}\u0000${opId}`;
        const fingerprint = fingerprints[index];
        if (fingerprint !== undefined && !this.fingerprints.has(key)) {
          this.fingerprints.set(key, fingerprint);
        }
      });
      const outcomes: (OperationOutcome | undefined)[] = new Array<OperationOutcome | undefined>(
        operations.length,
      );
      operations.forEach((operation, index) => {
        outcomes[index] = this.replay(operation, fingerprints[index]);
      });
      const replayed = new Set(outcomes.flatMap((outcome, index) => (outcome ? [index] : [])));
      const plan = planBatch(operations, replayed, fingerprints);
      const seqs = new Map<string, number>();
      for (const step of plan.steps) {
        if (step.kind === 'single') {
          const operation = operations[step.index] as Operation;
          if (readsEarlierWrites(operation)) this.writeRemembered();
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
      for (const index of plan.reused) outcomes[index] = operationIdReused();
      this.writeRemembered();
      const writeSeq = this.prepare('UPDATE counter_groups SET seq = ? WHERE id = ?');
      for (const [groupId, seq] of seqs) writeSeq.run(seq, groupId);
      return outcomes.map((outcome) => outcome ?? groupNotFound());
    });
    // Checked once per batch (one stat call): a deleted file would take writes that are gone
    // after a restart, so they are refused instead of acknowledged.
    this.assertSameFile();
    try {
      return Promise.resolve(run.immediate());
    } catch (error) {
      throw storageError(error);
    }
  }

  probeWrite(): Promise<void> {
    this.assertSameFile();
    const write = this.db.transaction(() => {
      this.prepare(
        `INSERT INTO health_probe (id, at) VALUES (1, ?)
         ON CONFLICT (id) DO UPDATE SET at = excluded.at`,
      ).run(Date.now());
    });
    try {
      write.immediate();
    } catch (error) {
      const translated = storageError(error);
      throw translated instanceof StoreBusyError
        ? translated
        : new StorageUnavailableError(error instanceof Error ? error.message : String(error));
    }
    return Promise.resolve();
  }

  /** Refuses writes once the path no longer names the file this store opened. */
  private assertSameFile(): void {
    if (this.identity === undefined) return;
    const now = identityOf(this.file);
    if (now?.dev !== this.identity.dev || now.ino !== this.identity.ino) {
      throw new StorageUnavailableError(
        now ? 'the database file was replaced' : 'the database file was deleted',
      );
    }
  }

  /**
   * Deletes expired operation ids in chunks of ACTIVITY_TRIM_CHUNK rows, a turn of the event loop
   * between chunks: a day of taps is millions of rows, and one DELETE of them all would hold the
   * (synchronous) event loop for seconds. A failure (another process's lock) is a rejection,
   * never a synchronous throw: the caller is a timer, and the next run tries again.
   */
  pruneOperationIds(olderThanMs: number): Promise<number> {
    const cutoff = Date.now() - olderThanMs;
    const remove = this.prepare(
      `DELETE FROM operation_ids WHERE (group_id, op_id) IN (
         SELECT group_id, op_id FROM operation_ids INDEXED BY operation_ids_by_age
         WHERE created_at < ? LIMIT ?)`,
    );
    return deleteInChunks(ACTIVITY_TRIM_CHUNK, () => {
      if (!this.db.open) return null;
      try {
        return remove.run(cutoff, ACTIVITY_TRIM_CHUNK).changes;
      } catch (error) {
        const reason = storageError(error);
        throw reason instanceof Error ? reason : new Error(String(reason));
      }
    });
  }

  listActivity(groupId: string, query: ActivityListQuery): Promise<ActivityEntry[]> {
    const where = ['group_id = ?'];
    const params: unknown[] = [groupId];
    if (query.before !== undefined) {
      where.push('id < ?');
      params.push(query.before);
    }
    if (query.after !== undefined) {
      where.push('id > ?');
      params.push(query.after);
    }
    if (query.counterId !== undefined) {
      where.push('counter_id = ?');
      params.push(query.counterId);
    }
    // A counter's entries through its own index: the group's index would walk every entry of
    // the group to find a rare counter's few.
    const index = query.counterId === undefined ? 'activity_by_group' : 'activity_by_counter';
    const rows = this.prepare(
      `SELECT ${ACTIVITY_FIELDS} FROM activity INDEXED BY ${index} WHERE ${where.join(' AND ')}
       ORDER BY id ${query.order === 'newest' ? 'DESC' : 'ASC'} LIMIT ?`,
    ).all(...params, query.limit) as ActivityRow[];
    return Promise.resolve(rows.map(toActivityEntry));
  }

  /**
   * The first entry, then one index seek per time bucket (the bucket's last entry, on
   * activity_by_counter_time): at most `points` seeks whatever the number of entries.
   */
  counterHistory(
    groupId: string,
    counterId: string,
    points: number,
  ): Promise<HistoryPoint[] | null> {
    const read = this.db.transaction((): HistoryPoint[] | null => {
      const counter = this.readCounter(groupId, counterId);
      if (!counter) return null;
      const now = Date.now();
      const current = { t: now, v: counter.value };
      const first = this.prepare(
        `SELECT id, at, value_after FROM activity INDEXED BY activity_by_counter
         WHERE counter_id = ? AND group_id = ? AND value_after IS NOT NULL ORDER BY id LIMIT 1`,
      ).get(counterId, groupId) as ValueRow | undefined;
      if (!first) return [current];
      const width = bucketWidthMs(first.at, now, points);
      const lastBefore = this.prepare(
        `SELECT id, at, value_after FROM activity INDEXED BY activity_by_counter_time
         WHERE counter_id = ? AND at < ? AND group_id = ? AND value_after IS NOT NULL
         ORDER BY at DESC, id DESC LIMIT 1`,
      );
      const rows: ValueRow[] = [];
      for (let start = first.at; start <= now; start += width) {
        const row = lastBefore.get(counterId, start + width, groupId) as ValueRow | undefined;
        if (row && row.at >= start && row.id !== rows[rows.length - 1]?.id) rows.push(row);
      }
      return historyPoints(first, rows, current);
    });
    return Promise.resolve(read.deferred());
  }

  recentValues(groupId: string, points: number): Promise<Record<string, HistoryPoint[]>> {
    const read = this.db.transaction(() => {
      const ids = this.prepare('SELECT id FROM counters WHERE group_id = ?').all(groupId) as {
        id: string;
      }[];
      const recent = this.prepare(
        `SELECT at, value_after FROM activity INDEXED BY activity_by_counter
         WHERE counter_id = ? AND group_id = ? AND value_after IS NOT NULL
         ORDER BY id DESC LIMIT ?`,
      );
      const series: Record<string, HistoryPoint[]> = {};
      for (const { id } of ids) {
        const rows = recent.all(id, groupId, points) as { at: number; value_after: number }[];
        series[id] = rows.reverse().map((row) => ({ t: row.at, v: row.value_after }));
      }
      return series;
    });
    return Promise.resolve(read.deferred());
  }

  /**
   * Deletes entries past the age in chunks of ACTIVITY_TRIM_CHUNK with a turn of the event loop
   * between them, then trims every group to its cap of entries (store/quotas.ts).
   */
  async pruneActivity(olderThanMs: number): Promise<number> {
    const pruned = await this.pruneByAge(olderThanMs);
    const page = this.prepare('SELECT id FROM counter_groups WHERE id > ? ORDER BY id LIMIT ?');
    await this.trimmer.trimAll((after) =>
      Promise.resolve(
        this.db.open
          ? (page.all(after, TRIM_ALL_PAGE) as { id: string }[]).map((row) => row.id)
          : [],
      ),
    );
    return pruned;
  }

  private pruneByAge(olderThanMs: number): Promise<number> {
    const cutoff = Date.now() - olderThanMs;
    const remove = this.prepare(
      `DELETE FROM activity WHERE id IN (
         SELECT id FROM activity INDEXED BY activity_by_age WHERE at < ? LIMIT ?)`,
    );
    return deleteInChunks(ACTIVITY_TRIM_CHUNK, () =>
      this.db.open ? remove.run(cutoff, ACTIVITY_TRIM_CHUNK).changes : null,
    );
  }

  /** The newest of the group's entries beyond its `cap` newest, or null (activity_by_group). */
  private activityBoundary(groupId: string, cap: number): number | null {
    if (!this.db.open) return null;
    const row = this.prepare(
      `SELECT id FROM activity INDEXED BY activity_by_group WHERE group_id = ?
       ORDER BY id DESC LIMIT 1 OFFSET ?`,
    ).get(groupId, cap) as { id: number } | undefined;
    return row?.id ?? null;
  }

  private deleteActivityUpTo(groupId: string, upTo: number, limit: number): number {
    if (!this.db.open) return 0;
    return this.prepare(
      `DELETE FROM activity WHERE id IN (
         SELECT id FROM activity INDEXED BY activity_by_group WHERE group_id = ? AND id <= ?
         ORDER BY id LIMIT ?)`,
    ).run(groupId, upTo, limit).changes;
  }

  groupSeq(groupId: string): Promise<number | null> {
    const row = this.prepare('SELECT seq FROM counter_groups WHERE id = ?').get(groupId) as
      { seq: number } | undefined;
    return Promise.resolve(row ? row.seq : null);
  }

  ping(): Promise<void> {
    this.prepare('SELECT 1').get();
    return Promise.resolve();
  }

  async close(): Promise<void> {
    await this.trimmer.stop();
    await this.checkpointer?.stop();
    if (this.db.open) this.db.close();
    this.lock?.release();
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
  private replay(
    operation: Operation,
    fingerprint: string | undefined,
  ): OperationOutcome | undefined {
    if (operation.opId === undefined) return undefined;
    const stored = this.prepare(
      'SELECT result, fingerprint FROM operation_ids WHERE group_id = ? AND op_id = ?',
    ).get(operation.groupId, operation.opId) as
      { result: string; fingerprint: string | null } | undefined;
    if (!stored) return undefined;
    const reused = reuseOf(stored.fingerprint, fingerprint);
    if (reused) return reused;
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

  /** Queues an operation id's row; writeRemembered() inserts the queue in a few statements. */
  private remember(
    groupId: string,
    opId: string | undefined,
    result: string,
    activityId: number | null,
  ): void {
    if (opId === undefined) return;
    const fingerprint = this.fingerprints.get(`${groupId}\u0000${opId}`) ?? null;
    this.remembered.push(groupId, opId, result, Date.now(), activityId, fingerprint);
  }

  /**
   * Inserts the queued operation ids, up to REMEMBER_ROWS rows per statement: under load a batch
   * carries thousands of taps, and one statement per tap was the store's largest cost after the
   * commit itself (CPU profile of the throughput benchmark). Chunk sizes are powers of two, so
   * at most eight statements are prepared.
   */
  private writeRemembered(): void {
    const values = this.remembered;
    let offset = 0;
    while (offset < values.length) {
      const left = (values.length - offset) / REMEMBER_COLUMNS;
      let rows = REMEMBER_ROWS;
      while (rows > left) rows /= 2;
      const end = offset + rows * REMEMBER_COLUMNS;
      let insert = this.rememberStatements.get(rows);
      if (!insert) {
        insert = this.db.prepare(insertOperationIds(rows));
        this.rememberStatements.set(rows, insert);
      }
      insert.run(values.slice(offset, end));
      offset = end;
    }
    values.length = 0;
  }

  /** Writes an entry of the activity log; returns its id (null with the log turned off). */
  private log(draft: ActivityDraft): number | null {
    if (!this.activityLog) return null;
    this.batchEntries.set(draft.groupId, (this.batchEntries.get(draft.groupId) ?? 0) + 1);
    const info = this.prepare(
      `INSERT INTO activity (group_id, seq, at, actor, kind, counter_id, counter_name,
         value_after, delta, detail, undo_of) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      draft.groupId,
      draft.seq,
      Date.now(),
      draft.actor,
      draft.kind,
      draft.counterId,
      draft.counterName,
      draft.value,
      draft.delta,
      detailText(draft),
      draft.undoOf,
    );
    return Number(info.lastInsertRowid);
  }

  private applyOne(operation: Operation, seqs: Map<string, number>): OperationOutcome {
    const { groupId, opId } = operation;
    const seq = this.nextSeq(groupId, seqs);
    if (seq === undefined) return groupNotFound();
    const applied = this.applyMutation(operation, seq);
    const outcome = tagWithOperationId(applied.outcome, opId);
    if (outcome.ok) {
      seqs.set(groupId, seq);
      const ids = applied.drafts.map((draft) => this.log(draft));
      const entryId = ids[0] ?? null;
      if (applied.undoes !== undefined && entryId !== null) {
        this.prepare('UPDATE activity SET undone_by = ? WHERE id = ?').run(entryId, applied.undoes);
      }
      this.remember(groupId, opId, JSON.stringify(outcome.result), entryId);
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
      const counter = toCounter(row);
      const reference = counterRef(counterId);
      for (const draft of adjustDrafts(step, operations, counter, seq)) {
        const entryId = this.log(draft);
        for (const opId of draft.opIds) this.remember(groupId, opId, reference, entryId);
      }
      return adjustOutcomes(step, operations, counter, seq);
    }
    if (!this.readCounter(groupId, counterId)) {
      return new Map(step.indices.map((index) => [index, counterNotFound()]));
    }
    // Together the taps would leave the exact range: apply them one by one, so each is
    // refused or applied on its own.
    return new Map(
      step.indices.map((index) => [index, this.applyOne(operations[index] as Operation, seqs)]),
    );
  }

  private applyMutation(operation: Operation, seq: number): Applied {
    const { groupId, mutation } = operation;
    switch (mutation.kind) {
      case 'createCounter': {
        if (this.groupIsFull(groupId)) return failed(tooManyCounters(this.quotas.countersPerGroup));
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
        return created(operation, toCounter(row), seq);
      }
      case 'updateCounter': {
        const entries = definedEntries<CounterPatch>(mutation.patch);
        return this.patchCounter(
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
        if (!row) {
          const exists = this.readCounter(groupId, mutation.counterId);
          return failed(exists ? valueOutOfRange() : counterNotFound());
        }
        return adjusted(operation, toCounter(row), seq);
      }
      case 'deleteCounter':
        return this.deleteCounter(operation, mutation.counterId, seq);
      case 'updateGroup':
        return this.patchGroup(operation, mutation.patch, seq);
      case 'undoEntry':
        return this.undo(operation, mutation.entryId, seq);
      case 'rotateKey':
      case 'setViewKey': {
        const row = (
          mutation.kind === 'rotateKey'
            ? this.prepare(
                `UPDATE counter_groups SET access_key_hash = ?,
                   view_key_hash = CASE WHEN view_key_hash IS NULL THEN NULL ELSE ? END
                 WHERE id = ? RETURNING *`,
              ).get(mutation.keyHash, mutation.viewKeyHash, groupId)
            : this.prepare(
                'UPDATE counter_groups SET view_key_hash = ? WHERE id = ? RETURNING *',
              ).get(mutation.viewKeyHash, groupId)
        ) as GroupRow | undefined;
        return row ? accessChanged(toGroup(row), seq) : failed(groupNotFound());
      }
      case 'undoOperation': {
        const row = this.prepare(
          'SELECT activity_id FROM operation_ids WHERE group_id = ? AND op_id = ?',
        ).get(groupId, mutation.opId) as { activity_id: number | null } | undefined;
        if (row?.activity_id == null) return failed(activityNotFound());
        return this.undo(operation, row.activity_id, seq);
      }
    }
  }

  /** Sets fields and adds `valueDelta` to the value in one statement (edits and their undo). */
  private patchCounter(
    operation: Operation,
    counterId: string,
    entries: [string, unknown][],
    valueDelta: bigint,
    seq: number,
    entryKind: 'counter.updated' | 'counter.adjusted',
  ): Applied {
    const { groupId } = operation;
    const before = this.readCounter(groupId, counterId);
    if (!before) return failed(counterNotFound());
    const sets = entries.map(([field]) => `${COUNTER_COLUMNS[field as keyof CounterPatch]} = ?`);
    // A typed value is set as is; otherwise the value moves by the delta (undo).
    const setsValue = entries.some(([field]) => field === 'value');
    const addToValue = setsValue ? [] : ['value = value + ?'];
    const row = this.prepare(
      `UPDATE counters SET ${[...sets, ...addToValue, 'version = ?'].join(', ')}
         WHERE id = ? AND group_id = ? AND value + ? BETWEEN ? AND ? RETURNING ${COUNTER_FIELDS}`,
    ).get(
      ...entries.map(([, v]) => v),
      ...(setsValue ? [] : [valueDelta]),
      seq,
      counterId,
      groupId,
      valueDelta,
      MIN_VALUE,
      MAX_VALUE,
    ) as CounterRow | undefined;
    if (!row) return failed(valueOutOfRange());
    const after = toCounter(row);
    const draft =
      entryKind === 'counter.adjusted'
        ? { ...counterDraft(operation, entryKind, after, seq), delta: Number(valueDelta) }
        : updateDraft(operation, before, after, seq);
    return {
      outcome: counterOutcome(after, false, { type: 'counter.updated', seq, counter: after }),
      drafts: [draft],
    };
  }

  private deleteCounter(operation: Operation, counterId: string, seq: number): Applied {
    const row = this.prepare(
      `DELETE FROM counters WHERE id = ? AND group_id = ? RETURNING ${COUNTER_FIELDS}`,
    ).get(counterId, operation.groupId) as CounterRow | undefined;
    if (!row) return failed(counterNotFound());
    const counter = toCounter(row);
    return {
      outcome: deletedOutcome(counter.id, seq),
      drafts: [counterDraft(operation, 'counter.deleted', counter, seq)],
    };
  }

  private patchGroup(operation: Operation, patch: GroupPatch, seq: number): Applied {
    const { groupId } = operation;
    const beforeRow = this.prepare('SELECT * FROM counter_groups WHERE id = ?').get(groupId) as
      GroupRow | undefined;
    if (!beforeRow) return failed(groupNotFound());
    const entries = definedEntries<GroupPatch>(patch);
    const sets = entries.map(([field]) => `${GROUP_COLUMNS[field]} = ?`);
    const row = this.prepare(
      `UPDATE counter_groups SET ${sets.join(', ')} WHERE id = ? RETURNING *`,
    ).get(...entries.map(([, v]) => v), groupId) as GroupRow;
    return groupUpdated(operation, toGroup(beforeRow), toGroup(row), seq);
  }

  /** Takes back one entry of this group by applying its inverse (store/undo.ts). */
  private undo(operation: Operation, entryId: number, seq: number): Applied {
    const { groupId } = operation;
    const row = this.prepare(
      `SELECT ${ACTIVITY_FIELDS} FROM activity WHERE id = ? AND group_id = ?`,
    ).get(entryId, groupId) as ActivityRow | undefined;
    if (!row) return failed(activityNotFound());
    if (row.undone_by !== null) return failed(alreadyUndone());
    const inverse = inverseOf(toActivityEntry(row));
    let applied: Applied;
    switch (inverse.kind) {
      case 'counter':
        applied = this.patchCounter(
          operation,
          inverse.counterId,
          definedEntries(inverse.patch),
          inverse.valueDelta,
          seq,
          inverse.entryKind,
        );
        break;
      case 'delete':
        applied = this.deleteCounter(operation, inverse.counterId, seq);
        break;
      case 'restore': {
        const { counter } = inverse;
        if (this.groupIsFull(groupId)) {
          applied = failed(tooManyCounters(this.quotas.countersPerGroup));
          break;
        }
        const restored = this.prepare(
          `INSERT INTO counters (id, group_id, name, description, value, increment_step,
               decrement_step, thumbnail_url, created_at, created_seq, version)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING
             RETURNING ${COUNTER_FIELDS}`,
        ).get(
          counter.id,
          groupId,
          counter.name,
          counter.description,
          counter.value,
          counter.incrementStep,
          counter.decrementStep,
          counter.thumbnailUrl,
          Date.parse(counter.createdAt),
          seq,
          seq,
        ) as CounterRow | undefined;
        applied = restored ? created(operation, toCounter(restored), seq) : failed(alreadyUndone());
        break;
      }
      case 'group':
        applied = this.patchGroup(operation, inverse.patch, seq);
        break;
    }
    return markUndo(applied, entryId);
  }

  /**
   * Whether the group holds its quota of counters. Counts at most that many index entries
   * (counters_by_group), so a group already over a lowered quota costs no more.
   */
  private groupIsFull(groupId: string): boolean {
    const max = this.quotas.countersPerGroup;
    const row = this.prepare(
      'SELECT count(*) AS n FROM (SELECT 1 FROM counters WHERE group_id = ? LIMIT ?)',
    ).get(groupId, max) as { n: number };
    return row.n >= max;
  }

  private readCounter(groupId: string, counterId: string): Counter | null {
    const row = this.prepare(
      `SELECT ${COUNTER_FIELDS} FROM counters WHERE id = ? AND group_id = ?`,
    ).get(counterId, groupId) as CounterRow | undefined;
    return row ? toCounter(row) : null;
  }
}
