/**
 * The store interface: everything the server needs from a database. Routes and the live channel
 * only talk to this, so SQLite and PostgreSQL are interchangeable; test/integration/store.suite.ts
 * is the contract every implementation passes.
 */
import type { ActivityEntry, CounterPeriod, HistoryPoint } from '../../shared/activity.js';
import type { Counter, Tally } from '../../shared/api.js';
import { MESSAGES } from '../../shared/messages.js';
import { DomainError } from '../errors.js';
import type { AlertStore } from './alerts.js';
import type { StoredChainEntry } from '../domain/log-chain.js';
import type { StagedEntry } from '../domain/import.js';

/** An import's entries moved into the log, not yet published (Store.moveStagedImport). */
export interface MovedImport {
  /** Its commit published them: the group's log opens to readers again. */
  published(): void;
  /** It will not be published: its entries leave the log (a slice at a time), which then opens. */
  abandoned(): Promise<void>;
}

/** Where a group's activity chain starts (its anchor) and ends (its head); null: none yet. */
export interface ChainEnds {
  anchor: string | null;
  head: string | null;
}
import type { GroupRecord, Operation, OperationOutcome } from '../domain/operations.js';

// The domain's vocabulary, for the layers above that see the store only through this file.
export {
  changesByGroup,
  type AccessMutation,
  type GroupRecord,
  type Operation,
  type OperationOutcome,
  type StoreMutation,
} from '../domain/operations.js';

/**
 * The database is locked by another process (SQLite: a backup, a second program): nothing of the
 * batch was applied and it may be sent again at once — `busy`, which clients retry. The
 * batcher must reject the whole batch with it, never retry its operations one by one.
 */
export class StoreBusyError extends DomainError {
  override name = 'StoreBusyError';
  constructor() {
    super('busy', MESSAGES.busy);
  }
}

/**
 * Writes cannot be committed: the SQLite file was deleted or replaced under the server, the disk
 * is full or read-only, the PostgreSQL schema is gone. Nothing of the batch was applied:
 * `storage_unavailable`. Like StoreBusyError, it fails the whole batch, not one operation.
 */
export class StorageUnavailableError extends DomainError {
  override name = 'StorageUnavailableError';
  constructor(readonly reason: string) {
    super('storage_unavailable', MESSAGES.storageUnavailable);
  }
}

/** Whether an error from Store.commit fails every operation of the batch alike. */
export const failsWholeBatch = (error: unknown): boolean =>
  error instanceof StoreBusyError || error instanceof StorageUnavailableError;

export interface GroupState {
  group: GroupRecord;
  /** In the group's order: reordered counters by position, the others after them by age. */
  counters: Counter[];
  /** The group's latest change number; every change carries the next one. */
  seq: number;
}

/** Which activity entries to read, always one group's. */
export interface ActivityListQuery {
  /** Entries older than this id (paging back). */
  before?: number | undefined;
  /** Entries newer than this id (catching up, exporting). */
  after?: number | undefined;
  limit: number;
  counterId?: string | undefined;
  /** Only entries with a note or counted for an earlier time (their own partial indexes). */
  noted?: boolean | undefined;
  /** 'newest' first (the panel) or 'oldest' first (export). */
  order: 'newest' | 'oldest';
}

export interface TalliesListQuery {
  counterId?: string | undefined;
  /** One row per member, link and counter, or per link and counter (store/tallies.ts). */
  by?: 'member' | 'link' | undefined;
  /** Epoch ms: only entries at or after it. */
  since?: number | undefined;
  limit: number;
}

export interface TapLinkUsage {
  taps: number;
  /** Epoch ms. */
  lastUsedAt: number;
}

/** A counter whose current period is over. */
export interface DuePeriod {
  groupId: string;
  counterId: string;
}

/**
 * Whether changes can be saved right now (PostgreSQL: false from a lost connection until the
 * database commits a write again), and a signal when that changes.
 */
export interface StoreAvailability {
  readonly saving: boolean;
  /** Called with the new state on every change; returns an unsubscribe. */
  onChange(listener: (saving: boolean) => void): () => void;
}

