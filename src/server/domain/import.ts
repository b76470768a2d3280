/**
 * An import (ADR 37): a file's counters and activity entries, read and checked before the commit
 * (server/import/), their entries chained and staged out of sight before it (core/importer.ts),
 * published here in one operation, all or nothing.
 *
 * - A counter of the file is the group's counter with the same id (a file exported from this
 *   group), else the counter an earlier import of it made (its id derived from the group and its
 *   id in the file), else a new one. A new counter is created with the file's settings, value
 *   and creation time; one the group has is updated to them if any differ. Nothing is deleted.
 * - Entries are appended to the group's log in the file's order, at their own times, each
 *   chained to the one before like any entry (ADR 30) and carrying where it came from
 *   (`imported`: its fingerprint and its hash in the source log). An entry whose fingerprint the
 *   group's log already holds was imported before, and one whose hash is an entry's of this very
 *   group is that entry (the group's own export): both are left out, so importing a file twice,
 *   or a group's export into itself, adds nothing. An undo and the entry it took back stay linked.
 *   Their drafts and hashes depend only on the group's change number and head when they are
 *   made (importedEntries): the commit publishes them only if both are still what they were.
 * - The group's quotas of counters and of activity entries are checked before anything changes;
 *   a counter refused by its limits or its section's maximum refuses the whole import, and what
 *   the import had changed in the batch is put back.
 * - An import fires no alerts: it reports what happened elsewhere, it does not happen now.
 */
import { createHash } from 'node:crypto';
import type { ActivityKind } from '../../shared/activity.js';
import type { Counter, ErrorCode } from '../../shared/api.js';
import { COUNTER_FIELDS, type CounterField } from '../../shared/fields.js';
import { IMPORT_MESSAGES, type ImportFormat, type ImportSummary } from '../../shared/import.js';
import type { Change } from '../../shared/protocol.js';
import type { ActivityDraft, EntryDetail } from './activity.js';
import type { CounterSnapshot } from '../../shared/activity.js';
import { insertCounter } from './counters.js';
import { counterRefusal } from './limits.js';
import type { Operation, OperationOutcome, StoreMutation } from './operations.js';
import { groupNotFound } from './outcomes.js';
import { withPeriod } from './periods.js';
import type { BatchState, CounterState } from './state.js';

/** A counter as a file gives it: every editable field, and what identifies it in the file. */
export interface ImportedCounter {
  /** Its id in the file: a Tally counter's id, a BetterCounter name, a Simple Counter id. */
  sourceId: string;
  fields: Pick<Counter, CounterField>;
  /** When it was made, epoch ms (null: the file does not say; now). */
  createdAt: number | null;
  /** Its all-time total (a counter that resets: its ended periods' values plus its value). */
  allTime: number | null;
}

/** An activity entry as a file gives it, its counter named by its id in the file. */
export interface ImportedEntry {
  /** What recognises it when the same file is imported again. */
  fingerprint: string;
  /** Its hash in the source log's chain, null when it had none. */
  hash: string | null;
  /** Epoch ms. */
  at: number;
  actor: string;
  link: { id: string; label: string } | null;
  kind: ActivityKind;
  /** The counter's id in the file (null: an entry about the group). */
  counterSourceId: string | null;
  counterName: string | null;
  value: number | null;
  delta: number | null;
  increments: number | null;
  decrements: number | null;
  /** As a draft's (activity.ts); counter ids in it are the file's. */
  detail: ActivityDraft['detail'];
  /** The position in the file's entries of the entry this one took back (an undo), if there. */
  undoOf: number | null;
  /** The member's note on it (ADR 36), outside the chain; absent: none. */
  note?: string;
  /** Epoch ms it was counted for, when earlier than `at` (ADR 36); absent: at `at`. */
  countedAt?: number;
}

export interface ImportData {
  format: ImportFormat;
  counters: ImportedCounter[];
  entries: ImportedEntry[];
  /** What the reader left out or read differently, one sentence each. */
  warnings: string[];
}

/**
 * What the commit applies: the file's counters, and how many entries it adds, already chained
 * and staged (`staged`; absent in a preview, which only counts them).
 */
export interface ImportPlan {
  format: ImportFormat;
  counters: ImportedCounter[];
  warnings: string[];
  /** Entries the file adds to the group's log (those it does not hold yet). */
  entries: number;
  staged?: StagedImport;
  /**
   * The id each of the file's counters gets in this group when it is not the group's own
   * (importedCounterId, by its id in the file), worked out before the commit with pauses
   * (countersAhead): one SHA-256 each, and a file may hold 100,000 counters, which in the commit
   * would hold it (and, on SQLite, every group's taps) for up to a second.
   */
  derivedIds?: ReadonlyMap<string, string>;
}

