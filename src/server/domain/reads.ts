/**
 * What a batch reads before it applies anything, in at most four rounds inside the batch's
 * transaction: what the operations name (groups, operation ids, sessions, entries, counters,
 * counts); the entries and counters that replays and undos lead to (rare); the counters of
 * entries found only then (rarer); every counter of groups an undo reorders or moves the
 * midnights of, and of sections whose maximum the batch checks. A new kind of change that needs
 * rows says so here.
 */
import { parseNumberedId } from '../../shared/operation-ids.js';
import type {
  ImportLookup,
  OperationKey,
  ReadAnswer,
  ReadRequest,
  SectionKey,
  SessionKey,
  StoredCounter,
} from './commit-io.js';
import { keyOf, numberedTap, seenFromText, type SessionWindow } from './numbered-ids.js';
import type { Operation } from './operations.js';
import type { BatchRows, CounterState, GroupState, KnownEntry } from './state.js';
import { inverseCounterId, undoNeedsGroup, undoSections } from './undo.js';

export type Reads = Generator<ReadRequest, BatchRows, ReadAnswer>;

/** The counter ids a mutation names (known before anything is read). */
function counterIdsOf(operation: Operation): readonly string[] {
  const { mutation } = operation;
  if ('counterId' in mutation) return [mutation.counterId];
  if (mutation.kind === 'addAlertRule') {
    return mutation.rule.counterId === null ? [] : [mutation.rule.counterId];
  }
  return mutation.kind === 'resetPeriods' ? mutation.counterIds : [];
}

/** Whether a group patch moves the group's midnights (every counter that resets is read). */
const movesMidnights = (patch: object): boolean => 'timeZone' in patch || 'weekStart' in patch;

/** Reads the rows the batch applies to: see the module comment. */
export function* readRows(operations: readonly Operation[], countersPerGroup: number): Reads {
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
  const importLookups: ImportLookup[] = [];
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
      case 'importData':
        // Every counter of the group: which the file's counters are, and section totals.
        groupCounters.add(groupId);
        countGroups.add(groupId);
        // Its entries' count only: which of them the log holds was found before (importer.ts).
        importLookups.push({ groupId, fingerprints: [] });
        break;
      default:
        break;
    }
  }
  // Counted past the quota by as many operations as the batch holds (each deletes at most one
  // counter): a group over a lowered quota that deletes one counter is still full.
  const countCap = countersPerGroup + operations.length;
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
    ...(importLookups.length > 0 ? { imports: importLookups } : {}),
  };

  const groups = new Map<string, GroupState>(
    first.groups.map((group) => [
      group.record.id,
      { ...group, changed: false, alertsChanged: false },
    ]),
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
  const imports = new Map(
    (first.imports ?? []).map(({ groupId, entries, known }) => [
      groupId,
      { entries, known: new Set(known) },
    ]),
  );

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
  const sections = sectionsToRead(operations, { groups, counters, known });
  if (wholeGroups.size > 0 || sections.length > 0) {
    const context: ReadAnswer = yield {
      ...emptyRequest(),
      groupCounters: [...wholeGroups],
      sections,
    };
    remember(context.counters);
    for (const groupId of wholeGroups) groupCounters.add(groupId);
  }
  return {
    groups,
    counters,
    counts,
    known,
    storedIds,
    sessions,
    wholeGroups: groupCounters,
    imports,
  };
}

/**
 * The sections whose every counter the batch must hold to check a section maximum: those of
 * groups with section limits that the batch's counters, new fields and undos touch (from the
 * rows read so far), and every section whose maximum it sets.
 */
function sectionsToRead(
  operations: readonly Operation[],
  {
    groups,
    counters,
    known,
  }: {
    groups: ReadonlyMap<string, GroupState>;
    counters: ReadonlyMap<string, CounterState>;
    known: ReadonlyMap<number, KnownEntry>;
  },
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