export interface Store {
  readonly kind: 'sqlite' | 'postgres';
  /** Absent where saving never pauses as a whole (SQLite answers each write by itself). */
  readonly availability?: StoreAvailability;
  /** Runs pending schema migrations; safe to call on every start. */
  migrate(): Promise<void>;
  findGroup(name: string): Promise<GroupRecord | null>;
  /** Creates the group unless it exists (race-safe); name and display name are the slug. */
  createGroup(name: string, keyHash: string): Promise<{ group: GroupRecord; created: boolean }>;
  /** A consistent snapshot: the counters and seq belong to the same moment. */
  loadGroupState(groupId: string): Promise<GroupState | null>;
  /**
   * Applies the operations in order in one transaction and returns one outcome each. Domain
   * failures (unknown counter, value out of range) are outcomes, not exceptions; an exception
   * means nothing of this call was applied.
   */
  commit(operations: readonly Operation[]): Promise<OperationOutcome[]>;
  /**
   * What commit([operation]) would answer now, applying and writing nothing (an import's
   * preview): the same algorithm and reads, the writes dropped.
   */
  preview(operation: Operation): Promise<OperationOutcome>;
  /** Which of `fingerprints` an imported entry of the group's log carries (ADR 37). */
  importedFingerprints(groupId: string, fingerprints: readonly string[]): Promise<Set<string>>;
  /**
   * Writes a slice of an import's entries out of sight, in one short transaction of its own: no
   * read of the log sees them until a commit publishes the import (ImportPlan.staged).
   */
  stageImport(importId: string, entries: readonly StagedEntry[]): Promise<void>;
  /**
   * Moves an import's staged entries into the log before the commit that publishes it, `slice`
   * per short transaction, the group's log closed to its readers until `published` or
   * `abandoned` (SQLite: the commit then only ends the move, ADR 37). Absent where the
   * publishing commit moves them itself (PostgreSQL, where that holds neither the event loop nor
   * another group's lane).
   */
  moveStagedImport?(
    importId: string,
    { groupId, slice }: { groupId: string; slice: number },
  ): Promise<MovedImport>;
  /** Removes up to `limit` of an import's staged entries (after its commit, or its failure); how many. */
  dropStagedImport(importId: string, limit: number): Promise<number>;
  /** Removes the staged entries of imports that began before `before` (epoch ms) and never ended. */
  dropStaleImports(before: number): Promise<number>;
  /** Each tap link's taps (amounts) and newest tap (epoch ms) that the activity log holds. */
  tapLinkUsage(groupId: string): Promise<Map<string, TapLinkUsage>>;
  /** One group's activity entries (shared/activity.ts), by id. */
  listActivity(groupId: string, query: ActivityListQuery): Promise<ActivityEntry[]>;
  /** One entry of the group, or null. */
  activityEntry(groupId: string, entryId: number): Promise<ActivityEntry | null>;
  /**
   * Sets (or, with null, removes) an entry's note (ADR 36: notes are outside the hash chain);
   * the entry after it, or null when the group has no such entry.
   */
  setEntryNote(
    groupId: string,
    entryId: number,
    note: string | null,
  ): Promise<ActivityEntry | null>;
  /**
   * A counter's value over its whole life in at most `points` time buckets (the last value of
   * each), oldest first, ending with its current value; null if the group has no such counter.
   */
  counterHistory(
    groupId: string,
    counterId: string,
    points: number,
  ): Promise<HistoryPoint[] | null>;
  /** Each counter's last `points` values, oldest first (sparklines). */
  recentValues(groupId: string, points: number): Promise<Record<string, HistoryPoint[]>>;
  /**
   * Each member's taps per counter from the activity log (undone taps and undos left out),
   * largest net first, at most `limit` rows.
   */
  tallies(groupId: string, query: TalliesListQuery): Promise<Tally[]>;
  /** A counter's ended periods, newest first; null if the group has no such counter. */
  counterPeriods(
    groupId: string,
    counterId: string,
    limit: number,
  ): Promise<CounterPeriod[] | null>;
  /** Every ended period of the group's counters, oldest first (the export). */
  groupPeriods(groupId: string): Promise<CounterPeriod[]>;
  /** Counters whose period is over at `now` (epoch ms), soonest first, at most `limit`. */
  duePeriods(now: number, limit: number): Promise<DuePeriod[]>;
  /** Forgets activity entries older than the given age. */
  pruneActivity(olderThanMs: number): Promise<number>;
  /** Forgets operation ids older than the given age, so the table stays bounded. */
  pruneOperationIds(olderThanMs: number): Promise<number>;
  /**
   * The group's chained activity entries after `afterId`, oldest first, each with its stored
   * hash (log-chain.ts); null when there is no such group.
   */
  activityChain(groupId: string, afterId: number, limit: number): Promise<StoredChainEntry[]>;
  /** The ends of the group's activity chain: the anchor (last pruned) and the head (newest). */
  activityChainEnds(groupId: string): Promise<ChainEnds | null>;
  /** Alerts: the outbox the commit writes to, delivery logs, push subscriptions (store/alerts.ts). */
  readonly alerts: AlertStore;
  /** Resolves when the database answers. */
  ping(): Promise<void>;
  /** The group's latest change number (null when there is no such group): cheap, one row. */
  groupSeq(groupId: string): Promise<number | null>;
  /**
   * A small write committed in its own transaction (the health check's probe): rejects with
   * StorageUnavailableError or StoreBusyError when writes cannot be committed now.
   */
  probeWrite(): Promise<void>;
  close(): Promise<void>;
}