/** Entries written out of sight (Store.stageImport) and the group's state they were made for. */
export interface StagedImport {
  importId: string;
  /** The group's change number and head when they were chained: the commit checks both. */
  afterSeq: number;
  afterHead: string | null;
  /** The change number they carry (importSeq). */
  seq: number;
  /**
   * Whether the store moved them into the log already (SQLite, Store.moveStagedImport): the
   * group's count of entries then holds them.
   */
  moved: boolean;
  /** The head after the last of them. */
  head: string | null;
}

/** A staged entry: its draft, its hash, and its undo links as positions among the staged. */
export interface StagedEntry {
  position: number;
  draft: ActivityDraft;
  hash: string;
  undoOf: number | null;
  undoneBy: number | null;
}

type ImportMutation = Extract<StoreMutation, { kind: 'importData' }>;

/**
 * The id a counter of the file gets in a group that does not have its id: derived from the group
 * and the file's id, so the next import of the same file finds it.
 */
export function importedCounterId(groupId: string, format: ImportFormat, sourceId: string): string {
  const hash = createHash('sha256').update(`${groupId}\n${format}\n${sourceId}`).digest('hex');
  return `${hash.slice(0, 8)}-${hash.slice(8, 12)}-${hash.slice(12, 16)}-${hash.slice(16, 20)}-${hash.slice(20, 32)}`;
}

/** Which of the file's counters are new to the group, which change, and each one's id here. */
export interface CounterMatch {
  targetOf: (sourceId: string) => string;
  creates: ImportedCounter[];
  /** The group's counter (its id) and what the file says it is. */
  updates: { id: string; counter: ImportedCounter }[];
}

/**
 * How many of the file's counters the group does not have (matchCounters' creates, counted), and
 * the id each gets here when it is not the group's own (importedCounterId, by its id in the
 * file), a slice at a time: `pause` is awaited every IMPORT_DRAFTS_PER_TURN counters. Worked out
 * before the commit, so a file of many counters (a file may hold 100,000, one SHA-256 each) is
 * refused for the quota, or matched in the commit, without holding the event loop for it.
 */
export async function countersAhead(
  { groupId, format }: { groupId: string; format: ImportFormat },
  counters: readonly ImportedCounter[],
  { counterOf, pause }: { counterOf: (id: string) => unknown; pause: () => Promise<void> },
): Promise<{ derivedIds: Map<string, string>; creates: number }> {
  const derivedIds = new Map<string, string>();
  let creates = 0;
  for (const [index, { sourceId }] of counters.entries()) {
    if (index > 0 && index % IMPORT_DRAFTS_PER_TURN === 0) await pause();
    let derived = derivedIds.get(sourceId);
    if (derived === undefined) {
      derived = importedCounterId(groupId, format, sourceId);
      derivedIds.set(sourceId, derived);
    }
    if (counterOf(sourceId) === undefined && counterOf(derived) === undefined) creates += 1;
  }
  return { derivedIds, creates };
}

/** The refusal of an import that would take a group of `count` counters past `max`, if it does. */
export function countersQuotaRefusal(count: number, creates: number, max: number): string | null {
  return count + creates > max ? IMPORT_MESSAGES.tooManyCounters(count + creates, max) : null;
}

/**
 * Matches the file's counters with the group's (`counterOf`: the group's counter by id;
 * `derivedIds`: countersAhead's, when they were worked out before).
 */
export function matchCounters(
  {
    groupId,
    format,
    derivedIds,
  }: { groupId: string; format: ImportFormat; derivedIds?: ReadonlyMap<string, string> },
  counters: readonly ImportedCounter[],
  counterOf: (id: string) => Counter | undefined,
): CounterMatch {
  const ids = new Map<string, string>();
  const targetOf = (sourceId: string): string => {
    let id = ids.get(sourceId);
    if (id === undefined) {
      id =
        counterOf(sourceId) !== undefined
          ? sourceId
          : (derivedIds?.get(sourceId) ?? importedCounterId(groupId, format, sourceId));
      ids.set(sourceId, id);
    }
    return id;
  };
  const creates: ImportedCounter[] = [];
  const updates: CounterMatch['updates'] = [];
  for (const counter of counters) {
    const id = targetOf(counter.sourceId);
    const current = counterOf(id);
    if (!current) creates.push(counter);
    else if (COUNTER_FIELDS.some((field) => current[field] !== counter.fields[field])) {
      updates.push({ id, counter });
    }
  }
  return { targetOf, creates, updates };
}

/**
 * The change number an import's entries carry: its counters' changes take one each after the
 * group's `seq`, the entries the last of them (one of their own when no counter changes).
 */
export const importSeq = (seq: number, match: CounterMatch): number =>
  seq + Math.max(1, match.creates.length + match.updates.length);

