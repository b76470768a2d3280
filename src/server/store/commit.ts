/**
 * The batch commit, written once for both SQL stores (DESIGN.md "One write algorithm, two SQL
 * dialects"; docs/decisions/0014-one-commit-algorithm.md).
 *
 * It is sans-IO: a generator that yields what it needs to read (`ReadRequest`), is resumed with
 * what was read (`ReadAnswer`), applies the whole batch to those rows in memory and returns each
 * operation's outcome together with everything the batch writes (`BatchWrites`). SQLite drives it
 * synchronously inside its write transaction (`runSync`), PostgreSQL with `await` inside its
 * transaction (`runAsync`) after locking the batch's groups; each store only turns requests into
 * reads and the write set into statements. The reads come in at most three rounds and the writes
 * are a fixed set of tables whatever the batch holds, so a PostgreSQL batch costs the same
 * handful of round trips for one tap or ten thousand.
 *
 * Applying in memory is exact because nothing else can change these rows meanwhile: SQLite's
 * write transaction is exclusive, and on PostgreSQL every write to a group's counters, entries
 * and operation ids happens in a batch holding that group's row lock (taken first, in id order).
 */
import { randomUUID } from 'node:crypto';
import type { ActivityEntry } from '../../shared/activity.js';
import type { Counter, CounterPatch, GroupPatch } from '../../shared/api.js';
import { DEFAULT_STEP, MAX_VALUE, MIN_VALUE } from '../../shared/limits.js';
import { MESSAGES } from '../../shared/messages.js';
import {
  adjustDrafts,
  counterDraft,
  draftColumns,
  toActivityEntry,
  updateDraft,
  type ActivityDraft,
} from './activity.js';
import {
  adjustOutcomes,
  duplicateOutcome,
  fingerprintsOf,
  operationIdReused,
  planBatch,
  reuseOf,
  type Step,
  type StoredAnswer,
} from './batch.js';
import {
  accessChanged,
  activityNotFound,
  alreadyUndone,
  counterNotFound,
  counterOutcome,
  created,
  adjusted,
  definedEntries,
  deletedOutcome,
  failed,
  groupNotFound,
  groupUpdated,
  tagWithOperationId,
  valueOutOfRange,
  type Applied,
} from './outcomes.js';
import { tooManyCounters } from './quotas.js';
import { changesByGroup, type Operation, type OperationOutcome } from './types.js';
import { inverseOf } from './undo.js';
import { COUNTER_FIELDS } from '../../shared/fields.js';
import type {
  BatchWrites,
  Commit,
  CommitOptions,
  CounterWrite,
  EntryRef,
  EntryWrite,
  OperationIdWrite,
  OperationKey,
  ReadAnswer,
  ReadRequest,
  StoredCounter,
  StoredGroup,
  StoredOperationId,
} from './commit-io.js';

// ---- The algorithm -------------------------------------------------------------------------------

const keyOf = (groupId: string, opId: string) => `${groupId}\u0000${opId}`;

/** The counter ids a mutation names (known before anything is read). */
function counterIdOf(operation: Operation): string | undefined {
  const { mutation } = operation;
  return 'counterId' in mutation ? mutation.counterId : undefined;
}

/** The counter an undo's inverse touches. */
function inverseCounterId(entry: ActivityEntry): string | undefined {
  return entry.counterId ?? undefined;
}

/** `value + delta` if it stays in the exact range, else undefined. */
function movedValue(value: number, delta: bigint): number | undefined {
  const next = BigInt(value) + delta;
  return next < BigInt(MIN_VALUE) || next > BigInt(MAX_VALUE) ? undefined : Number(next);
}

interface CounterState extends StoredCounter {
  existed: boolean;
  exists: boolean;
  changed: boolean;
  /** Whether only the value (and version) differ from the row read: the write of a tap. */
  onlyValue: boolean;
}

interface GroupState extends StoredGroup {
  changed: boolean;
}

/** An applied mutation; an undo also names the entry it took back. */
type Applying = Applied & { undoes?: EntryRef };

