/**
 * The batch applied so far, in memory: the rows read, as the batch changes them, and what it
 * will write. Every part of the commit (taps.ts, counters.ts, group-settings.ts, periods.ts,
 * undo.ts, operation-ids.ts) reads and changes this state through the few primitives here;
 * `writes()` turns it into the final rows a store writes.
 */
import type { ActivityEntry } from '../../shared/activity.js';
import type { Counter } from '../../shared/api.js';
import type { Change } from '../../shared/protocol.js';
import { COUNTER_FIELDS } from '../../shared/fields.js';
import type { ActivityDraft } from './activity.js';
import type {
  BatchWrites,
  ChainedEntryWrite,
  CommitOptions,
  CounterWrite,
  EntryRef,
  EntryWrite,
  OperationIdWrite,
  PeriodCorrection,
  PeriodWrite,
  PublishedImport,
  SessionKey,
  StoredCounter,
  StoredGroup,
  StoredOperationId,
} from './commit-io.js';
import { seenText, type SessionWindow } from './numbered-ids.js';
import type { AlertWrite } from './alert-config.js';
import { CHAIN_START, draftChainHash } from './log-chain.js';
import type { Operation, SequencedOperation } from './operations.js';
import type { Applied } from './outcomes.js';
import { allTimeOf } from './periods.js';

export interface CounterState extends StoredCounter {
  existed: boolean;
  exists: boolean;
  changed: boolean;
  /** Whether only the value (and version) differ from the row read: the write of a tap. */
  onlyValue: boolean;
}

export interface GroupState extends StoredGroup {
  changed: boolean;
  /** Whether its alert rules changed (written only then: a tap leaves them as they are). */
  alertsChanged: boolean;
}

/**
 * A counter of the group becoming `after`: a new or restored one (no `state`, `before` null), or
 * one that exists (an edit, an undo: `state` its row, `before` its counter until now).
 */
export interface CounterChange {
  groupId: string;
  state?: CounterState | undefined;
  before: Counter | null;
  after: Counter;
}

/** An applied mutation; an undo also names the entry it took back. */
export type Applying = Applied & { undoes?: EntryRef };

/** An entry an undo may take back: read, or written earlier in this batch (`{ draft: i }`). */
export interface KnownEntry {
  groupId: string;
  entry: ActivityEntry;
  ref: EntryRef;
}

/** What the reads found (domain/reads.ts), keyed for the batch. */
export interface BatchRows {
  groups: Map<string, GroupState>;
  counters: Map<string, CounterState>;
  /** Counters per group, counted when the batch began (the quota). */
  counts: Map<string, number>;
  known: Map<number, KnownEntry>;
  storedIds: Map<string, StoredOperationId>;
  /** The windows of the sessions of the batch's numbered taps, by group and session. */
  sessions: Map<string, SessionWindow>;
  /** Groups all of whose counters were read (a reorder, new midnights). */
  wholeGroups: ReadonlySet<string>;
  /** Groups an import adds entries to: their entries now and the fingerprints already there. */
  imports: ReadonlyMap<string, { entries: number; known: ReadonlySet<string> }>;
}

/** What a batch is before anything is read: the rows it reads come as `BatchRows`. */
export interface BatchInput {
  operations: readonly Operation[];
  options: CommitOptions;
  /** Names a new counter (`CommitOptions.newCounterId`, else a random UUID). */
  newCounterId: () => string;
  /** Each operation id's fingerprint at its first use in the batch. */
  fingerprints: ReadonlyMap<string, string>;
}

/**
 * One operation being applied to the batch, with the change number it takes if it succeeds:
 * what each rule of a change (counters.ts, group-settings.ts, undo.ts) works with.
 */
export interface OperationContext extends SequencedOperation {
  batch: BatchState;
}

export class BatchState implements BatchRows, BatchInput {
  readonly operations: readonly Operation[];
  readonly options: CommitOptions;
  readonly newCounterId: () => string;
  readonly fingerprints: ReadonlyMap<string, string>;
  readonly groups: Map<string, GroupState>;
  readonly counters: Map<string, CounterState>;
  readonly counts: Map<string, number>;
  readonly known: Map<number, KnownEntry>;
  readonly storedIds: Map<string, StoredOperationId>;
  readonly sessions: Map<string, SessionWindow>;
  readonly wholeGroups: ReadonlySet<string>;
  readonly imports: ReadonlyMap<string, { entries: number; known: ReadonlySet<string> }>;