/**
 * The file's entries that the group's log does not hold (`known`: recognised by fingerprint or
 * by this group's own hash), as drafts of the group at change number `seq`, with their undo
 * links as positions among them. Not yet chained: Store.stageImport writes them with their
 * hashes. `pause` is awaited every IMPORT_DRAFTS_PER_TURN entries, so a large file does not hold
 * the caller's event loop.
 */
export async function importedEntries(
  groupId: string,
  entries: readonly ImportedEntry[],
  {
    seq,
    targetOf,
    known,
    pause,
  }: {
    seq: number;
    targetOf: (sourceId: string) => string;
    known: (entry: ImportedEntry) => boolean;
    pause: () => Promise<void>;
  },
): Promise<Omit<StagedEntry, 'hash'>[]> {
  // File position → position among the entries added.
  const added = new Map<number, number>();
  entries.forEach((entry, position) => {
    if (!known(entry)) added.set(position, added.size);
  });
  const drafts: Omit<StagedEntry, 'hash'>[] = [];
  for (const [position, entry] of entries.entries()) {
    if (position > 0 && position % IMPORT_DRAFTS_PER_TURN === 0) await pause();
    const at = added.get(position);
    if (at === undefined) continue;
    const undone = entry.undoOf === null ? undefined : added.get(entry.undoOf);
    drafts.push({
      position: at,
      draft: importedDraft(entry, { groupId, seq, targetOf }),
      undoOf: undone ?? null,
      undoneBy: null,
    });
    if (undone !== undefined) {
      const target = drafts[undone];
      if (target) target.undoneBy = at;
    }
  }
  return drafts;
}

/** Entries made drafts, or counters given their ids, between two pauses. */
const IMPORT_DRAFTS_PER_TURN = 2_000;

/** Applies the batch's import at `index`: see the module comment. */
export function applyImport(batch: BatchState, index: number): OperationOutcome {
  const operation = batch.operations[index] as Operation;
  const { groupId } = operation;
  const group = batch.groups.get(groupId);
  if (!group) return groupNotFound();
  const { data } = operation.mutation as ImportMutation;
  const { staged } = data;
  // Its entries were chained after this change number and head: any change of the group since
  // (another instance's, on PostgreSQL) and they would not follow. The importer prepares again.
  if (staged && (group.seq !== staged.afterSeq || group.logHead !== staged.afterHead)) {
    return refusal('busy', IMPORT_MESSAGES.changedMeanwhile);
  }

  const match = matchCounters(
    { groupId, format: data.format, ...(data.derivedIds ? { derivedIds: data.derivedIds } : {}) },
    data.counters,
    (id) => batch.counterOf(groupId, id)?.counter,
  );
  const { targetOf, creates } = match;
  const updates = match.updates.map(({ id, counter }) => ({
    state: batch.counterOf(groupId, id) as CounterState,
    counter,
  }));
  const counterCount = batch.counts.get(groupId) ?? 0;
  const pastQuota = countersQuotaRefusal(
    counterCount,
    creates.length,
    batch.options.countersPerGroup,
  );
  if (pastQuota !== null) return refusal('too_many_counters', pastQuota);

  const lookup = batch.imports.get(groupId);
  const entries = batch.options.activityLog ? data.entries : 0;
  const maxEntries = batch.options.activityEntriesPerGroup;
  // Entries moved into the log before this commit are counted in the group's entries already.
  const entryCount = (lookup?.entries ?? 0) - (staged?.moved === true ? entries : 0);
  if (maxEntries !== undefined && entries > 0 && entryCount + entries > maxEntries) {
    return refusal(
      'too_many_entries',
      IMPORT_MESSAGES.tooManyEntries(entryCount + entries, maxEntries),
    );
  }
  const undoBatch = keepGroupCounters(batch, groupId);
  let seq = group.seq;
  const changes: Change[] = [];
  const nextPosition = firstFreePosition(batch, groupId, counterCount);
  for (const [offset, imported] of creates.entries()) {
    seq += 1;
    const createdAt = imported.createdAt ?? batch.options.now;
    const counter: Counter = {
      id: targetOf(imported.sourceId),
      ...imported.fields,
      periodStart: null,
      allTime: imported.fields.value,
      createdAt: new Date(createdAt).toISOString(),
      version: seq,
    };
    const refused = counterRefusal(batch, { groupId, before: null, after: counter });
    if (refused && !refused.ok) {
      undoBatch();
      return refusal(refused.code, IMPORT_MESSAGES.counterRefused(counter.name, refused.message));
    }
    let final = insertCounter({ batch, operation, seq }, counter);
    const state = batch.counters.get(final.id) as CounterState;
    if (nextPosition !== null) state.position = nextPosition + offset;
    if (imported.allTime !== null && imported.allTime !== final.value) {
      state.closedTotal = imported.allTime - final.value;
      final = batch.setCounter(state, final);
    }
    changes.push({ type: 'counter.created', seq, counter: final });
  }
  for (const { state, counter: imported } of updates) {
    seq += 1;
    const before = state.counter;
    const period = withPeriod(batch, {
      groupId,
      state,
      before,
      after: { ...before, ...imported.fields, version: seq },
    });
    const refused = counterRefusal(batch, { groupId, state, before, after: period.counter });
    if (refused && !refused.ok) {
      undoBatch();
      return refusal(refused.code, IMPORT_MESSAGES.counterRefused(before.name, refused.message));
    }
    if (period.nextResetAt !== state.nextResetAt) {
      state.nextResetAt = period.nextResetAt;
      state.onlyValue = false;
    }
    const after = batch.setCounter(state, period.counter);
    changes.push({ type: 'counter.updated', seq, counter: after });
  }
  // Entries alone still make a change number: the log's new entries carry it.
  if (entries > 0 && seq === group.seq) seq += 1;
  if (seq !== group.seq) batch.bump(group, seq);
  if (staged && entries > 0) {
    if (seq !== staged.seq) throw new Error('an import was chained at another change number');
    group.logHead = staged.head;
    batch.publishImport({ importId: staged.importId, groupId, entries });
  }

  const summary: ImportSummary = {
    format: data.format,
    dryRun: false,
    counters: { create: creates.length, update: updates.length },
    entries,
    warnings: data.warnings,
  };
  return { ok: true, result: { kind: 'imported', summary }, changes, replayed: false };
}