interface KnownEntry {
  groupId: string;
  entry: ActivityEntry;
  ref: EntryRef;
}

/** Applies one batch: see the module comment. */
export function* commitBatch(operations: readonly Operation[], options: CommitOptions): Commit {
  const newCounterId = options.newCounterId ?? randomUUID;
  const fingerprints = fingerprintsOf(operations);

  // Round 1: everything named by the operations themselves.
  const groupIds = [...new Set(operations.map((operation) => operation.groupId))].sort();
  const opKeys = new Map<string, OperationKey>();
  const entryIds = new Set<number>();
  const counterIds = new Set<string>();
  const countGroups = new Set<string>();
  for (const operation of operations) {
    const { groupId, opId, mutation } = operation;
    if (opId !== undefined) opKeys.set(keyOf(groupId, opId), { groupId, opId });
    const counterId = counterIdOf(operation);
    if (counterId !== undefined) counterIds.add(counterId);
    switch (mutation.kind) {
      case 'undoOperation':
        opKeys.set(keyOf(groupId, mutation.opId), { groupId, opId: mutation.opId });
        countGroups.add(groupId);
        break;
      case 'undoEntry':
        entryIds.add(mutation.entryId);
        countGroups.add(groupId);
        break;
      case 'createCounter':
        countGroups.add(groupId);
        break;
      default:
        break;
    }
  }
  // Counted past the quota by as many operations as the batch holds (each deletes at most one
  // counter): a group over a lowered quota that deletes one counter is still full.
  const countCap = options.countersPerGroup + operations.length;
  const first: ReadAnswer = yield {
    groups: groupIds,
    operationIds: [...opKeys.values()],
    entries: [...entryIds],
    counters: [...counterIds],
    countGroups: [...countGroups],
    countCap,
  };

  const groups = new Map<string, GroupState>(
    first.groups.map((group) => [group.record.id, { ...group, changed: false }]),
  );
  const counters = new Map<string, CounterState>();
  const remember = (rows: readonly StoredCounter[]) => {
    for (const row of rows) {
      if (!counters.has(row.counter.id)) {
        counters.set(row.counter.id, {
          ...row,
          existed: true,
          exists: true,
          changed: false,
          onlyValue: true,
        });
      }
    }
  };
  remember(first.counters);
  const storedIds = new Map(first.operationIds.map((row) => [keyOf(row.groupId, row.opId), row]));
  const known = new Map<number, KnownEntry>();
  const rememberEntries = (rows: ReadAnswer['entries']) => {
    for (const { groupId, entry } of rows) {
      known.set(entry.id, { groupId, entry, ref: { id: entry.id } });
    }
  };
  rememberEntries(first.entries);
  const counts = new Map(first.counts);

  // Round 2 (rare): entries found through operation ids, counters that replays and undos name.
  const moreEntries = new Set<number>();
  for (const { mutation, groupId } of operations) {
    if (mutation.kind !== 'undoOperation') continue;
    const activityId = storedIds.get(keyOf(groupId, mutation.opId))?.activityId;
    if (activityId != null && !known.has(activityId)) moreEntries.add(activityId);
  }
  const moreCounters = new Set<string>();
  const wantCounter = (id: string | undefined) => {
    if (id !== undefined && !counters.has(id)) moreCounters.add(id);
  };
  for (const row of storedIds.values()) {
    if (row.result.kind === 'counterRef') wantCounter(row.result.counterId);
  }
  for (const { entry } of known.values()) wantCounter(inverseCounterId(entry));
  if (moreEntries.size > 0 || moreCounters.size > 0) {
    const second: ReadAnswer = yield {
      ...emptyRequest(),
      entries: [...moreEntries],
      counters: [...moreCounters],
    };
    rememberEntries(second.entries);
    remember(second.counters);
    // Round 3 (rarer): the counters of entries found only in round 2.
    const last = new Set<string>();
    for (const { entry } of second.entries) {
      const id = inverseCounterId(entry);
      if (id !== undefined && !counters.has(id)) last.add(id);
    }
    if (last.size > 0) {
      const third: ReadAnswer = yield { ...emptyRequest(), counters: [...last] };
      remember(third.counters);
    }
  }

  const batch = new BatchState(
    operations,
    options,
    newCounterId,
    groups,
    counters,
    counts,
    known,
    storedIds,
    firstFingerprints(operations, fingerprints),
  );
  const outcomes = new Array<OperationOutcome | undefined>(operations.length);
  operations.forEach((operation, index) => {
    outcomes[index] = batch.replay(operation, fingerprints[index]);
  });
  const replayed = new Set(outcomes.flatMap((outcome, index) => (outcome ? [index] : [])));
  const plan = planBatch(operations, replayed, fingerprints);
  for (const step of plan.steps) {
    if (step.kind === 'single') {
      outcomes[step.index] = batch.applyOne(step.index);
    } else {
      for (const [index, outcome] of batch.applyAdjust(step)) {
        outcomes[index] = outcome;
      }
    }
  }
  for (const [index, firstUse] of plan.duplicates) {
    outcomes[index] = duplicateOutcome(outcomes[firstUse]);
  }
  for (const index of plan.reused) outcomes[index] = operationIdReused();
  const final = outcomes.map((outcome) => outcome ?? groupNotFound());
  return { outcomes: final, writes: batch.writes(), changes: changesByGroup(operations, final) };
}

