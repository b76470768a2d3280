/**
 * SQLite store (better-sqlite3, WAL). The embedded default: one file, nothing to install.
 *
 * Every change runs inside one write transaction per batch (see batcher.ts). The domain's commit
 * (src/server/domain/commit.ts) computes each tap's new value under that transaction, in memory,
 * from the committed row, and this adapter writes it (`SET value = ?`): taps that arrive together
 * add up instead of overwriting, because the batch is the only writer of its groups.
 * WAL with synchronous=NORMAL by default: an answered change survives a crash of the process;
 * SQLITE_SYNCHRONOUS=full adds an fsync per batch so it also survives power loss
 * (docs/decisions/0002-sqlite-durability.md).
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type Database from 'better-sqlite3';
import type { ActivityEntry, CounterPeriod, HistoryPoint } from '../../../shared/activity.js';
import type { Counter, Tally } from '../../../shared/api.js';
import {
  DEFAULT_ACTIVITY_RETENTION_DAYS,
  PERIODS_KEPT_PER_COUNTER,
} from '../../../shared/limits.js';
import {
  StorageUnavailableError,
  StoreBusyError,
  type ActivityListQuery,
  type ChainEnds,
  type DuePeriod,
  type GroupRecord,
  type MovedImport,
  type TalliesListQuery,
  type TapLinkUsage,
  type GroupState,
  type Operation,
  type OperationOutcome,
  type Store,
} from '../types.js';
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
  dropStagedSlice,
  linkMoved,
  moveSlice,
  publishStaged,
  stageEntries,
  undoUnfinishedMoves,
  unmoveSlice,
} from './import-staging.js';
import { LogGate } from './log-gate.js';
import {
  runSync,
  type BatchResult,
  type BatchWrites,
  type PeriodWrite,
  type ImportFound,
  type ImportLookup,
  type ReadAnswer,
  type ReadRequest,
  type StoredCounter,
  type StoredGroup,
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
import { detailText, toActivityEntry, type ActivityRow } from '../../domain/entry-record.js';
import { startCheckpointer, type Checkpointer } from './checkpointer.js';
import { startReadWorker, type ReadWorker } from './read-worker.js';
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
import { lockDatabaseFile, type FileLock } from './file-lock.js';
import { sqliteDatabase } from './driver.js';
import { RowCache, frozenCounter, frozenGroup } from './row-cache.js';
import {
  ActivityTrimmer,
  deleteInChunks,
  ACTIVITY_TRIM_CHUNK,
  TRIM_ALL_PAGE,
  DEFAULT_STORE_QUOTAS,
  type StoreQuotas,
} from '../quotas.js';
import { MIGRATIONS } from './migrations.js';
import { OUTBOX_INSERT, SqliteAlerts } from './alerts.js';
import { alertsText, parseAlerts } from '../../domain/alert-config.js';
import { tapLinksText } from '../../domain/tap-links.js';
import type { StoredChainEntry } from '../../domain/log-chain.js';

/** How hard each commit is made durable (SQLITE_SYNCHRONOUS; ADR 2). */
export type SqliteSynchronous = 'normal' | 'full';

/** The tables pruned by age, with the column that holds each row's time (epoch ms). */
const TIMED_TABLES = {
  activity: 'at',
  operation_ids: 'created_at',
} as const;

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

const asError = (reason: unknown): Error =>
  reason instanceof Error ? reason : new Error(String(reason));

/**
 * Counter and group rows kept in memory (store/sqlite/row-cache.ts): about 0.5 KB each, so at most
 * ~10 MB and ~3 MB. Past them the least recently stored go; a miss costs one indexed read.
 */
