/**
 * The store interface: everything the server needs from a database. Routes and the live channel
 * only talk to this, so SQLite and PostgreSQL are interchangeable; test/integration/store.suite.ts
 * is the contract every implementation passes.
 */
import type { ActivityEntry, CounterPeriod, HistoryPoint } from '../../shared/activity.js';
import type {
  Counter,
  ErrorCode,
  Group,
  Mutation,
  MutationResult,
  Tally,
} from '../../shared/api.js';
import type { Change } from '../../shared/protocol.js';
import { MESSAGES } from '../../shared/messages.js';
import { DomainError } from '../errors.js';

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

export interface GroupRecord extends Group {
  /** SHA-256 of the access key, hex. Never leaves the server. */
  keyHash: string;
  /** SHA-256 of the view-only link's key, hex; null while the group has no view-only link. */
  viewKeyHash: string | null;
}

/** Changes to who may open a group: server-made, never sent by clients as such. */
export type AccessMutation =
  /** A new access key; an existing view-only link moves to the key derived from the new one. */
  | { kind: 'rotateKey'; keyHash: string; viewKeyHash: string }
  /** Turns the view-only link on (its key's hash) or off (null). */
  | { kind: 'setViewKey'; viewKeyHash: string | null }
  /**
   * Ends the periods of these counters that are due (issue 17's reset scheduler). Any batch ends
   * a due period of a counter it reads; this names counters nobody touches at midnight.
   */
  | { kind: 'resetPeriods'; counterIds: string[] };

/** What the store applies: a client's mutation, or an access change. */
export type StoreMutation = Mutation | AccessMutation;

export interface GroupState {
  group: GroupRecord;
  /** In the group's order: reordered counters by position, the others after them by age. */
  counters: Counter[];
  /** The group's latest change number; every change carries the next one. */
  seq: number;
}

/** One mutation of one group, as the batcher hands it to the store. */
export interface Operation {
  groupId: string;
  /** Client operation id: a retried operation with the same id is applied once. */
  opId?: string | undefined;
  mutation: StoreMutation;
  /** The member's display name for the activity log (already cleaned: shared memberName). */
  actor?: string | undefined;
}

/** Which activity entries to read, always one group's. */
export interface ActivityListQuery {
  /** Entries older than this id (paging back). */
  before?: number | undefined;
  /** Entries newer than this id (catching up, exporting). */
  after?: number | undefined;
  limit: number;
  counterId?: string | undefined;
  /** 'newest' first (the panel) or 'oldest' first (export). */
  order: 'newest' | 'oldest';
}

export interface TalliesListQuery {
  counterId?: string | undefined;
  /** Epoch ms: only entries at or after it. */
  since?: number | undefined;
  limit: number;
}

/** A counter whose current period is over. */
export interface DuePeriod {
  groupId: string;
  counterId: string;
}

export type OperationOutcome =
  | {
      ok: true;
      result: MutationResult;
      /** What subscribers must hear; empty when the operation was a replay of an earlier one. */
      changes: Change[];
      replayed: boolean;
    }
  | {
      ok: false;
      code: ErrorCode;
      message: string;
      /**
       * What subscribers must hear although this operation was refused: the batch ended a
       * period it found due (store/commit.ts) and announces it with the group's first outcome.
       */
      changes?: Change[];
    };

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
  /** One group's activity entries (shared/activity.ts), by id. */
  listActivity(groupId: string, query: ActivityListQuery): Promise<ActivityEntry[]>;
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

/** Each group's changes of a committed batch, in change-number order. */
export function changesByGroup(
  operations: readonly Operation[],
  outcomes: readonly OperationOutcome[],
): Map<string, Change[]> {
  const byGroup = new Map<string, Change[]>();
  outcomes.forEach((outcome, index) => {
    const groupId = operations[index]?.groupId;
    const changes = outcome.changes ?? [];
    if (changes.length === 0 || groupId === undefined) return;
    const list = byGroup.get(groupId) ?? [];
    list.push(...changes);
    byGroup.set(groupId, list);
  });
  // Coalesced steps take their change number when they are applied, after singles that came
  // later in the batch, so the changes are put back in change-number order.
  for (const changes of byGroup.values()) changes.sort((a, b) => a.seq - b.seq);
  return byGroup;
}