function firstFingerprints(
  operations: readonly Operation[],
  fingerprints: readonly (string | undefined)[],
): Map<string, string> {
  const first = new Map<string, string>();
  operations.forEach(({ groupId, opId }, index) => {
    const fingerprint = fingerprints[index];
    if (opId === undefined || fingerprint === undefined) return;
    const key = keyOf(groupId, opId);
    if (!first.has(key)) first.set(key, fingerprint);
  });
  return first;
}

const emptyRequest = (): ReadRequest => ({
  groups: [],
  operationIds: [],
  entries: [],
  counters: [],
  countGroups: [],
  countCap: 0,
});

/** The batch applied so far, in memory. */
class BatchState {
  private readonly entries: EntryWrite[] = [];
  private readonly undone: { entryId: number; by: number }[] = [];
  private readonly operationIds: OperationIdWrite[] = [];
  /** Operation ids applied by this batch → the entry they made (for an undo in the batch). */
  private readonly appliedIds = new Map<string, number | null>();
  /** Existing entries taken back by this batch. */
  private readonly undoneIds = new Set<number>();

  constructor(
    private readonly operations: readonly Operation[],
    private readonly options: CommitOptions,
    private readonly newCounterId: () => string,
    private readonly groups: Map<string, GroupState>,
    private readonly counters: Map<string, CounterState>,
    private readonly counts: Map<string, number>,
    private readonly known: Map<number, KnownEntry>,
    private readonly storedIds: Map<string, StoredOperationId>,
    /** Each operation id's fingerprint at its first use in the batch. */
    private readonly fingerprints: Map<string, string>,
  ) {}

  /** The answer again, if this group already applied this operation id in an earlier batch. */
  replay(operation: Operation, fingerprint: string | undefined): OperationOutcome | undefined {
    if (operation.opId === undefined) return undefined;
    const stored = this.storedIds.get(keyOf(operation.groupId, operation.opId));
    if (!stored) return undefined;
    const reused = reuseOf(stored.fingerprint, fingerprint);
    if (reused) return reused;
    const answer = stored.result;
    if (answer.kind !== 'counterRef') {
      return { ok: true, result: answer, changes: [], replayed: true };
    }
    // A coalesced tap is answered with the counter as it is now (it includes the tap).
    const counter = this.counterOf(operation.groupId, answer.counterId);
    if (!counter) return counterNotFound();
    const result = { kind: 'counter', counter: counter.counter, created: false } as const;
    return { ok: true, result, changes: [], replayed: true };
  }