const ROW_CACHE_COUNTERS = 20_000;
const ROW_CACHE_GROUPS = 5_000;

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

  /** The operation-id INSERTs by row count (powers of two up to REMEMBER_ROWS). */
  private readonly rememberStatements = new Map<number, Database.Statement>();

  /** Whether changes are written to the activity log (ACTIVITY_LOG). */
  private readonly activityLog: boolean;

  /** The batches' clock, epoch ms. */
  private readonly clock: () => number;
  /** How many days back a count may be for (CommitOptions). */
  private readonly countedAtWindowDays: number;
  /**
   * The latest batch time, epoch ms: a batch never takes an earlier one, even when the system
   * clock steps back, so entry times never go backwards and (counter_id, at, id) keeps id order
   * (migration 7). Starts at the newest entry's time (migrate()).
   */
  private lastBatchAt = 0;
  /** Committed counter and group rows, by id (store/sqlite/row-cache.ts). */
  private readonly counterRows = new RowCache<StoredCounter>(ROW_CACHE_COUNTERS);
  private readonly groupRows = new RowCache<StoredGroup>(ROW_CACHE_GROUPS);

  /** Checkpoints the WAL from a worker thread (file databases only). */
  private readonly checkpointer: Checkpointer | undefined;

  /** The alert outbox, delivery log, push subscriptions and settings (store/alerts.ts). */
  readonly alerts: SqliteAlerts;

  /** Runs heavy reads from a worker thread (file databases only; started by migrate()). */
  private reader: ReadWorker | undefined;
  /** The log's readers of a group wait while an import is moved into it (ADR 37). */
  private readonly logGate = new LogGate();

  /** The database file's path, and the file it named when opened (file databases only). */
  private readonly file: string;
  private readonly identity: FileIdentity | undefined;
  /** Held for the store's life: a second server on this file refuses to start. */
  private readonly lock: FileLock | undefined;
  /** Counters per group; activity entries kept per group (store/quotas.ts). */
  private readonly quotas: StoreQuotas;
  private readonly trimmer: ActivityTrimmer;

  constructor(
    file: string,
    options: {
      synchronous?: SqliteSynchronous;
      activityLog?: boolean;
      /** Told when WAL checkpoints fail or move back onto the event loop. */
      onCheckpointError?: (message: string) => void;
      /** Per-group quotas; DEFAULT_STORE_QUOTAS unless given. */
      quotas?: StoreQuotas;
      /** Told when trimming the activity log fails (it is retried on later writes). */
      onTrimError?: (error: unknown) => void;
      /** The batches' clock, epoch ms (tests move it across period boundaries); Date.now. */
      clock?: () => number;
      /** How many days back a count may be for; DEFAULT_ACTIVITY_RETENTION_DAYS unless given. */
      countedAtWindowDays?: number;
    } = {},
  ) {
    this.clock = options.clock ?? Date.now;
    this.countedAtWindowDays = options.countedAtWindowDays ?? DEFAULT_ACTIVITY_RETENTION_DAYS;
    this.activityLog = options.activityLog ?? true;
    this.quotas = options.quotas ?? DEFAULT_STORE_QUOTAS;
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
      const Sqlite = sqliteDatabase();
      this.db = new Sqlite(file, { timeout: BUSY_TIMEOUT_MS });
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
    this.batchTransaction = this.transactionForBatches();
    this.alerts = new SqliteAlerts(this.db, (sql) => this.prepare(sql));
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
    this.alerts.releaseLeases();
    // One process holds the file: every staged or moving import is one a crash or a stop
    // interrupted, never published.
    undoUnfinishedMoves(this.db);
    this.db.exec('DELETE FROM import_staged');
    const newest = this.db.prepare('SELECT MAX(at) AS at FROM activity').get() as {
      at: number | null;
    };
    this.lastBatchAt = Math.max(this.lastBatchAt, newest.at ?? 0);
    // The worker opens the file read-only: only once the schema exists in it.
    if (this.file !== ':memory:' && !this.reader) this.reader = startReadWorker(this.file);
    return Promise.resolve();
  }

  findGroup(name: string): Promise<GroupRecord | null> {
    const row = this.reading(
      () =>
        this.prepare('SELECT * FROM counter_groups WHERE name = ?').get(name) as
          GroupRow | undefined,
    );
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
        `SELECT ${COUNTER_FIELDS} FROM counters WHERE group_id = ? ORDER BY ${COUNTER_ORDER}`,
      ).all(groupId) as CounterRow[];
      return { group: toGroup(row), counters: counters.map(toCounter), seq: row.seq };
    });
    return Promise.resolve(this.reading(() => read.deferred()));
  }

  commit(operations: readonly Operation[]): Promise<OperationOutcome[]> {
    const { outcomes, writes } = this.commitBatch(operations);
    this.trimmer.noteBatch(writes.entries.map(({ draft }) => draft.groupId));
    return Promise.resolve(outcomes);
  }

  /** Resolves when no activity trim is running (tests). */
  activityTrimmed(): Promise<void> {
    return this.trimmer.settled();
  }

  /**
   * One batch's reads and writes; run inside the write transaction below. Wrapped once: better-
   * sqlite3 builds four wrapper functions per `transaction()` call, a cost per batch otherwise.
   */
  private readonly batchTransaction: Database.Transaction<
    (operations: readonly Operation[]) => BatchResult
  >;

  private transactionForBatches(): Database.Transaction<
    (operations: readonly Operation[]) => BatchResult
  > {
    return this.db.transaction((operations: readonly Operation[]): BatchResult => {
      this.lastBatchAt = Math.max(this.lastBatchAt, this.clock());
      const options = { ...this.commitOptions(), now: this.lastBatchAt };
      const result = runSync(commitBatch(operations, options), (request) => this.read(request));
      this.write(result.writes, options.now);
      return result;
    });
  }

  private commitOptions() {
    return {
      activityLog: this.activityLog,
      countersPerGroup: this.quotas.countersPerGroup,
      activityEntriesPerGroup: this.quotas.activityEntriesPerGroup,
      countedAtWindowDays: this.countedAtWindowDays,
    };
  }

  /**
   * What committing `operation` alone would answer now, without writing anything: the commit's
   * reads in one read transaction, its writes dropped (an import's preview).
   */
  preview(operation: Operation): Promise<OperationOutcome> {
    const options = {
      ...this.commitOptions(),
      now: Math.max(this.lastBatchAt, this.clock()),
      preview: true,
    };
    const read = this.db.transaction(
      () => runSync(commitBatch([operation], options), (request) => this.read(request)).outcomes,
    );
    const [outcome] = this.reading(() => read.deferred());
    if (!outcome) throw new Error('the commit answered no outcome');
    return Promise.resolve(outcome);
  }

  importedFingerprints(groupId: string, fingerprints: readonly string[]): Promise<Set<string>> {
    const rows = this.reading(
      () =>
        this.prepare(
          `SELECT import_fingerprint AS f FROM activity INDEXED BY activity_by_import
           WHERE group_id = ? AND import_fingerprint IN (SELECT value FROM json_each(?))`,
        ).all(groupId, JSON.stringify(fingerprints)) as { f: string }[],
    );
    return Promise.resolve(new Set(rows.map((row) => row.f)));
  }

  stageImport(importId: string, entries: readonly StagedEntry[]): Promise<void> {
    try {
      this.assertSameFile();
      stageEntries(this.db, {
        importId,
        entries,
        now: Math.max(this.lastBatchAt, this.clock()),
      });
      return Promise.resolve();
    } catch (error) {
      return Promise.reject(asError(storageError(error)));
    }
  }

  async moveStagedImport(
    importId: string,
    { groupId, slice }: { groupId: string; slice: number },
  ): Promise<MovedImport> {
    const reopen = await this.logGate.close(groupId);
    const slices: { from: number; firstId: number }[] = [];
    const unmove = async () => {
      while (unmoveSlice(this.db, importId, slice) === slice) await nextTurn();
    };
    try {
      for (let from = 0; ; from += slice) {
        this.assertSameFile();
        const { firstId, moved } = moveSlice(this.db, { importId, groupId, from, limit: slice });
        slices.push({ from, firstId });
        if (moved < slice) break;
        await nextTurn();
      }
      // Position p is in the slice that starts at or before it, at its offset there.
      linkMoved(this.db, importId, (position) => {
        const { from, firstId } = slices[Math.floor(position / slice)] as (typeof slices)[0];
        return firstId + position - from;
      });
    } catch (error) {
      await unmove().catch(() => undefined);
      reopen();
      throw asError(storageError(error));
    }
    return {
      published: reopen,
      abandoned: async () => {
        try {
          await unmove();
        } finally {
          reopen();
        }
      },
    };
  }

  dropStagedImport(importId: string, limit: number): Promise<number> {
    try {
      return Promise.resolve(dropStagedSlice(this.db, importId, limit));
    } catch (error) {
      return Promise.reject(asError(storageError(error)));
    }
  }

  dropStaleImports(before: number): Promise<number> {
    try {
      return Promise.resolve(
        this.prepare('DELETE FROM import_staged WHERE staged_at < ?').run(before).changes,
      );
    } catch (error) {
      return Promise.reject(asError(storageError(error)));
    }
  }

  /** The batch in one write transaction; throws (nothing applied) if it cannot commit. */
  private commitBatch(operations: readonly Operation[]): BatchResult {
    // Checked once per batch (one stat call): a deleted file would take writes that are gone
    // after a restart, so they are refused instead of acknowledged.
    this.assertSameFile();
    try {
      const result = this.batchTransaction.immediate(operations);
      this.keepRows(result.writes);
      if (result.writes.alerts.length > 0) this.alerts.written();
      return result;
    } catch (error) {
      // Rows read in a batch that failed are still committed state, but a failure after the
      // commit (none is known) must not leave a row the file does not hold.
      this.counterRows.clear();
      this.groupRows.clear();
      throw storageError(error);
    }
  }

  /** The final rows of a committed batch become the cached ones. */
  private keepRows(writes: BatchWrites): void {
    for (const id of writes.deletedCounters) this.counterRows.delete(id);
    for (const { existed: _existed, onlyValue: _onlyValue, ...row } of writes.counters) {
      this.counterRows.set(row.counter.id, frozenCounter(row));
    }
    for (const { record, seq, alerts, logHead } of writes.groups) {
      this.groupRows.set(record.id, frozenGroup({ record, seq, alerts, logHead }));
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
  /**
   * A read on the event loop. A failing read on a file deleted or replaced under the server (a
   * copy made without the WAL has no tables yet: "no such table") is the storage gone, 503
   * storage_unavailable, not a bug; so are the I/O errors storageError() names.
   */
  private reading<T>(read: () => T): T {
    try {
      return read();
    } catch (error) {
      this.assertSameFile();
      throw storageError(error);
    }
  }

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
  async pruneOperationIds(olderThanMs: number): Promise<number> {
    const rows = await this.pruneOlderThan('operation_ids', olderThanMs);
    return rows + (await this.pruneSessions(Date.now() - olderThanMs));
  }

  /**
   * Deletes the sessions of numbered taps (ADR 24) unused since `cutoff` (epoch ms). Their rows
   * are rewritten in place, so time does not follow rowid: the table is walked in rowid ranges of
   * ACTIVITY_TRIM_CHUNK, a turn of the event loop between them, each row's time checked.
   */
  private async pruneSessions(cutoff: number): Promise<number> {
    let deleted = 0;
    try {
      const bounds = {
        low: this.rowidExtreme('operation_sessions', 'MIN'),
        high: this.rowidExtreme('operation_sessions', 'MAX'),
      };
      if (bounds.low === null || bounds.high === null) return 0;
      const remove = this.prepare(
        'DELETE FROM operation_sessions WHERE rowid >= ? AND rowid < ? AND updated_at < ?',
      );
      for (let from = bounds.low; from <= bounds.high; from += ACTIVITY_TRIM_CHUNK) {
        if (!this.db.open) return deleted;
        deleted += remove.run(from, from + ACTIVITY_TRIM_CHUNK, cutoff).changes;
        await nextTurn();
      }
    } catch (error) {
      throw asError(storageError(error));
    }
    return deleted;
  }

  /** Deletes the table's rows older than the age, in chunks (operation ids, activity entries). */
  private pruneOlderThan(table: keyof typeof TIMED_TABLES, olderThanMs: number): Promise<number> {
    if (!this.db.open) return Promise.resolve(0);
    let remove: () => number | null;
    try {
      remove = this.olderThan(table, Date.now() - olderThanMs);
    } catch (error) {
      return Promise.reject(asError(storageError(error)));
    }
    return deleteInChunks(ACTIVITY_TRIM_CHUNK, () => {
      try {
        return remove();
      } catch (error) {
        throw asError(storageError(error));
      }
    });
  }

  /**
   * Deletes a chunk of the table's rows older than `cutoff` (epoch ms) per call; null once the
   * database is closed. Rows are appended in time order, so the rows to go are the ones before a
   * boundary rowid, found by binary search (~20 rowid seeks at a million rows): no index by time
   * costs a leaf per tap any more. A row out of order (an entry written before migration 7 by a
   * clock that stepped back, an operation id copied by migration 8) is never deleted early, only
   * perhaps one prune late: each row's own time is checked too.
   */
  private olderThan(table: keyof typeof TIMED_TABLES, cutoff: number): () => number | null {
    const column = TIMED_TABLES[table];
    const boundary = this.firstRowidAtOrAfter(table, column, cutoff);
    if (table === 'activity') return this.activityOlderThan(boundary, cutoff);
    const remove = this.prepare(
      `DELETE FROM ${table} WHERE rowid IN (
         SELECT rowid FROM ${table} WHERE rowid < ? AND ${column} < ? ORDER BY rowid LIMIT ?)`,
    );
    return () => (this.db.open ? remove.run(boundary, cutoff, ACTIVITY_TRIM_CHUNK).changes : null);
  }

  /**
   * olderThan for the activity log: each chunk's groups keep the hash of their last entry
   * deleted as their chain's anchor (ADR 30), in the chunk's transaction.
   */
  private activityOlderThan(boundary: number, cutoff: number): () => number | null {
    const chunk = this.prepare(
      `SELECT id, group_id FROM activity WHERE id < ? AND at < ? ORDER BY id LIMIT ?`,
    );
    const remove = this.prepare('DELETE FROM activity WHERE id = ?');
    const prune = this.db.transaction((): number => {
      const rows = chunk.all(boundary, cutoff, ACTIVITY_TRIM_CHUNK) as {
        id: number;
        group_id: string;
      }[];
      const last = new Map<string, number>();
      for (const row of rows) last.set(row.group_id, row.id);
      this.anchorAt([...last.values()]);
      for (const row of rows) remove.run(row.id);
      return rows.length;
    });
    return () => (this.db.open ? prune.immediate() : null);
  }

  /**
   * The table's lowest or highest rowid (null when empty). One query each: SQLite answers MIN or
   * MAX alone with one seek, but both at once by a scan.
   */
  private rowidExtreme(table: string, extreme: 'MIN' | 'MAX'): number | null {
    const row = this.prepare(`SELECT ${extreme}(rowid) AS id FROM ${table}`).get() as {
      id: number | null;
    };
    return row.id;
  }

  /** The first rowid whose row is at `cutoff` or later, assuming times follow rowids. */
  private firstRowidAtOrAfter(table: string, column: string, cutoff: number): number {
    const first = this.rowidExtreme(table, 'MIN');
    const last = this.rowidExtreme(table, 'MAX');
    if (first === null || last === null) return 0;
    const timeFrom = this.prepare(
      `SELECT rowid AS id, ${column} AS at FROM ${table} WHERE rowid >= ? ORDER BY rowid LIMIT 1`,
    );
    // Invariant: rows before `low` are older than the cutoff; the row at `high + 1` is not.
    let low = first;
    let high = last + 1;
    while (low < high) {
      const middle = Math.floor((low + high) / 2);
      const row = timeFrom.get(middle) as { id: number; at: number } | undefined;
      if (!row || row.at >= cutoff) high = middle;
      else low = row.id + 1;
    }
    return low;
  }

  activityChain(groupId: string, afterId: number, limit: number): Promise<StoredChainEntry[]> {
    return this.logGate.read(groupId, () => {
      const rows = this.reading(
        () =>
          this.prepare(
            `SELECT ${ACTIVITY_FIELDS}, hash FROM activity INDEXED BY activity_by_group
             WHERE group_id = ? AND id > ? ORDER BY id LIMIT ?`,
          ).all(groupId, afterId, limit) as (ActivityRow & { hash: string | null })[],
      );
      return Promise.resolve(rows.map((row) => ({ hash: row.hash, entry: toActivityEntry(row) })));
    });
  }

  activityChainEnds(groupId: string): Promise<ChainEnds | null> {
    return this.logGate.read(groupId, () => {
      const row = this.reading(
        () =>
          this.prepare('SELECT log_anchor, log_head FROM counter_groups WHERE id = ?').get(
            groupId,
          ) as { log_anchor: string | null; log_head: string | null } | undefined,
      );
      return Promise.resolve(row ? { anchor: row.log_anchor, head: row.log_head } : null);
    });
  }

  listActivity(groupId: string, query: ActivityListQuery): Promise<ActivityEntry[]> {
    return this.logGate.read(groupId, () => {
      const direction = query.order === 'newest' ? 'DESC' : 'ASC';
      if (query.counterId !== undefined && query.noted !== true) {
        return Promise.resolve(
          this.listCounterActivity(groupId, { ...query, counterId: query.counterId }, direction),
        );
      }
      const where = ['group_id = ?'];
      const params: unknown[] = [groupId];
      // Noted entries through their own partial indexes: a few among a group's many plain taps.
      let index = 'activity_by_group';
      if (query.noted === true) {
        where.push(NOTED_ENTRIES);
        index = 'activity_noted';
        if (query.counterId !== undefined) {
          where.push('counter_id = ?');
          params.push(query.counterId);
          index = 'activity_noted_by_counter';
        }
      }
      if (query.before !== undefined) {
        where.push('id < ?');
        params.push(query.before);
      }
      if (query.after !== undefined) {
        where.push('id > ?');
        params.push(query.after);
      }
      const rows = this.prepare(
        `SELECT ${ACTIVITY_FIELDS} FROM activity INDEXED BY ${index}
         WHERE ${where.join(' AND ')} ORDER BY id ${direction} LIMIT ?`,
      ).all(...params, query.limit) as ActivityRow[];
      return Promise.resolve(rows.map(toActivityEntry));
    });
  }

  activityEntry(groupId: string, entryId: number): Promise<ActivityEntry | null> {
    return this.logGate.read(groupId, () => {
      const row = this.prepare(
        `SELECT ${ACTIVITY_FIELDS} FROM activity WHERE id = ? AND group_id = ?`,
      ).get(entryId, groupId) as ActivityRow | undefined;
      return Promise.resolve(row ? toActivityEntry(row) : null);
    });
  }

  setEntryNote(
    groupId: string,
    entryId: number,
    note: string | null,
  ): Promise<ActivityEntry | null> {
    return this.logGate.read(groupId, () => {
      const row = this.prepare(
        `UPDATE activity SET note = ? WHERE id = ? AND group_id = ? RETURNING ${ACTIVITY_FIELDS}`,
      ).get(note, entryId, groupId) as ActivityRow | undefined;
      return Promise.resolve(row ? toActivityEntry(row) : null);
    });
  }

  /**
   * A counter's entries through its own index, (counter_id, at, id): the group's index would walk
   * every entry of the group to find a rare counter's few. Entry times never go backwards, so
   * time order is id order, and an id cursor becomes a seek to the (at, id) of the nearest entry
   * on its side: paging stays one seek however deep, even past a pruned entry.
   */
  private listCounterActivity(
    groupId: string,
    query: ActivityListQuery & { counterId: string },
    direction: 'ASC' | 'DESC',
  ): ActivityEntry[] {
    const { counterId } = query;
    const read = this.db.transaction((): ActivityRow[] => {
      const where = ['counter_id = ?', 'group_id = ?'];
      const params: unknown[] = [counterId, groupId];
      for (const [cursor, side] of [
        [query.before, '<'],
        [query.after, '>'],
      ] as const) {
        if (cursor === undefined) continue;
        const bound = this.prepare(
          side === '<'
            ? 'SELECT at, id FROM activity WHERE id < ? ORDER BY id DESC LIMIT 1'
            : 'SELECT at, id FROM activity WHERE id > ? ORDER BY id LIMIT 1',
        ).get(cursor) as { at: number; id: number } | undefined;
        if (!bound) return [];
        where.push(`(at, id) ${side}= (?, ?)`);
        params.push(bound.at, bound.id);
      }
      return this.prepare(
        `SELECT ${ACTIVITY_FIELDS} FROM activity INDEXED BY activity_by_counter_time
         WHERE ${where.join(' AND ')} ORDER BY at ${direction}, id ${direction} LIMIT ?`,
      ).all(...params, query.limit) as ActivityRow[];
    });
    return read.deferred().map(toActivityEntry);
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
    return this.logGate.read(groupId, () => {
      const read = this.db.transaction((): HistoryPoint[] | null => {
        const counter = this.readCounter(groupId, counterId);
        if (!counter) return null;
        const now = Date.now();
        const current = { t: now, v: counter.value };
        const first = this.prepare(
          `SELECT id, at, value_after FROM activity INDEXED BY activity_by_counter_time
           WHERE counter_id = ? AND group_id = ? AND value_after IS NOT NULL ORDER BY at, id LIMIT 1`,
        ).get(counterId, groupId) as ValueRow | undefined;
        if (!first) return [current];
        const earlier = this.earlierCounts(groupId, counterId);
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
        return placeEarlierCounts(historyPoints(first, rows, current), earlier, points);
      });
      return Promise.resolve(read.deferred());
    });
  }

  recentValues(groupId: string, points: number): Promise<Record<string, HistoryPoint[]>> {
    return this.logGate.read(groupId, () => {
      const read = this.db.transaction(() => {
        const ids = this.prepare('SELECT id FROM counters WHERE group_id = ?').all(groupId) as {
          id: string;
        }[];
        const recent = this.prepare(
          `SELECT at, value_after FROM activity INDEXED BY activity_by_counter_time
           WHERE counter_id = ? AND group_id = ? AND value_after IS NOT NULL
           ORDER BY at DESC, id DESC LIMIT ?`,
        );
        const earlier = this.earlierCounts(groupId);
        const series: Record<string, HistoryPoint[]> = {};
        for (const { id } of ids) {
          const rows = recent.all(id, groupId, points) as { at: number; value_after: number }[];
          series[id] = placeEarlierCounts(
            rows.reverse().map((row) => ({ t: row.at, v: row.value_after })),
            earlier.filter((count) => count.counterId === id),
            points,
          );
        }
        return series;
      });
      return Promise.resolve(read.deferred());
    });
  }

  /** The group's (or one counter's) changes counted for an earlier time (a partial index). */
  private earlierCounts(groupId: string, counterId?: string): EarlierCount[] {
    const rows = this.prepare(
      `SELECT ${EARLIER_COUNT_FIELDS} FROM activity INDEXED BY activity_counted_earlier
       WHERE group_id = ? AND counted_at IS NOT NULL AND (? IS NULL OR counter_id = ?)`,
    ).all(groupId, counterId ?? null, counterId ?? null) as EarlierCountRow[];
    return rows.map(earlierCountOf);
  }

  /**
   * Deletes entries past the age in chunks of ACTIVITY_TRIM_CHUNK with a turn of the event loop
   * between them, then trims every group to its cap of entries (store/quotas.ts).
   */
  async pruneActivity(olderThanMs: number): Promise<number> {
    const pruned = await this.pruneOlderThan('activity', olderThanMs);
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

  /** The newest of the group's entries beyond its `cap` newest, or null (activity_by_group). */
  private activityBoundary(groupId: string, cap: number): number | null {
    if (!this.db.open) return null;
    const row = this.prepare(
      `SELECT id FROM activity INDEXED BY activity_by_group WHERE group_id = ?
       ORDER BY id DESC LIMIT 1 OFFSET ?`,
    ).get(groupId, cap) as { id: number } | undefined;
    return row?.id ?? null;
  }

  /**
   * Deletes the group's oldest entries up to `upTo`, at most `limit`; the hash of the last one
   * deleted becomes the chain's anchor (ADR 30), in the same transaction.
   */
  private deleteActivityUpTo(groupId: string, upTo: number, limit: number): number {
    if (!this.db.open) return 0;
    const trim = this.db.transaction((): number => {
      const last = this.prepare(
        `SELECT max(id) AS id FROM (SELECT id FROM activity INDEXED BY activity_by_group
           WHERE group_id = ? AND id <= ? ORDER BY id LIMIT ?)`,
      ).get(groupId, upTo, limit) as { id: number | null };
      if (last.id === null) return 0;
      this.anchorAt([last.id]);
      return this.prepare(
        `DELETE FROM activity WHERE id IN (
           SELECT id FROM activity INDEXED BY activity_by_group WHERE group_id = ? AND id <= ?)`,
      ).run(groupId, last.id).changes;
    });
    return trim.immediate();
  }

  /**
   * Entries about to be deleted, each its group's last to go: their hashes become their groups'
   * anchors (an entry written before the chain, without a hash, leaves the anchor as it is).
   */
  private anchorAt(lastIds: readonly number[]): void {
    const anchor = this.prepare(
      `UPDATE counter_groups SET log_anchor = coalesce(
         (SELECT hash FROM activity WHERE id = ?), log_anchor)
       WHERE id = (SELECT group_id FROM activity WHERE id = ?)`,
    );
    for (const id of lastIds) anchor.run(id, id);
  }

  /**
   * Read by the read worker (store/sqlite/read-worker.ts): at the log's cap this adds up 100,000
   * entries, ~100 ms that must not hold the event loop. An in-memory database has no file a
   * worker could open: it reads on the event loop.
   */
  tapLinkUsage(groupId: string): Promise<Map<string, TapLinkUsage>> {
    return this.logGate.read(groupId, () => {
      const rows = this.prepare(
        `SELECT link_id, TOTAL(${LINK_TAPS}) AS taps, max(at) AS last
         FROM activity INDEXED BY activity_by_link
         WHERE group_id = ? AND link_id IS NOT NULL AND ${TALLY_ENTRIES} GROUP BY link_id`,
      ).all(groupId) as { link_id: string; taps: number; last: number }[];
      return Promise.resolve(
        new Map(rows.map((row) => [row.link_id, { taps: row.taps, lastUsedAt: row.last }])),
      );
    });
  }

  tallies(groupId: string, query: TalliesListQuery): Promise<Tally[]> {
    return this.logGate.read(groupId, async () => {
      const where = ['group_id = ?', TALLY_ENTRIES];
      const params: (string | number)[] = [groupId];
      if (query.counterId !== undefined) {
        where.push('counter_id = ?');
        params.push(query.counterId);
      }
      if (query.since !== undefined) {
        // A change counted for an earlier time belongs to that time (ADR 36). It is never counted
        // for later than it was recorded, so `at >= since` still holds and keeps the index's range.
        where.push('at >= ?', `${COUNTED_TIME} >= ?`);
        params.push(query.since, query.since);
      }
      const index =
        query.counterId === undefined ? 'activity_by_group' : 'activity_by_counter_time';
      // TOTAL sums as a double: SUM would fail past 2^63 (alternating ±10^15 taps get there).
      const { select, groupBy } = tallyGrouping(query.by ?? 'member');
      const sql = `SELECT ${select}, counter_id, TOTAL(${INCREMENTS}) AS increments,
           TOTAL(${DECREMENTS}) AS decrements
         FROM activity INDEXED BY ${index} WHERE ${where.join(' AND ')}
         GROUP BY ${groupBy}
         ORDER BY TOTAL(${INCREMENTS}) - TOTAL(${DECREMENTS}) DESC, actor, link_label, counter_id
         LIMIT ?`;
      params.push(query.limit);
      const rows = this.reader
        ? await this.reader.all<TallyRow>(sql, params)
        : (this.prepare(sql).all(...params) as TallyRow[]);
      return rows.map(toTally);
    });
  }

  counterPeriods(
    groupId: string,
    counterId: string,
    limit: number,
  ): Promise<CounterPeriod[] | null> {
    if (!this.readCounter(groupId, counterId)) return Promise.resolve(null);
    const rows = this.prepare(
      `SELECT ${PERIOD_FIELDS} FROM counter_periods WHERE counter_id = ? AND group_id = ?
       ORDER BY start_at DESC LIMIT ?`,
    ).all(counterId, groupId, limit) as PeriodRow[];
    return Promise.resolve(rows.map(toPeriod));
  }

  groupPeriods(groupId: string): Promise<CounterPeriod[]> {
    const rows = this.prepare(
      `SELECT ${PERIOD_FIELDS} FROM counter_periods WHERE group_id = ? ORDER BY start_at, counter_id`,
    ).all(groupId) as PeriodRow[];
    return Promise.resolve(rows.map(toPeriod));
  }

  duePeriods(now: number, limit: number): Promise<DuePeriod[]> {
    const rows = this.prepare(
      `SELECT group_id, id FROM counters INDEXED BY counters_by_next_reset
       WHERE next_reset_at IS NOT NULL AND next_reset_at <= ? ORDER BY next_reset_at LIMIT ?`,
    ).all(now, limit) as { group_id: string; id: string }[];
    return Promise.resolve(rows.map((row) => ({ groupId: row.group_id, counterId: row.id })));
  }

  groupSeq(groupId: string): Promise<number | null> {
    const row = this.reading(
      () =>
        this.prepare('SELECT seq FROM counter_groups WHERE id = ?').get(groupId) as
          { seq: number } | undefined,
    );
    return Promise.resolve(row ? row.seq : null);
  }

  ping(): Promise<void> {
    this.prepare('SELECT 1').get();
    return Promise.resolve();
  }

  async close(): Promise<void> {
    await this.trimmer.stop();
    await this.reader?.stop();
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

  // ---- inside the write transaction: the reads and writes of domain/commit.ts ----------------

  /** One round of the commit's reads: prepared single-row lookups (in-process, ~µs each). */
  private read(request: ReadRequest): ReadAnswer {
    const groupRow = this.prepare('SELECT * FROM counter_groups WHERE id = ?');
    const groups = request.groups.flatMap((id) => {
      const group = this.groupRows.getOrLoad(id, () => {
        const row = groupRow.get(id) as GroupRow | undefined;
        return (
          row &&
          frozenGroup({
            record: toGroup(row),
            seq: row.seq,
            alerts: parseAlerts(row.alerts),
            logHead: row.log_head,
          })
        );
      });
      return group ? [group] : [];
    });
    const operationIdRow = this.prepare(
      `SELECT result, fingerprint, activity_id FROM operation_ids WHERE group_id = ? AND op_id = ?`,
    );
    const operationIds = request.operationIds.flatMap(({ groupId, opId }) => {
      const row = operationIdRow.get(groupId, opId) as
        { result: string; fingerprint: string | null; activity_id: number | null } | undefined;
      if (!row) return [];
      const result = JSON.parse(row.result) as StoredAnswer;
      return [{ groupId, opId, result, fingerprint: row.fingerprint, activityId: row.activity_id }];
    });
    const sessionRow = this.prepare(
      'SELECT high, seen FROM operation_sessions WHERE group_id = ? AND session = ?',
    );
    const sessions = request.sessions.flatMap(({ groupId, session }) => {
      const row = sessionRow.get(groupId, session) as { high: number; seen: string } | undefined;
      return row ? [{ groupId, session, high: row.high, seen: row.seen }] : [];
    });
    const entryRow = this.prepare(`SELECT ${ACTIVITY_FIELDS} FROM activity WHERE id = ?`);
    const entries = request.entries.flatMap((id) => {
      const row = entryRow.get(id) as ActivityRow | undefined;
      return row ? [{ groupId: row.group_id, entry: toActivityEntry(row) }] : [];
    });
    const counterRow = this.prepare(`SELECT ${STORED_COUNTER_FIELDS} FROM counters WHERE id = ?`);
    const counters = request.counters.flatMap((id) => {
      const counter = this.counterRows.getOrLoad(id, () => {
        const row = counterRow.get(id) as StoredCounterRow | undefined;
        return row && frozenCounter(toStoredCounter(row));
      });
      return counter ? [counter] : [];
    });
    const groupRows = this.prepare(
      `SELECT ${STORED_COUNTER_FIELDS} FROM counters WHERE group_id = ?`,
    );
    for (const groupId of request.groupCounters) {
      for (const row of groupRows.all(groupId) as StoredCounterRow[]) {
        counters.push(toStoredCounter(row));
      }
    }
    const sectionRows = this.prepare(
      `SELECT ${STORED_COUNTER_FIELDS} FROM counters WHERE group_id = ? AND section = ?`,
    );
    for (const { groupId, section } of request.sections) {
      for (const row of sectionRows.all(groupId, section) as StoredCounterRow[]) {
        counters.push(toStoredCounter(row));
      }
    }
    // Counts at most `countCap` index entries (counters_in_order), so a group already over a
    // lowered quota costs no more.
    const count = this.prepare(
      'SELECT count(*) AS n FROM (SELECT 1 FROM counters WHERE group_id = ? LIMIT ?)',
    );
    const counts = new Map(
      request.countGroups.map((groupId) => {
        const row = count.get(groupId, request.countCap) as { n: number };
        return [groupId, row.n] as const;
      }),
    );
    return {
      groups,
      operationIds,
      sessions,
      entries,
      counters,
      counts,
      ...(request.imports ? { imports: this.readImports(request.imports) } : {}),
    };
  }

  /** An import's lookups: each group's entries, and which fingerprints its log holds. */
  private readImports(lookups: readonly ImportLookup[]): ImportFound[] {
    const count = this.prepare(
      'SELECT count(*) AS n FROM activity INDEXED BY activity_by_group WHERE group_id = ?',
    );
    const known = this.prepare(
      `SELECT import_fingerprint AS f FROM activity INDEXED BY activity_by_import
       WHERE group_id = ? AND import_fingerprint IN (SELECT value FROM json_each(?))`,
    );
    return lookups.map(({ groupId, fingerprints }) => ({
      groupId,
      entries: (count.get(groupId) as { n: number }).n,
      known: (known.all(groupId, JSON.stringify(fingerprints)) as { f: string }[]).map(
        (row) => row.f,
      ),
    }));
  }

  /** Writes a batch's final rows, one prepared statement per row (in-process, no round trips). */
  private write(writes: BatchWrites, now: number): void {
    const remove = this.prepare('DELETE FROM counters WHERE id = ?');
    const removePeriods = this.prepare('DELETE FROM counter_periods WHERE counter_id = ?');
    for (const id of writes.deletedCounters) {
      remove.run(id);
      removePeriods.run(id);
    }
    const update = this.prepare(
      `UPDATE counters SET name = ?, description = ?, value = ?, increment_step = ?,
         decrement_step = ?, thumbnail_url = ?, created_at = ?, created_seq = ?, version = ?,
         goal = ?, min_value = ?, max_value = ?, reset_period = ?, start_value = ?, section = ?,
         position = ?, period_start = ?, next_reset_at = ?, closed_total = ?
       WHERE id = ?`,
    );
    const insert = this.prepare(
      `INSERT INTO counters (name, description, value, increment_step, decrement_step,
         thumbnail_url, created_at, created_seq, version, goal, min_value, max_value,
         reset_period, start_value, section, position, period_start, next_reset_at,
         closed_total, id, group_id)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const updateValue = this.prepare('UPDATE counters SET value = ?, version = ? WHERE id = ?');
    for (const write of writes.counters) {
      const { counter, createdSeq, existed, onlyValue, groupId } = write;
      // Taps, most writes under load: two columns instead of twenty.
      if (existed && onlyValue) {
        updateValue.run(counter.value, counter.version, counter.id);
        continue;
      }
      const values = [
        counter.name,
        counter.description,
        counter.value,
        counter.incrementStep,
        counter.decrementStep,
        counter.thumbnailUrl,
        Date.parse(counter.createdAt),
        createdSeq,
        counter.version,
        counter.goal,
        counter.min,
        counter.max,
        counter.reset,
        counter.startValue,
        counter.section,
        write.position,
        counter.periodStart === null ? null : Date.parse(counter.periodStart),
        write.nextResetAt,
        write.closedTotal,
        counter.id,
      ];
      if (existed) update.run(values);
      else insert.run(...values, groupId);
    }
    const updateGroup = this.prepare(
      `UPDATE counter_groups SET display_name = ?, profile_image_url = ?, access_key_hash = ?,
         view_key_hash = ?, seq = ?, time_zone = ?, week_start = ?, section_limits = ?,
         log_head = ?, tap_links = ?
       WHERE id = ?`,
    );
    for (const { record, seq, logHead } of writes.groups) {
      updateGroup.run(
        record.displayName,
        record.profileImageUrl,
        record.keyHash,
        record.viewKeyHash,
        seq,
        record.timeZone,
        record.weekStart,
        sectionLimitsText(record.sectionLimits),
        logHead,
        tapLinksText(record.tapLinks),
        record.id,
      );
    }
    const updateAlerts = this.prepare('UPDATE counter_groups SET alerts = ? WHERE id = ?');
    for (const { record, alerts, alertsChanged } of writes.groups) {
      if (!alertsChanged) continue;
      updateAlerts.run(alertsText(alerts), record.id);
      this.alerts.forgetOtherDestinations(record.id, alerts);
    }
    if (writes.alerts.length > 0) {
      const outbox = this.prepare(OUTBOX_INSERT);
      for (const alert of writes.alerts) {
        outbox.run({
          group: alert.groupId,
          destination: alert.destinationId,
          body: alert.body,
          now,
        });
      }
    }
    this.writePeriods(writes.periods);
    if (writes.periodCorrections.length > 0) {
      const correct = this.prepare(
        `UPDATE counter_periods SET final_value = final_value + ?
         WHERE counter_id = ? AND start_at <= ? AND end_at > ?`,
      );
      for (const { counterId, at, delta } of writes.periodCorrections) {
        correct.run(delta, counterId, at, at);
      }
    }
    const ids = this.writeEntries(writes, now);
    for (const published of writes.publishedImports ?? []) publishStaged(this.db, published);
    const rows: (string | number | null)[] = [];
    for (const { groupId, opId, result, entry, fingerprint } of writes.operationIds) {
      rows.push(
        groupId,
        opId,
        result,
        now,
        entry === null ? null : (ids[entry] ?? null),
        fingerprint,
      );
    }
    this.insertOperationIds(rows);
    const session = this.prepare(
      `INSERT INTO operation_sessions (group_id, session, high, seen, updated_at)
       VALUES (?, ?, ?, ?, ?) ON CONFLICT (group_id, session)
       DO UPDATE SET high = excluded.high, seen = excluded.seen, updated_at = excluded.updated_at`,
    );
    for (const { groupId, session: id, high, seen } of writes.sessions) {
      session.run(groupId, id, high, seen, now);
    }
  }

  /** Keeps ended periods, each counter's newest PERIODS_KEPT_PER_COUNTER. */
  private writePeriods(periods: readonly PeriodWrite[]): void {
    if (periods.length === 0) return;
    const insert = this.prepare(
      `INSERT INTO counter_periods (counter_id, group_id, start_at, end_at, final_value)
       VALUES (?, ?, ?, ?, ?) ON CONFLICT (counter_id, start_at)
       DO UPDATE SET end_at = excluded.end_at, final_value = excluded.final_value`,
    );
    const trim = this.prepare(
      `DELETE FROM counter_periods WHERE counter_id = ? AND start_at <= (
         SELECT start_at FROM counter_periods WHERE counter_id = ?
         ORDER BY start_at DESC LIMIT 1 OFFSET ?)`,
    );
    for (const period of periods) {
      insert.run(period.counterId, period.groupId, period.start, period.end, period.value);
      trim.run(period.counterId, period.counterId, PERIODS_KEPT_PER_COUNTER);
    }
  }

  /** Inserts the batch's activity entries and links undos; returns their ids in order. */
  private writeEntries(writes: BatchWrites, now: number): number[] {
    const insert = this.prepare(
      `INSERT INTO activity (group_id, seq, at, actor, kind, counter_id, counter_name,
         value_after, delta, detail, undo_of, increments, decrements, hash, link_id, link_label,
         import_fingerprint, import_hash)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const ids: number[] = [];
    for (const { draft, undoOf, hash } of writes.entries) {
      const target = undoOf === null ? null : 'id' in undoOf ? undoOf.id : ids[undoOf.draft];
      const info = insert.run(
        draft.groupId,
        draft.seq,
        draft.at ?? now,
        draft.actor,
        draft.kind,
        draft.counterId,
        draft.counterName,
        draft.value,
        draft.delta,
        detailText(draft),
        target ?? null,
        draft.increments,
        draft.decrements,
        hash,
        draft.link?.id ?? null,
        draft.link?.label ?? null,
        draft.imported?.fingerprint ?? null,
        draft.imported?.hash ?? null,
      );
      // A note or an earlier time, rare, is set on the new row: a plain tap's INSERT names no
      // more columns than it did.
      if (draft.note !== undefined || draft.countedAt !== undefined) {
        this.prepare('UPDATE activity SET note = ?, counted_at = ? WHERE id = ?').run(
          draft.note ?? null,
          draft.countedAt ?? null,
          info.lastInsertRowid,
        );
      }
      ids.push(Number(info.lastInsertRowid));
    }
    const undone = this.prepare('UPDATE activity SET undone_by = ? WHERE id = ?');
    for (const { entryId, by } of writes.undone) undone.run(ids[by], entryId);
    writes.entries.forEach(({ undoneBy }, index) => {
      if (undoneBy !== null) undone.run(ids[undoneBy], ids[index]);
    });
    return ids;
  }

  /**
   * Inserts operation-id rows (REMEMBER_COLUMNS values each), up to REMEMBER_ROWS rows per
   * statement: under load a batch carries thousands of taps, and one statement per tap was the
   * store's largest cost after the commit itself (CPU profile of the throughput benchmark).
   * Chunk sizes are powers of two, so at most eight statements are prepared.
   */
  private insertOperationIds(values: readonly (string | number | null)[]): void {
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
  }

  private readCounter(groupId: string, counterId: string): Counter | null {
    const row = this.prepare(
      `SELECT ${COUNTER_FIELDS} FROM counters WHERE id = ? AND group_id = ?`,
    ).get(counterId, groupId) as CounterRow | undefined;
    return row ? toCounter(row) : null;
  }
}
