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
  deltaDraft,
  draftColumns,
  groupEntry,
  resetDraft,
  toActivityEntry,
  updateDraft,
  type ActivityDraft,
} from './activity.js';
import { UNKNOWN_MEMBER } from '../../shared/activity.js';
import type { Change } from '../../shared/protocol.js';
import { SECTION_LIMITS_MAX } from '../../shared/limits.js';
import { allTimeOf } from './columns.js';
import { periodAt } from './periods.js';
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
  cannotUndo,
  counterNotFound,
  operationExpired,
  counterOutcome,
  created,
  definedEntries,
  invalidChange,
  invalidOrder,
  limitReached,
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
import { numberState, seenFromText, seenText, withNumber, type SessionWindow } from './sessions.js';
import { parseNumberedId, type NumberedOperationId } from '../../shared/operation-ids.js';
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
  PeriodWrite,
  ReadRequest,
  SectionKey,
  SessionKey,
  StoredCounter,
  StoredGroup,
  StoredOperationId,
} from './commit-io.js';

// ---- The algorithm -------------------------------------------------------------------------------

const keyOf = (groupId: string, opId: string) => `${groupId}\u0000${opId}`;

/**
 * The session and number of a numbered tap (ADR 24): remembered in its session's window, not in
 * an operation-id row of its own. Every other change keeps its own row, whatever its id's form.
 */
function numberedTap(operation: Operation): NumberedOperationId | undefined {
  const { opId, mutation } = operation;
  return opId !== undefined && mutation.kind === 'adjustCounter'
    ? parseNumberedId(opId)
    : undefined;
}

/** The counter ids a mutation names (known before anything is read). */
function counterIdsOf(operation: Operation): readonly string[] {
  const { mutation } = operation;
  if ('counterId' in mutation) return [mutation.counterId];
  return mutation.kind === 'resetPeriods' ? mutation.counterIds : [];
}

/** Whether a group patch moves the group's midnights (every counter that resets is read). */
const movesMidnights = (patch: object): boolean => 'timeZone' in patch || 'weekStart' in patch;

/** Whether applying the inverse of this entry needs every counter of its group. */
function undoNeedsGroup(entry: ActivityEntry): boolean {
  if (entry.kind === 'counters.reordered') return true;
  return (
    entry.kind === 'group.updated' &&
    entry.changes.some((change) => change.field === 'timeZone' || change.field === 'weekStart')
  );
}

/** The sections an entry's inverse may put counters in or change the maximum of. */
function undoSections(entry: ActivityEntry): string[] {
  switch (entry.kind) {
    case 'counter.deleted':
      return entry.counter.section === null ? [] : [entry.counter.section];
    case 'counter.updated':
    case 'group.updated':
      return entry.changes.flatMap((change) => {
        if (change.field === 'sectionMax' && change.section !== undefined) return [change.section];
        return change.field === 'section' && typeof change.from === 'string' ? [change.from] : [];
      });
    default:
      return [];
  }
}

/** The counter an undo's inverse touches. */
function inverseCounterId(entry: ActivityEntry): string | undefined {
  return entry.counterId ?? undefined;
}

/**
 * Whether a change from `from` to `to` reaches the counter's goal. A goal at or above the start
 * value is counted up to (from below it to at or above it); one below is counted down to. Once
 * there, later changes on the same side reach nothing; moving away and back is a new crossing.
 */