  applyOne(index: number): OperationOutcome {
    const operation = this.operations[index] as Operation;
    const { groupId, opId } = operation;
    const group = this.groups.get(groupId);
    if (!group) return groupNotFound();
    const seq = group.seq + 1;
    const applied = this.applyMutation(operation, seq);
    const outcome = tagWithOperationId(applied.outcome, opId);
    if (!outcome.ok) return outcome;
    this.bump(group, seq);
    const drafts = applied.drafts.map((draft) => this.log(draft, applied.undoes ?? null));
    const entry = drafts[0] ?? null;
    if (applied.undoes !== undefined && entry !== null) this.markUndone(applied.undoes, entry);
    this.rememberId(groupId, opId, JSON.stringify(outcome.result), entry);
    return outcome;
  }

  /** A coalesced run of taps on one counter: one change number, one change. */
  applyAdjust(step: Extract<Step, { kind: 'adjust' }>): Map<number, OperationOutcome> {
    const { groupId, counterId } = step;
    const group = this.groups.get(groupId);
    if (!group) return new Map(step.indices.map((index) => [index, groupNotFound()]));
    const state = this.counterOf(groupId, counterId);
    if (!state) return new Map(step.indices.map((index) => [index, counterNotFound()]));
    const { counter } = state;
    const delta =
      BigInt(step.increments) * BigInt(counter.incrementStep) -
      BigInt(step.decrements) * BigInt(counter.decrementStep);
    const value = movedValue(counter.value, delta);
    if (value === undefined) {
      // Together the taps would leave the exact range: apply them one by one, so each is
      // refused or applied on its own.
      return new Map(step.indices.map((index) => [index, this.applyOne(index)]));
    }
    const seq = group.seq + 1;
    this.bump(group, seq);
    const after = this.setCounter(state, { ...counter, value, version: seq });
    const reference = JSON.stringify({ kind: 'counterRef', counterId } satisfies StoredAnswer);
    for (const draft of adjustDrafts(step, this.operations, after, seq)) {
      const entry = this.log(draft, null);
      for (const opId of draft.opIds) {
        this.rememberId(groupId, opId, reference, entry);
      }
    }
    return adjustOutcomes(step, this.operations, after, seq);
  }

  writes(): BatchWrites {
    const counters: CounterWrite[] = [];
    const deletedCounters: string[] = [];
    for (const state of this.counters.values()) {
      if (!state.changed) continue;
      if (state.exists) {
        counters.push({
          groupId: state.groupId,
          createdSeq: state.createdSeq,
          counter: state.counter,
          existed: state.existed,
          onlyValue: state.onlyValue,
        });
      } else if (state.existed) {
        deletedCounters.push(state.counter.id);
      }
    }
    const groups = [...this.groups.values()]
      .filter((group) => group.changed)
      .map(({ record, seq }) => ({ record, seq }));
    return {
      counters,
      deletedCounters,
      groups,
      entries: this.options.activityLog ? this.entries : [],
      undone: this.options.activityLog ? this.undone : [],
      operationIds: this.operationIds,
    };
  }

  // ---- applying --------------------------------------------------------------------------------