  /** New activity entries, in the order they happened (kept only with the log on). */
  readonly entries: EntryWrite[] = [];
  /** Existing entries taken back by this batch, and by which new entry. */
  readonly undone: { entryId: number; by: number }[] = [];
  readonly undoneIds = new Set<number>();
  readonly operationIds: OperationIdWrite[] = [];
  /** Operation ids applied by this batch → the entry they made (for an undo in the batch). */
  readonly appliedIds = new Map<string, number | null>();
  /** Sessions whose window this batch moved. */
  readonly movedSessions = new Map<string, SessionKey>();
  readonly periods: PeriodWrite[] = [];
  readonly periodCorrections: PeriodCorrection[] = [];
  /** Alerts the batch's changes fired, in the order they happened (the outbox). */
  readonly alerts: AlertWrite[] = [];
  /** Changes of periods this batch ended, by group: announced with the group's first outcome. */
  readonly periodChanges = new Map<string, Change[]>();
  /** Imports whose staged entries this batch publishes (domain/import.ts). */
  readonly publishedImports: PublishedImport[] = [];

  constructor(input: BatchInput, rows: BatchRows) {
    this.operations = input.operations;
    this.options = input.options;
    this.newCounterId = input.newCounterId;
    this.fingerprints = input.fingerprints;
    this.groups = rows.groups;
    this.counters = rows.counters;
    this.counts = rows.counts;
    this.known = rows.known;
    this.storedIds = rows.storedIds;
    this.sessions = rows.sessions;
    this.wholeGroups = rows.wholeGroups;
    this.imports = rows.imports;
  }

  /** The group's counter with this id, while it exists. */
  counterOf(groupId: string, counterId: string): CounterState | undefined {
    const state = this.counters.get(counterId);
    return state?.exists === true && state.groupId === groupId ? state : undefined;
  }

  /** Sets a counter's row; its all-time figure follows its value. */
  setCounter(state: CounterState, counter: Counter): Counter {
    const before = state.counter;
    if (
      state.onlyValue &&
      (COUNTER_FIELDS.some((field) => field !== 'value' && before[field] !== counter[field]) ||
        before.periodStart !== counter.periodStart)
    ) {
      state.onlyValue = false;
    }
    const final = { ...counter, allTime: allTimeOf(state.closedTotal, counter.value) };
    state.counter = final;
    state.changed = true;
    return final;
  }

  /** Publishes an import's staged entries with the batch; its group's head is already theirs. */
  publishImport(published: PublishedImport): void {
    this.publishedImports.push(published);
  }

  /** The group takes its next change number. */
  bump(group: GroupState, seq: number): void {
    group.seq = seq;
    group.changed = true;
  }

  /** Adds a new entry; returns its index in the batch (null with the log turned off). */
  log(draft: ActivityDraft, undoOf: EntryRef | null): number | null {
    if (!this.options.activityLog) return null;
    this.entries.push({ draft, undoOf, undoneBy: null });
    return this.entries.length - 1;
  }

  /**
   * The batch's entries with their hashes, each group's chained from its head in the order they
   * happened (log-chain.ts); the groups' heads move to their last.
   */
  private chainedEntries(): ChainedEntryWrite[] {
    const written = this.entries.map((write) => {
      const { groupId } = write.draft;
      const group = this.groups.get(groupId);
      const previous = group?.logHead ?? CHAIN_START;
      const hash = draftChainHash(previous, write.draft, write.draft.at ?? this.options.now);
      if (group) {
        group.logHead = hash;
        group.changed = true;
      }
      return { ...write, hash };
    });
    return written;
  }

  /** Everything the batch changed, as final rows (a counter changed ten times is written once). */
  writes(): BatchWrites {
    const counters: CounterWrite[] = [];
    const deletedCounters: string[] = [];
    for (const state of this.counters.values()) {
      if (!state.changed) continue;
      if (state.exists) {
        counters.push({
          groupId: state.groupId,
          createdSeq: state.createdSeq,
          position: state.position,
          nextResetAt: state.nextResetAt,
          closedTotal: state.closedTotal,
          counter: state.counter,
          existed: state.existed,
          onlyValue: state.onlyValue,
        });
      } else if (state.existed) {
        deletedCounters.push(state.counter.id);
      }
    }
    const entries = this.options.activityLog ? this.chainedEntries() : [];
    const groups = [...this.groups.values()]
      .filter((group) => group.changed)
      .map(({ record, seq, alerts, alertsChanged, logHead }) => ({
        record,
        seq,
        alerts,
        alertsChanged,
        logHead,
      }));
    return {
      counters,
      deletedCounters,
      groups,
      entries,
      undone: this.options.activityLog ? this.undone : [],
      operationIds: this.operationIds,
      sessions: [...this.movedSessions].map(([key, { groupId, session }]) => {
        const window = this.sessions.get(key) as SessionWindow;
        return { groupId, session, high: window.high, seen: seenText(window.seen) };
      }),
      periods: this.periods,
      periodCorrections: this.periodCorrections,
      alerts: this.alerts,
      ...(this.publishedImports.length > 0 ? { publishedImports: this.publishedImports } : {}),
    };
  }
}