function reaches(counter: Counter, from: bigint, to: bigint): boolean {
  if (counter.goal === null) return false;
  const target = BigInt(counter.goal);
  return counter.goal >= counter.startValue
    ? from < target && to >= target
    : from > target && to <= target;
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
  const sessionKeys = new Map<string, SessionKey>();
  const wantSession = (groupId: string, session: string) =>
    sessionKeys.set(keyOf(groupId, session), { groupId, session });
  const entryIds = new Set<number>();
  const counterIds = new Set<string>();
  const countGroups = new Set<string>();
  const groupCounters = new Set<string>();
  for (const operation of operations) {
    const { groupId, opId, mutation } = operation;
    const numbered = numberedTap(operation);
    if (numbered) wantSession(groupId, numbered.session);
    else if (opId !== undefined) opKeys.set(keyOf(groupId, opId), { groupId, opId });
    for (const counterId of counterIdsOf(operation)) counterIds.add(counterId);
    switch (mutation.kind) {
      case 'reorderCounters':
        groupCounters.add(groupId);
        break;
      case 'updateGroup':
        if (movesMidnights(mutation.patch)) groupCounters.add(groupId);
        break;
      case 'undoOperation': {
        opKeys.set(keyOf(groupId, mutation.opId), { groupId, opId: mutation.opId });
        // Without a row of its own, a numbered id is told apart (a tap or never applied) here.
        const target = parseNumberedId(mutation.opId);
        if (target) wantSession(groupId, target.session);
        countGroups.add(groupId);
        break;
      }
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
    sessions: [...sessionKeys.values()],
    entries: [...entryIds],
    counters: [...counterIds],
    countGroups: [...countGroups],
    countCap,
    groupCounters: [...groupCounters],
    sections: [],
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
  const sessions = new Map(
    first.sessions.map(({ groupId, session, high, seen }) => [
      keyOf(groupId, session),
      { high, seen: seenFromText(seen) } satisfies SessionWindow,
    ]),
  );
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

  // Last round (only for undos of a reorder or a time zone, and sections with a maximum): every
  // counter of those groups, and every counter of the sections whose totals the batch checks.
  const wholeGroups = new Set<string>();
  for (const { groupId, entry } of known.values()) {
    if (undoNeedsGroup(entry) && !groupCounters.has(groupId)) wholeGroups.add(groupId);
  }
  const sections = sectionsToRead(operations, groups, counters, known);
  if (wholeGroups.size > 0 || sections.length > 0) {
    const context: ReadAnswer = yield {
      ...emptyRequest(),
      groupCounters: [...wholeGroups],
      sections,
    };
    remember(context.counters);
    for (const groupId of wholeGroups) groupCounters.add(groupId);
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
    sessions,
    firstFingerprints(operations, fingerprints),
    groupCounters,
  );
  // Periods that ended before this batch end first: its changes count in the new period.
  batch.endDuePeriods();
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
  const final = batch.withPeriodChanges(outcomes.map((outcome) => outcome ?? groupNotFound()));
  return { outcomes: final, writes: batch.writes(), changes: changesByGroup(operations, final) };
}

/**
 * The sections whose every counter the batch must hold to check a section maximum: those of
 * groups with section limits that the batch's counters, new fields and undos touch, and every
 * section whose maximum it sets.
 */
function sectionsToRead(
  operations: readonly Operation[],
  groups: ReadonlyMap<string, GroupState>,
  counters: ReadonlyMap<string, CounterState>,
  known: ReadonlyMap<number, KnownEntry>,
): SectionKey[] {
  const keys = new Map<string, SectionKey>();
  const want = (groupId: string, section: string | null | undefined, always = false) => {
    if (section === null || section === undefined) return;
    const limits = groups.get(groupId)?.record.sectionLimits;
    if (!limits || (!always && limits[section] === undefined)) return;
    keys.set(`${groupId}\u0000${section}`, { groupId, section });
  };
  for (const state of counters.values()) want(state.groupId, state.counter.section);
  for (const { groupId, mutation } of operations) {
    if (mutation.kind === 'createCounter') want(groupId, mutation.fields.section);
    if (mutation.kind === 'updateCounter') want(groupId, mutation.patch.section);
    if (mutation.kind === 'updateSection') want(groupId, mutation.section, true);
  }
  for (const { groupId, entry } of known.values()) {
    for (const section of undoSections(entry)) want(groupId, section, true);
  }
  return [...keys.values()];
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
  sessions: [],
  entries: [],
  counters: [],
  countGroups: [],
  countCap: 0,
  groupCounters: [],
  sections: [],
});

/** The batch applied so far, in memory. */
class BatchState {
  private readonly entries: EntryWrite[] = [];
  private readonly undone: { entryId: number; by: number }[] = [];
  private readonly operationIds: OperationIdWrite[] = [];
  /** Sessions whose window this batch moved. */
  private readonly movedSessions = new Map<string, SessionKey>();
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
    /** The windows of the sessions of the batch's numbered taps, by group and session. */
    private readonly sessions: Map<string, SessionWindow>,
    /** Each operation id's fingerprint at its first use in the batch. */
    private readonly fingerprints: Map<string, string>,
    /** Groups all of whose counters were read (a reorder, new midnights). */
    private readonly wholeGroups: ReadonlySet<string>,
  ) {}

  private readonly periods: PeriodWrite[] = [];
  /** Changes of periods this batch ended, by group: announced with the group's first outcome. */
  private readonly periodChanges = new Map<string, Change[]>();

  /** Ends every period that is over of the counters read, in groups this batch holds. */
  endDuePeriods(): void {
    for (const state of this.counters.values()) {
      const group = this.groups.get(state.groupId);
      if (group && state.nextResetAt !== null && this.options.now >= state.nextResetAt) {
        this.endPeriod(state, group);
      }
    }
  }

  /** The outcomes, the first of each group carrying the changes of the periods it ended. */
  withPeriodChanges(outcomes: OperationOutcome[]): OperationOutcome[] {
    if (this.periodChanges.size === 0) return outcomes;
    const pending = new Map(this.periodChanges);
    return outcomes.map((outcome, index) => {
      const groupId = this.operations[index]?.groupId;
      const changes = groupId === undefined ? undefined : pending.get(groupId);
      if (groupId === undefined || changes === undefined) return outcome;
      pending.delete(groupId);
      return { ...outcome, changes: [...changes, ...(outcome.changes ?? [])] };
    });
  }

  /** The counter starts over: its period's final value is kept, the value returns to its start. */
  private endPeriod(state: CounterState, group: GroupState): void {
    const { counter } = state;
    const ended = state.nextResetAt;
    if (counter.reset === null || ended === null) {
      state.nextResetAt = null;
      return;
    }
    const started = counter.periodStart === null ? ended : Date.parse(counter.periodStart);
    const next = periodAt(this.options.now, counter.reset, group.record);
    const seq = group.seq + 1;
    this.bump(group, seq);
    this.periods.push({
      groupId: state.groupId,
      counterId: counter.id,
      start: started,
      end: ended,
      value: counter.value,
    });
    state.closedTotal = allTimeOf(state.closedTotal, counter.value);
    state.nextResetAt = next.end;
    state.onlyValue = false;
    const after = this.setCounter(state, {
      ...counter,
      value: counter.startValue,
      periodStart: new Date(next.start).toISOString(),
      version: seq,
    });
    this.log(
      resetDraft(state.groupId, after, seq, {
        final: counter.value,
        periodStart: started,
        periodEnd: ended,
      }),
      null,
    );
    const list = this.periodChanges.get(state.groupId) ?? [];
    list.push({ type: 'counter.updated', seq, counter: after });
    this.periodChanges.set(state.groupId, list);
  }

  /** The answer again, if this group already applied this operation id in an earlier batch. */
  replay(operation: Operation, fingerprint: string | undefined): OperationOutcome | undefined {
    if (operation.opId === undefined) return undefined;
    const numbered = numberedTap(operation);
    if (numbered) return this.replayNumbered(operation, numbered);
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

  /**
   * A numbered tap its session already applied is answered with the counter as it is now (it
   * includes the tap), like a coalesced tap; one too far behind is refused, never applied twice.
   */
  private replayNumbered(
    operation: Operation,
    { session, n }: NumberedOperationId,
  ): OperationOutcome | undefined {
    const { groupId, mutation } = operation;
    const state = numberState(this.sessions.get(keyOf(groupId, session)), n);
    if (state === 'new') return undefined;
    if (state === 'expired') return operationExpired();
    if (mutation.kind !== 'adjustCounter') return undefined;
    const counter = this.counterOf(groupId, mutation.counterId);
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

  /**
   * A coalesced run of taps on one counter: one change number, one change. Each tap is checked
   * in order against the range, the counter's limits and its section's maximum; one that would
   * pass a limit is refused whole and the others still count (the value stops exactly there).
   */
  applyAdjust(step: Extract<Step, { kind: 'adjust' }>): Map<number, OperationOutcome> {
    const { groupId, counterId } = step;
    const group = this.groups.get(groupId);
    if (!group) return new Map(step.indices.map((index) => [index, groupNotFound()]));
    const state = this.counterOf(groupId, counterId);
    if (!state) return new Map(step.indices.map((index) => [index, counterNotFound()]));
    const { counter } = state;
    const outcomes = new Map<number, OperationOutcome>();
    const accepted: number[] = [];
    const sectionBase = this.sectionBase(state);
    let value = BigInt(counter.value);
    let reachedBy: string | undefined;
    for (const index of step.indices) {
      const operation = this.operations[index] as Operation;
      if (operation.mutation.kind !== 'adjustCounter') continue;
      const { direction, times } = operation.mutation;
      const step =
        direction === 'increment' ? BigInt(counter.incrementStep) : -BigInt(counter.decrementStep);
      const next = value + BigInt(times) * step;
      const refusal =
        this.valueRefusal(counter, value, next) ?? this.sectionRefusal(sectionBase, value, next);
      if (refusal) {
        outcomes.set(index, refusal);
        continue;
      }
      if (reachedBy === undefined && reaches(counter, value, next)) {
        reachedBy = operation.actor ?? UNKNOWN_MEMBER;
      }
      value = next;
      accepted.push(index);
    }
    if (accepted.length === 0) return outcomes;
    const seq = group.seq + 1;
    this.bump(group, seq);
    // Announced only when the run ends on the goal's far side (a crossing and back is none).
    if (!reaches(counter, BigInt(counter.value), value)) reachedBy = undefined;
    const after = this.setCounter(state, { ...counter, value: Number(value), version: seq });
    const reference = JSON.stringify({ kind: 'counterRef', counterId } satisfies StoredAnswer);
    for (const draft of adjustDrafts(accepted, this.operations, after, seq, reachedBy)) {
      const entry = this.log(draft, null);
      for (const opId of draft.opIds) {
        const numbered = parseNumberedId(opId);
        if (numbered) this.rememberNumber(groupId, numbered);
        else this.rememberId(groupId, opId, reference, entry);
      }
    }
    for (const [index, outcome] of adjustOutcomes(
      accepted,
      this.operations,
      after,
      seq,
      reachedBy,
    )) {
      outcomes.set(index, outcome);
    }
    return outcomes;
  }

  // ---- limits, goals and sections (issue 17) ---------------------------------------------------

  /** Why the value may not move from `from` to `to`: the exact range, the counter's limits. */
  private valueRefusal(counter: Counter, from: bigint, to: bigint): OperationOutcome | undefined {
    if (to < BigInt(MIN_VALUE) || to > BigInt(MAX_VALUE)) return valueOutOfRange();
    // A move back toward the limits is never refused (a value stored outside them moves in).
    if (counter.max !== null && to > BigInt(counter.max) && to > from) {
      return limitReached(MESSAGES.limitAbove(counter.max));
    }
    if (counter.min !== null && to < BigInt(counter.min) && to < from) {
      return limitReached(MESSAGES.limitBelow(counter.min));
    }
    return undefined;
  }

  /**
   * The section maximum a counter's changes are checked against, and the total of the section's
   * other counters; undefined when its section has no maximum.
   */
  private sectionBase(
    state: CounterState,
    section = state.counter.section,
  ): { section: string; max: number; others: bigint } | undefined {
    if (section === null) return undefined;
    const max = this.groups.get(state.groupId)?.record.sectionLimits[section];
    if (max === undefined) return undefined;
    return { section, max, others: this.sectionTotal(state.groupId, section, state.counter.id) };
  }

  /** A change of one counter's value that would take its section's total past the maximum. */
  private sectionRefusal(
    base: { section: string; max: number; others: bigint } | undefined,
    from: bigint,
    to: bigint,
    wasIn = true,
  ): OperationOutcome | undefined {
    if (!base) return undefined;
    const before = base.others + (wasIn ? from : 0n);
    const after = base.others + to;
    return after > BigInt(base.max) && after > before
      ? limitReached(MESSAGES.sectionFull(base.section, base.max))
      : undefined;
  }

  /** The section's total, of the counters the batch holds (all of them: sectionsToRead). */
  private sectionTotal(groupId: string, section: string, except?: string): bigint {
    let total = 0n;
    for (const state of this.counters.values()) {
      if (!state.exists || state.groupId !== groupId || state.counter.id === except) continue;
      if (state.counter.section === section) total += BigInt(state.counter.value);
    }
    return total;
  }

  /**
   * Why a counter may not become `after` (an edit, an undo, a new or restored counter): limits
   * out of order or excluding the value, a start value outside them, a full section.
   */
  private counterRefusal(
    state: CounterState | undefined,
    groupId: string,
    before: Counter | null,
    after: Counter,
  ): OperationOutcome | undefined {
    const { min, max } = after;
    if (min !== null && max !== null && min > max) return invalidChange(MESSAGES.minAboveMax);
    const from = BigInt(before?.value ?? after.value);
    const to = BigInt(after.value);
    if (before !== null && from !== to) {
      const refused = this.valueRefusal(after, from, to);
      if (refused) return refused;
    } else if ((min !== null && to < BigInt(min)) || (max !== null && to > BigInt(max))) {
      return invalidChange(MESSAGES.limitsExcludeValue);
    }
    if (
      after.reset !== null &&
      ((min !== null && after.startValue < min) || (max !== null && after.startValue > max))
    ) {
      return invalidChange(MESSAGES.startValueOutsideLimits);
    }
    if (after.section === null) return undefined;
    const limit = this.groups.get(groupId)?.record.sectionLimits[after.section];
    if (limit === undefined) return undefined;
    const others = this.sectionTotal(groupId, after.section, after.id);
    const wasIn = state !== undefined && before?.section === after.section;
    return this.sectionRefusal(
      { section: after.section, max: limit, others },
      wasIn ? from : 0n,
      to,
      wasIn,
    );
  }

  /**
   * A counter's period after an edit or creation: kept while its reset stays the same, else the
   * period holding now (or none), with when it ends.
   */
  private withPeriod(
    groupId: string,
    before: Counter | null,
    after: Counter,
    nextResetAt: number | null,
  ): { counter: Counter; nextResetAt: number | null } {
    if (before !== null && before.reset === after.reset) return { counter: after, nextResetAt };
    const group = this.groups.get(groupId);
    if (after.reset === null || !group) {
      return { counter: { ...after, periodStart: null }, nextResetAt: null };
    }
    const bounds = periodAt(this.options.now, after.reset, group.record);
    return {
      counter: { ...after, periodStart: new Date(bounds.start).toISOString() },
      nextResetAt: bounds.end,
    };
  }

  /** The group's counters in their order (all of them: only for groups read whole). */
  private orderOf(groupId: string): CounterState[] {
    return [...this.counters.values()]
      .filter((state) => state.exists && state.groupId === groupId)
      .sort(
        (a, b) =>
          (a.position === null ? 1 : 0) - (b.position === null ? 1 : 0) ||
          (a.position ?? 0) - (b.position ?? 0) ||
          a.counter.createdAt.localeCompare(b.counter.createdAt) ||
          a.createdSeq - b.createdSeq,
      );
  }

  /** Puts the group's counters in this order: every counter once (a reorder or its undo). */
  private reorder(operation: Operation, counterIds: readonly string[], seq: number): Applied {
    const { groupId } = operation;
    if (!this.wholeGroups.has(groupId)) return failed(invalidOrder());
    const current = this.orderOf(groupId);
    const ids = new Set(counterIds);
    if (ids.size !== counterIds.length || ids.size !== current.length) {
      return failed(invalidOrder());
    }
    if (current.some((state) => !ids.has(state.counter.id))) {
      return failed(invalidOrder());
    }
    const from = current.map((state) => state.counter.id);
    counterIds.forEach((id, position) => {
      const state = this.counters.get(id) as CounterState;
      if (state.position === position) return;
      state.position = position;
      state.changed = true;
      state.onlyValue = false;
    });
    const to = [...counterIds];
    return {
      outcome: {
        ok: true,
        result: { kind: 'order', counterIds: to },
        changes: [{ type: 'counters.reordered', seq, counterIds: to }],
        replayed: false,
      },
      drafts: [groupEntry(operation, seq, 'counters.reordered', { from, to })],
    };
  }

  /** The order an undo of a reorder puts back: the old one, counters since made after it. */
  private previousOrder(groupId: string, from: readonly string[]): string[] {
    const existing = this.orderOf(groupId).map((state) => state.counter.id);
    const present = new Set(existing);
    const kept = from.filter((id) => present.has(id));
    const placed = new Set(kept);
    return [...kept, ...existing.filter((id) => !placed.has(id))];
  }

  /** Sets or clears a section's maximum; refused below its total or past the count of sections. */
  private setSectionMax(
    group: GroupState,
    section: string,
    max: number | null,
  ): OperationOutcome | undefined {
    let limits = { ...group.record.sectionLimits };
    if (max === null) {
      limits = Object.fromEntries(Object.entries(limits).filter(([name]) => name !== section));
    } else {
      if (limits[section] === undefined && Object.keys(limits).length >= SECTION_LIMITS_MAX) {
        return invalidChange(MESSAGES.tooManySections(SECTION_LIMITS_MAX));
      }
      const total = this.sectionTotal(group.record.id, section);
      if (total > BigInt(max)) {
        return limitReached(MESSAGES.sectionLimitBelowTotal(section, Number(total)));
      }
      limits[section] = max;
    }
    group.record = { ...group.record, sectionLimits: limits };
    group.changed = true;
    return undefined;
  }

  /** New midnights for the group: every counter that resets ends its period at the new one. */
  private moveMidnights(group: GroupState): void {
    for (const state of this.orderOf(group.record.id)) {
      const { reset } = state.counter;
      if (reset === null) continue;
      state.nextResetAt = periodAt(this.options.now, reset, group.record).end;
      state.changed = true;
      state.onlyValue = false;
    }
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
      sessions: [...this.movedSessions].map(([key, { groupId, session }]) => {
        const window = this.sessions.get(key) as SessionWindow;
        return { groupId, session, high: window.high, seen: seenText(window.seen) };
      }),
      periods: this.periods,
    };
  }

  // ---- applying --------------------------------------------------------------------------------

  private applyMutation(operation: Operation, seq: number): Applying {
    const { groupId, mutation } = operation;
    switch (mutation.kind) {
      case 'createCounter': {
        if (this.isFull(groupId)) return failed(tooManyCounters(this.options.countersPerGroup));
        const { fields } = mutation;
        const value = fields.value ?? 0;
        const counter: Counter = {
          id: this.newCounterId(),
          name: fields.name ?? MESSAGES.newCounterName,
          description: fields.description ?? '',
          value,
          incrementStep: fields.incrementStep ?? DEFAULT_STEP,
          decrementStep: fields.decrementStep ?? DEFAULT_STEP,
          thumbnailUrl: fields.thumbnailUrl ?? null,
          goal: fields.goal ?? null,
          min: fields.min ?? null,
          max: fields.max ?? null,
          reset: fields.reset ?? null,
          startValue: fields.startValue ?? 0,
          section: fields.section ?? null,
          periodStart: null,
          allTime: value,
          createdAt: new Date(this.options.now).toISOString(),
          version: seq,
        };
        const refused = this.counterRefusal(undefined, groupId, null, counter);
        if (refused) return failed(refused);
        return created(operation, this.insertCounter(groupId, seq, counter), seq);
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
      case 'adjustCounter':
        // planBatch puts every tap in an adjust step (applyAdjust): never applied one by one.
        return failed(counterNotFound());
      case 'reorderCounters':
        return this.reorder(operation, mutation.counterIds, seq);
      case 'updateSection': {
        const group = this.groups.get(groupId);
        if (!group) return failed(groupNotFound());
        const before = group.record;
        const refused = this.setSectionMax(group, mutation.section, mutation.max);
        if (refused) return failed(refused);
        return groupUpdated(operation, before, group.record, seq);
      }
      case 'resetPeriods':
        // The periods were ended before any operation (endDuePeriods); nothing else to do. The
        // answer names the counters (the scheduler does not read it).
        return {
          outcome: {
            ok: true,
            result: { kind: 'order', counterIds: mutation.counterIds },
            changes: [],
            replayed: false,
          },
          drafts: [],
        };
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
        const stored = this.storedIds.get(key);
        const activityId = stored?.activityId;
        const known = activityId == null ? undefined : this.known.get(activityId);
        if (known?.groupId === groupId) return this.undo(operation, known, seq);
        // A numbered tap leaves no row that names its entry: it is undone by the entry itself.
        const target = stored ? undefined : parseNumberedId(mutation.opId);
        const window = target && this.sessions.get(keyOf(groupId, target.session));
        return target && numberState(window, target.n) === 'applied'
          ? failed(cannotUndo(MESSAGES.undoNumberedTap))
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
    const period = this.withPeriod(
      operation.groupId,
      before,
      { ...before, ...fields, value, version: seq },
      state.nextResetAt,
    );
    const refused = this.counterRefusal(state, operation.groupId, before, period.counter);
    if (refused) return failed(refused);
    if (period.nextResetAt !== state.nextResetAt) {
      state.nextResetAt = period.nextResetAt;
      state.onlyValue = false;
    }
    const after = this.setCounter(state, period.counter);
    const reached = reaches(after, BigInt(before.value), BigInt(after.value));
    const draft =
      entryKind === 'counter.adjusted'
        ? deltaDraft(operation, after, seq, Number(valueDelta), reached)
        : updateDraft(operation, before, after, seq);
    const change: Change = {
      type: 'counter.updated',
      seq,
      counter: after,
      ...(reached && entryKind === 'counter.adjusted' ? { goalReachedBy: draft.actor } : {}),
    };
    return { outcome: counterOutcome(after, false, change), drafts: [draft] };
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

  private patchGroup(
    operation: Operation,
    patch: GroupPatch,
    seq: number,
    sections: readonly { section: string; max: number | null }[] = [],
  ): Applied {
    const group = this.groups.get(operation.groupId);
    if (!group) return failed(groupNotFound());
    const before = group.record;
    for (const { section, max } of sections) {
      const refused = this.setSectionMax(group, section, max);
      if (refused) {
        group.record = before;
        return failed(refused);
      }
    }
    group.record = {
      ...group.record,
      ...(Object.fromEntries(definedEntries(patch)) as GroupPatch),
    };
    group.changed = true;
    if (group.record.timeZone !== before.timeZone || group.record.weekStart !== before.weekStart) {
      if (!this.wholeGroups.has(group.record.id)) {
        group.record = before;
        return failed(invalidChange(MESSAGES.invalidTimeZone));
      }
      this.moveMidnights(group);
    }
    return groupUpdated(operation, before, group.record, seq);
  }

  /** Takes back one entry of this group by applying its inverse (store/undo.ts). */
  private undo(operation: Operation, target: KnownEntry, seq: number): Applying {
    const { entry, ref } = target;
    if (this.isUndone(ref, entry)) return failed(alreadyUndone());
    const inverse = inverseOf(entry);
    let applied: Applied;
    switch (inverse.kind) {
      case 'none':
        applied = failed(cannotUndo(MESSAGES.cannotUndoReset));
        break;
      case 'reorder':
        applied = this.reorder(
          operation,
          this.previousOrder(operation.groupId, inverse.counterIds),
          seq,
        );
        break;
      case 'counter': {
        // A change of a value in a period that has ended belongs to that period's total.
        const state = this.counterOf(operation.groupId, inverse.counterId);
        const periodStart = state?.counter.periodStart;
        if (
          inverse.valueDelta !== 0n &&
          periodStart != null &&
          Date.parse(entry.at) < Date.parse(periodStart)
        ) {
          applied = failed(cannotUndo(MESSAGES.periodEnded));
          break;
        }
        applied = this.patchCounter(
          operation,
          inverse.counterId,
          inverse.patch,
          inverse.valueDelta,
          seq,
          inverse.entryKind,
        );
        break;
      }
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
        const restoring: Counter = {
          ...counter,
          periodStart: null,
          allTime: counter.value,
          version: seq,
        };
        const refused = this.counterRefusal(undefined, operation.groupId, null, restoring);
        if (refused) {
          applied = failed(refused);
          break;
        }
        applied = created(operation, this.insertCounter(operation.groupId, seq, restoring), seq);
        break;
      }
      case 'group':
        applied = this.patchGroup(operation, inverse.patch, seq, inverse.sections);
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

  /** A new (or restored) counter: last in the order, its period starting now if it resets. */
  private insertCounter(groupId: string, seq: number, counter: Counter): Counter {
    const previous = this.counters.get(counter.id);
    const period = this.withPeriod(groupId, null, counter, null);
    const final = { ...period.counter, allTime: period.counter.value };
    this.counters.set(counter.id, {
      groupId,
      createdSeq: seq,
      position: null,
      nextResetAt: period.nextResetAt,
      closedTotal: 0,
      counter: final,
      existed: previous?.existed ?? false,
      exists: true,
      changed: true,
      onlyValue: false,
    });
    this.counts.set(groupId, (this.counts.get(groupId) ?? 0) + 1);
    return final;
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

  /** A numbered tap applied: its session's window moves (written once, at the end). */
  private rememberNumber(groupId: string, { session, n }: NumberedOperationId): void {
    const key = keyOf(groupId, session);
    this.sessions.set(key, withNumber(this.sessions.get(key), n));
    this.movedSessions.set(key, { groupId, session });
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