  private applyMutation(operation: Operation, seq: number): Applying {
    const { groupId, mutation } = operation;
    switch (mutation.kind) {
      case 'createCounter': {
        if (this.isFull(groupId)) return failed(tooManyCounters(this.options.countersPerGroup));
        const { fields } = mutation;
        const counter = this.insertCounter(groupId, seq, {
          id: this.newCounterId(),
          name: fields.name ?? MESSAGES.newCounterName,
          description: fields.description ?? '',
          value: fields.value ?? 0,
          incrementStep: fields.incrementStep ?? DEFAULT_STEP,
          decrementStep: fields.decrementStep ?? DEFAULT_STEP,
          thumbnailUrl: fields.thumbnailUrl ?? null,
          createdAt: new Date(this.options.now).toISOString(),
          version: seq,
        });
        return created(operation, counter, seq);
      }
      case 'updateCounter':
        return this.patchCounter(
          operation,
          mutation.counterId,
          mutation.patch,
          0n,
          seq,
          'counter.updated',
        );
      case 'adjustCounter': {
        const state = this.counterOf(groupId, mutation.counterId);
        if (!state) return failed(counterNotFound());
        // The delta comes from the stored step: a tap is "one step", never a value the client
        // computed. The range check keeps values exact in every client.
        const { counter } = state;
        const step =
          mutation.direction === 'increment' ? counter.incrementStep : -counter.decrementStep;
        const value = movedValue(counter.value, BigInt(mutation.times) * BigInt(step));
        if (value === undefined) return failed(valueOutOfRange());
        return adjusted(
          operation,
          this.setCounter(state, { ...counter, value, version: seq }),
          seq,
        );
      }
      case 'deleteCounter':
        return this.deleteCounter(operation, mutation.counterId, seq);
      case 'updateGroup':
        return this.patchGroup(operation, mutation.patch, seq);
      case 'undoEntry': {
        const known = this.known.get(mutation.entryId);
        return known?.groupId === groupId
          ? this.undo(operation, known, seq)
          : failed(activityNotFound());
      }
      case 'undoOperation': {
        const key = keyOf(groupId, mutation.opId);
        if (this.appliedIds.has(key)) {
          const draft = this.appliedIds.get(key) ?? null;
          const local = draft === null ? undefined : this.localEntry(draft);
          return local ? this.undo(operation, local, seq) : failed(activityNotFound());
        }
        const activityId = this.storedIds.get(key)?.activityId;
        const known = activityId == null ? undefined : this.known.get(activityId);
        return known?.groupId === groupId
          ? this.undo(operation, known, seq)
          : failed(activityNotFound());
      }
      case 'rotateKey':
      case 'setViewKey': {
        const group = this.groups.get(groupId);
        if (!group) return failed(groupNotFound());
        const { record } = group;
        group.record =
          mutation.kind === 'rotateKey'
            ? {
                ...record,
                keyHash: mutation.keyHash,
                viewKeyHash: record.viewKeyHash === null ? null : mutation.viewKeyHash,
              }
            : { ...record, viewKeyHash: mutation.viewKeyHash };
        group.changed = true;
        return accessChanged(group.record, seq);
      }
    }
  }

  /** Sets fields and adds `valueDelta` to the value (edits and their undo). */
  private patchCounter(
    operation: Operation,
    counterId: string,
    patch: CounterPatch | Omit<CounterPatch, 'value'>,
    valueDelta: bigint,
    seq: number,
    entryKind: 'counter.updated' | 'counter.adjusted',
  ): Applied {
    const state = this.counterOf(operation.groupId, counterId);
    if (!state) return failed(counterNotFound());
    const before = state.counter;
    const fields = Object.fromEntries(definedEntries(patch)) as CounterPatch;
    // A typed value is set as is; otherwise the value moves by the delta (undo).
    const value = fields.value ?? movedValue(before.value, valueDelta);
    if (value === undefined) return failed(valueOutOfRange());
    const after = this.setCounter(state, { ...before, ...fields, value, version: seq });
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
    const state = this.counterOf(operation.groupId, counterId);
    if (!state) return failed(counterNotFound());
    state.exists = false;
    state.changed = true;
    this.counts.set(state.groupId, (this.counts.get(state.groupId) ?? 1) - 1);
    return {
      outcome: deletedOutcome(counterId, seq),
      drafts: [counterDraft(operation, 'counter.deleted', state.counter, seq)],
    };
  }

  private patchGroup(operation: Operation, patch: GroupPatch, seq: number): Applied {
    const group = this.groups.get(operation.groupId);
    if (!group) return failed(groupNotFound());
    const before = group.record;
    group.record = { ...before, ...(Object.fromEntries(definedEntries(patch)) as GroupPatch) };
    group.changed = true;
    return groupUpdated(operation, before, group.record, seq);
  }