const refusal = (code: ErrorCode, message: string): OperationOutcome => ({
  ok: false,
  code,
  message,
});

/**
 * Where the file's new counters go in the group's order: after the group's counters in their
 * order (positions from there), or by age when the group's counters have no positions (it was
 * never reordered) and it has some; null then.
 */
function firstFreePosition(batch: BatchState, groupId: string, count: number): number | null {
  let highest = -1;
  for (const state of batch.counters.values()) {
    if (!state.exists || state.groupId !== groupId || state.position === null) continue;
    highest = Math.max(highest, state.position);
  }
  if (highest === -1 && count > 0) return null;
  return highest + 1;
}

/**
 * Keeps a copy of the group's counters as the batch holds them, and its count; the returned
 * function puts them back (an import refused halfway changes nothing).
 */
function keepGroupCounters(batch: BatchState, groupId: string): () => void {
  const kept = new Map<string, CounterState>();
  for (const [id, state] of batch.counters) {
    if (state.groupId === groupId) kept.set(id, { ...state });
  }
  const count = batch.counts.get(groupId);
  return () => {
    for (const [id, state] of [...batch.counters]) {
      if (state.groupId !== groupId) continue;
      const before = kept.get(id);
      if (before) batch.counters.set(id, before);
      else batch.counters.delete(id);
    }
    if (count === undefined) batch.counts.delete(groupId);
    else batch.counts.set(groupId, count);
  };
}

/** An imported entry as a draft of this group: its counter ids the group's, at its own time. */
function importedDraft(
  entry: ImportedEntry,
  {
    groupId,
    seq,
    targetOf,
  }: { groupId: string; seq: number; targetOf: (sourceId: string) => string },
): ActivityDraft {
  return {
    groupId,
    seq,
    actor: entry.actor,
    link: entry.link,
    kind: entry.kind,
    counterId: entry.counterSourceId === null ? null : targetOf(entry.counterSourceId),
    counterName: entry.counterName,
    value: entry.value,
    delta: entry.delta,
    increments: entry.increments,
    decrements: entry.decrements,
    detail: detailWithIds(entry, targetOf),
    opIds: [],
    at: entry.at,
    imported: { fingerprint: entry.fingerprint, hash: entry.hash },
    ...(entry.note === undefined ? {} : { note: entry.note }),
    ...(entry.countedAt === undefined ? {} : { countedAt: entry.countedAt }),
  };
}

/** The counter ids a detail names (a snapshot's, a reorder's), as the group's. */
function detailWithIds(
  entry: ImportedEntry,
  targetOf: (sourceId: string) => string,
): ActivityDraft['detail'] {
  const { detail } = entry;
  if (entry.kind === 'counter.created' || entry.kind === 'counter.deleted') {
    const snapshot = detail as CounterSnapshot;
    return { ...snapshot, id: targetOf(snapshot.id) };
  }
  if (entry.kind === 'counters.reordered') {
    const order = detail as Extract<EntryDetail, { from: string[] }>;
    return { from: order.from.map(targetOf), to: order.to.map(targetOf) };
  }
  return detail;
}
