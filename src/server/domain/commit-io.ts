/**
 * The contract between the commit algorithm (domain/commit.ts) and a SQL store: what the
 * algorithm asks to read (`ReadRequest`), what it is answered (`ReadAnswer`), what it writes
 * (`BatchWrites`), and the two drivers that run it, synchronously or with `await`.
 */
import type { Counter } from '../../shared/api.js';
import type { Change } from '../../shared/protocol.js';
import type { ActivityEntry } from '../../shared/activity.js';
import type { ActivityDraft } from './activity.js';
import type { AlertWrite, GroupAlerts } from './alert-config.js';
import type { StoredAnswer } from './operation-ids.js';
import type { GroupRecord, OperationOutcome } from './operations.js';

// ---- What the algorithm reads ------------------------------------------------------------------

export interface OperationKey {
  groupId: string;
  opId: string;
}

/**
 * One round of reads, inside the batch's transaction. Parts left out are not read (their answer
 * is empty). A store may answer the parts in any order, except that `groups` must be locked
 * before anything else of those groups is read.
 */
export interface ReadRequest {
  /** Groups to lock (PostgreSQL: in id order) and read with their change numbers. */
  groups: string[];
  operationIds: OperationKey[];
  /** The sessions of numbered taps (ADR 24), by group. */
  sessions: SessionKey[];
  /** Activity entries by id (what an undo takes back). */
  entries: number[];
  /** Counters by id, whatever their group. */
  counters: string[];
  /** Groups whose counters are counted (quota), each count stopped at `countCap`. */
  countGroups: string[];
  countCap: number;
  /** Groups all of whose counters are read (a reorder, a new time zone). */
  groupCounters: string[];
  /** Sections all of whose counters are read (a section with a maximum: its total). */
  sections: SectionKey[];
  /**
   * Groups an import adds entries to: how many entries each holds (its quota), and which of the
   * import's fingerprints its log already holds (an entry imported before is not added again).
   */
  imports?: ImportLookup[];
}

export interface ImportLookup {
  groupId: string;
  fingerprints: string[];
}

/** What a store found for an ImportLookup. */
export interface ImportFound {
  groupId: string;
  /** The group's activity entries now. */
  entries: number;
  /** The fingerprints asked for that an entry of the group already carries. */
  known: string[];
}

export interface SessionKey {
  groupId: string;
  session: string;
}

/** A session's window as stored (domain/numbered-ids.ts): the bits as hex text. */
export interface StoredSession extends SessionKey {
  high: number;
  seen: string;
}

export interface SectionKey {
  groupId: string;
  section: string;
}

/** A group row with its latest change number, its alert rules and its log's head. */
export interface StoredGroup {
  record: GroupRecord;
  seq: number;
  alerts: GroupAlerts;
  /** The hash of its newest chained activity entry (log-chain.ts); null before the first. */
  logHead: string | null;
}

/** A group's final row; its alert rules are written only when they changed. */
export interface GroupWrite extends StoredGroup {
  alertsChanged: boolean;
}

/** A counter row with what the API does not show. */
export interface StoredCounter {
  groupId: string;
  /** The change number that created it (orders counters created in the same millisecond). */
  createdSeq: number;
  /** Its place in the group's order once counters were reordered; null: after those, by age. */
  position: number | null;
  /** Epoch ms when its current period ends (counters that reset), else null. */
  nextResetAt: number | null;
  /** The final values of its ended periods, added up (counter.allTime adds the value). */
  closedTotal: number;
  counter: Counter;
}

export interface StoredOperationId extends OperationKey {
  result: StoredAnswer;
  /** What the id meant (operation-ids.ts fingerprintOf); null for rows older than fingerprints. */
  fingerprint: string | null;
  /** The activity entry it made, if any. */
  activityId: number | null;
}

export interface ReadAnswer {
  groups: StoredGroup[];
  operationIds: StoredOperationId[];
  sessions: StoredSession[];
  entries: { groupId: string; entry: ActivityEntry }[];
  counters: StoredCounter[];
  /** Counters per group, up to the cap asked for. */
  counts: Map<string, number>;
  /** The answer to `imports` (absent when none were asked). */
  imports?: ImportFound[];
}

// ---- What the algorithm writes -----------------------------------------------------------------

/** An entry written by this batch: `{ draft: i }` is the batch's i-th new entry. */
export type EntryRef = { id: number } | { draft: number };

export interface EntryWrite {
  draft: ActivityDraft;
  /** The entry this one takes back (an undo). */
  undoOf: EntryRef | null;
  /** A later entry of the same batch that took this one back. */
  undoneBy: number | null;
}