  /** Takes back one entry of this group by applying its inverse (store/undo.ts). */
  private undo(operation: Operation, target: KnownEntry, seq: number): Applying {
    const { entry, ref } = target;
    if (this.isUndone(ref, entry)) return failed(alreadyUndone());
    const inverse = inverseOf(entry);
    let applied: Applied;
    switch (inverse.kind) {
      case 'counter':
        applied = this.patchCounter(
          operation,
          inverse.counterId,
          inverse.patch,
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
        if (this.isFull(operation.groupId)) {
          applied = failed(tooManyCounters(this.options.countersPerGroup));
          break;
        }
        // The counter is back unless a counter with its id exists (it was restored already).
        if (this.counters.get(counter.id)?.exists === true) {
          applied = failed(alreadyUndone());
          break;
        }
        const restored = this.insertCounter(operation.groupId, seq, { ...counter, version: seq });
        applied = created(operation, restored, seq);
        break;
      }
      case 'group':
        applied = this.patchGroup(operation, inverse.patch, seq);
        break;
    }
    return applied.outcome.ok ? { ...applied, undoes: ref } : applied;
  }

  // ---- state -----------------------------------------------------------------------------------

  /** The group's counter with this id, while it exists. */
  private counterOf(groupId: string, counterId: string): CounterState | undefined {
    const state = this.counters.get(counterId);
    return state?.exists === true && state.groupId === groupId ? state : undefined;
  }

  private setCounter(state: CounterState, counter: Counter): Counter {
    const before = state.counter;
    if (
      state.onlyValue &&
      COUNTER_FIELDS.some((field) => field !== 'value' && before[field] !== counter[field])
    ) {
      state.onlyValue = false;
    }
    state.counter = counter;
    state.changed = true;
    return counter;
  }

  private insertCounter(groupId: string, seq: number, counter: Counter): Counter {
    const previous = this.counters.get(counter.id);
    this.counters.set(counter.id, {
      groupId,
      createdSeq: seq,
      counter,
      existed: previous?.existed ?? false,
      exists: true,
      changed: true,
      onlyValue: false,
    });
    this.counts.set(groupId, (this.counts.get(groupId) ?? 0) + 1);
    return counter;
  }

  /** Whether the group holds its quota of counters (counted when the batch began, then kept). */
  private isFull(groupId: string): boolean {
    return (this.counts.get(groupId) ?? 0) >= this.options.countersPerGroup;
  }

  private bump(group: GroupState, seq: number): void {
    group.seq = seq;
    group.changed = true;
  }

  // ---- the activity log and operation ids ------------------------------------------------------

  /** Adds a new entry; returns its index in the batch (null with the log turned off). */
  private log(draft: ActivityDraft, undoOf: EntryRef | null): number | null {
    if (!this.options.activityLog) return null;
    this.entries.push({ draft, undoOf, undoneBy: null });
    return this.entries.length - 1;
  }

  /** Records that an entry was taken back by the batch's new entry `by`. */
  private markUndone(target: EntryRef, by: number): void {
    if ('id' in target) {
      this.undoneIds.add(target.id);
      this.undone.push({ entryId: target.id, by });
    } else {
      const write = this.entries[target.draft];
      if (write) write.undoneBy = by;
    }
  }

  private isUndone(ref: EntryRef, entry: ActivityEntry): boolean {
    if ('draft' in ref) return this.entries[ref.draft]?.undoneBy != null;
    return entry.undoneBy !== null || this.undoneIds.has(ref.id);
  }

  /** A new entry of this batch as the API would show it (an undo in the same batch reads it). */
  private localEntry(index: number): KnownEntry | undefined {
    const write = this.entries[index];
    if (!write) return undefined;
    const { draft } = write;
    const entry = toActivityEntry({
      id: -1,
      at: this.options.now,
      ...draftColumns(draft),
      undo_of: null,
      undone_by: null,
    });
    return { groupId: draft.groupId, entry, ref: { draft: index } };
  }

  private rememberId(
    groupId: string,
    opId: string | undefined,
    result: string,
    entry: number | null,
  ): void {
    if (opId === undefined) return;
    const key = keyOf(groupId, opId);
    this.appliedIds.set(key, entry);
    const fingerprint = this.fingerprints.get(key) ?? null;
    this.operationIds.push({ groupId, opId, result, entry, fingerprint });
  }
}