/** A new entry as written: with its hash, chained to the group's entry before it. */
export interface ChainedEntryWrite extends EntryWrite {
  hash: string;
}

export interface CounterWrite extends StoredCounter {
  /** Whether a row with this id existed before the batch (update it) or not (insert it). */
  existed: boolean;
  /** Whether only the value and version changed (taps): a store may write just those. */
  onlyValue: boolean;
}

export interface OperationIdWrite extends OperationKey {
  /** JSON of the StoredAnswer. */
  result: string;
  /** The new entry (index into `entries`) it made, if any. */
  entry: number | null;
  fingerprint: string | null;
}

/**
 * Everything a batch changes, as final rows: a counter changed ten times is written once. Empty
 * lists write nothing.
 */
export interface BatchWrites {
  /** Counters that exist after the batch and changed, with their final rows. */
  counters: CounterWrite[];
  /** Counters that existed before the batch and do not after it. */
  deletedCounters: string[];
  /** Groups whose row changed (fields, change number or alert rules), final rows. */
  groups: GroupWrite[];
  /** New activity entries, in the order they happened, each chained to the one before. */
  entries: ChainedEntryWrite[];
  /** Existing entries taken back by a new one (index into `entries`). */
  undone: { entryId: number; by: number }[];
  operationIds: OperationIdWrite[];
  /** Sessions whose window moved (numbered taps applied), final rows: written in place. */
  sessions: StoredSession[];
  /** Periods that ended in this batch (counters that reset). */
  periods: PeriodWrite[];
  /** Counts for periods that ended before this batch: their kept totals move. */
  periodCorrections: PeriodCorrection[];
  /** Alerts fired by the batch's changes, for the outbox, in the order they happened. */
  alerts: AlertWrite[];
  /**
   * Imports whose staged entries (Store.stageImport) move into the log, after the batch's own
   * entries; absent in every batch without one, so a tap's writes are what they were.
   */
  publishedImports?: PublishedImport[];
}

/** An import's staged entries, published: they become the group's newest entries, in order. */
export interface PublishedImport {
  importId: string;
  groupId: string;
  /** How many were staged: the store checks it finds them all. */
  entries: number;
}

/** An ended period: epoch ms bounds and the value it ended with. */
export interface PeriodWrite {
  groupId: string;
  counterId: string;
  start: number;
  end: number;
  value: number;
}

/**
 * A count for an ended period (domain/tap-context.ts): `delta` is added to the final total of the
 * counter's kept period whose span holds `at` (epoch ms), if one is kept.
 */
export interface PeriodCorrection {
  groupId: string;
  counterId: string;
  at: number;
  delta: number;
}

export interface BatchResult {
  outcomes: OperationOutcome[];
  writes: BatchWrites;
  /** Each group's committed changes in change-number order (what subscribers must hear). */
  changes: Map<string, Change[]>;
}

export interface CommitOptions {
  /** Whether changes are written to the activity log (ACTIVITY_LOG). */
  activityLog: boolean;
  countersPerGroup: number;
  /** Activity entries a group may keep: an import that would pass it is refused. */
  activityEntriesPerGroup?: number;
  /** Only the outcomes are wanted (an import's preview): no writes are made. */
  preview?: boolean;
  /** The batch's clock, epoch ms: creation times, entry times and period ends. */
  now: number;
  /**
   * How many days back a count may be for (what the activity log keeps: ACTIVITY_RETENTION_DAYS,
   * its default when the log is kept forever).
   */
  countedAtWindowDays: number;
  newCounterId?: () => string;
}

export type Commit = Generator<ReadRequest, BatchResult, ReadAnswer>;

// ---- Drivers -------------------------------------------------------------------------------------

/** Runs the algorithm with synchronous reads (better-sqlite3 inside its transaction). */
export function runSync(commit: Commit, read: (request: ReadRequest) => ReadAnswer): BatchResult {
  let step = commit.next(undefined as unknown as ReadAnswer);
  while (!step.done) step = commit.next(read(step.value));
  return step.value;
}

/** Runs the algorithm with asynchronous reads (PostgreSQL inside its transaction). */
export async function runAsync(
  commit: Commit,
  read: (request: ReadRequest) => Promise<ReadAnswer>,
): Promise<BatchResult> {
  let step = commit.next(undefined as unknown as ReadAnswer);
  while (!step.done) step = commit.next(await read(step.value));
  return step.value;
}
