/**
 * Runs an import (ADR 37) so that no other group waits for it: everything that takes time per
 * entry happens outside the commit, a slice at a time with a turn of the event loop between
 * slices, and the commit that makes the import visible is short.
 *
 * 1. The importing group's new operations are held back (Batcher.hold): its change number and
 *    its log's head stay as they are while the import prepares. Other groups commit as ever.
 * 2. Which of the file's entries the group's log already holds is looked up (by fingerprint, and
 *    by hash for the group's own entries), a slice of fingerprints or a page of the log at a time;
 *    the ids the file's counters get here are derived (a SHA-256 each), a slice at a time, and
 *    handed to the commit, which would otherwise derive them all in one go; a file that would
 *    pass the counters quota is refused here, with the commit's own words.
 * 3. The entries it adds are made drafts of the group, chained after its head (one SHA-256
 *    each) and written out of sight (Store.stageImport), IMPORT_SLICE_ROWS per transaction.
 * 4. One operation of the commit algorithm publishes them (domain/import.ts): the quotas, the
 *    counters' changes and the move of the staged rows into the log, all or nothing, if the
 *    group's change number and head are still those the entries were chained after (another
 *    instance may have changed the group: then it prepares again, up to IMPORT_ATTEMPTS times).
 * 5. The staged rows are removed, whatever happened, a slice at a time; what a crash leaves is
 *    removed at start-up (Store.dropStaleImports).
 *
 * A preview does steps 2 and 4 without writing: the commit's reads, its writes dropped.
 */
import { randomUUID } from 'node:crypto';
import type { ImportSummary } from '../../shared/import.js';
import { IMPORT_MESSAGES } from '../../shared/import.js';
import type { Batcher } from '../batcher.js';
import {
  countersAhead,
  countersQuotaRefusal,
  importSeq,
  importedEntries,
  matchCounters,
  type ImportData,
  type ImportPlan,
  type ImportedEntry,
  type StagedEntry,
} from '../domain/import.js';
import { CHAIN_START, draftChainHash } from '../domain/log-chain.js';
import type { Operation, OperationOutcome } from '../domain/operations.js';
import { DomainError, errors } from '../errors.js';
import type { Store } from '../store/types.js';
import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * Entries chained and staged per transaction, and fingerprints looked up per query: a slice of
 * this many keeps each turn of the event loop short (docs/benchmarks.md, "Import").
 */
export const IMPORT_SLICE_ROWS = 500;
/** How often an import prepares again when the group changed on another instance meanwhile. */
export const IMPORT_ATTEMPTS = 3;
/**
 * Staged entries older than this, ms, belong to an import that never ended (its server stopped):
 * removed at start-up. Far longer than an import of the largest file takes.
 */
export const IMPORT_STAGED_MAX_AGE_MS = 60 * 60_000;

interface ImportContext {
  store: Store;
  batcher: Batcher;
  /** The most counters a group may have (the commit decides; the preparation refuses early). */
  countersPerGroup: number;
}

interface ImportOrigin {
  groupId: string;
  dryRun: boolean;
  actor: string;
  client: string | undefined;
}

export async function runImport(
  context: ImportContext,
  data: ImportData,
  { groupId, dryRun, actor, client }: ImportOrigin,
): Promise<ImportSummary> {
  const { store, batcher } = context;
  const operationOf = (plan: ImportPlan): Operation => ({
    groupId,
    mutation: { kind: 'importData', data: plan },
    actor,
  });
  if (dryRun) {
    const { plan } = await prepare(context, groupId, data);
    return summaryOf(await store.preview(operationOf(plan)), true);
  }
  const hold = await batcher.hold(groupId);
  let importId: string | null = null;
  try {
    for (let attempt = 1; ; attempt += 1) {
      const prepared = await prepare(context, groupId, data);
      importId = prepared.entries.length > 0 ? randomUUID() : null;
      const plan = importId === null ? prepared.plan : await stage(store, importId, prepared);
      // SQLite moves them into the log now, a slice at a time, its readers of the group waiting;
      // the commit then only ends the move. PostgreSQL's commit moves them itself.
      const moved =
        importId !== null && store.moveStagedImport
          ? await store.moveStagedImport(importId, { groupId, slice: IMPORT_SLICE_ROWS })
          : null;
      const outcome = await hold
        .submit(
          operationOf(
            moved && plan.staged ? { ...plan, staged: { ...plan.staged, moved: true } } : plan,
          ),
          client,
        )
        .catch(async (error: unknown) => {
          await moved?.abandoned();
          throw error;
        });
      if (outcome.ok) moved?.published();
      else await moved?.abandoned();
      if (!changedMeanwhile(outcome) || attempt === IMPORT_ATTEMPTS) {
        return summaryOf(outcome, false);
      }
      if (importId !== null) await dropStaged(store, importId);
      importId = null;
    }
  } finally {
    hold.release();
    if (importId !== null) await dropStaged(store, importId);
  }
}

/** What the import would add, as the group stands now, and the state it was worked out for. */
interface Prepared {
  plan: ImportPlan;
  /** The added entries' drafts, not yet chained. */
  entries: Omit<StagedEntry, 'hash'>[];
  seq: number;
  head: string | null;
}

async function prepare(
  { store, countersPerGroup }: ImportContext,
  groupId: string,
  data: ImportData,
): Promise<Prepared> {
  const state = await store.loadGroupState(groupId);
  const ends = await store.activityChainEnds(groupId);
  if (!state || !ends) throw errors.groupNotFound();
  const counters = new Map(state.counters.map((counter) => [counter.id, counter]));
  const { derivedIds, creates } = await countersAhead(
    { groupId, format: data.format },
    data.counters,
    {
      counterOf: (id) => counters.get(id),
      pause: nextTurn,
    },
  );
  // Refused here, as the commit would refuse it, rather than matched once more in the commit.
  const pastQuota = countersQuotaRefusal(state.counters.length, creates, countersPerGroup);
  if (pastQuota !== null) throw new DomainError('too_many_counters', pastQuota);
  const match = matchCounters({ groupId, format: data.format, derivedIds }, data.counters, (id) =>
    counters.get(id),
  );
  const known = await knownEntries(store, groupId, data.entries);
  const entries = await importedEntries(groupId, data.entries, {
    seq: importSeq(state.seq, match),
    targetOf: match.targetOf,
    known,
    pause: nextTurn,
  });
  return {
    plan: {
      format: data.format,
      counters: data.counters,
      warnings: data.warnings,
      entries: entries.length,
      derivedIds,
    },
    entries,
    seq: state.seq,
    head: ends.head,
  };
}

/**
 * Which of the file's entries the group's log holds: an imported entry with its fingerprint, or
 * (a file exported from this group) an entry of the group with its hash.
 */
async function knownEntries(
  store: Store,
  groupId: string,
  entries: readonly ImportedEntry[],
): Promise<(entry: ImportedEntry) => boolean> {
  const fingerprints = new Set<string>();
  for (let from = 0; from < entries.length; from += IMPORT_SLICE_ROWS) {
    const slice = entries.slice(from, from + IMPORT_SLICE_ROWS).map((entry) => entry.fingerprint);
    for (const found of await store.importedFingerprints(groupId, slice)) fingerprints.add(found);
    await nextTurn();
  }
  const ownHashes = new Set<string>();
  if (entries.some((entry) => entry.hash !== null)) {
    // Read once, a page at a time: the chain's hashes have no index of their own.
    for (let after = 0; ;) {
      const page = await store.activityChain(groupId, after, IMPORT_SLICE_ROWS);
      for (const { hash } of page) if (hash !== null) ownHashes.add(hash);
      const last = page[page.length - 1];
      if (!last || page.length < IMPORT_SLICE_ROWS) break;
      after = last.entry.id;
      await nextTurn();
    }
  }
  return (entry) =>
    fingerprints.has(entry.fingerprint) || (entry.hash !== null && ownHashes.has(entry.hash));
}

/** Chains the prepared entries after the group's head and stages them, a slice at a time. */
async function stage(store: Store, importId: string, prepared: Prepared): Promise<ImportPlan> {
  let previous = prepared.head ?? CHAIN_START;
  for (let from = 0; from < prepared.entries.length; from += IMPORT_SLICE_ROWS) {
    const slice = prepared.entries.slice(from, from + IMPORT_SLICE_ROWS).map((entry) => {
      previous = draftChainHash(previous, entry.draft, entry.draft.at ?? Date.now());
      return { ...entry, hash: previous };
    });
    await store.stageImport(importId, slice);
    await nextTurn();
  }
  return {
    ...prepared.plan,
    staged: {
      importId,
      afterSeq: prepared.seq,
      afterHead: prepared.head,
      seq: prepared.entries[0]?.draft.seq ?? prepared.seq,
      head: previous,
      moved: false,
    },
  };
}

/** Removes an import's staged rows, a slice per transaction. */
async function dropStaged(store: Store, importId: string): Promise<void> {
  while ((await store.dropStagedImport(importId, IMPORT_SLICE_ROWS)) === IMPORT_SLICE_ROWS) {
    await nextTurn();
  }
}

const changedMeanwhile = (outcome: OperationOutcome): boolean =>
  !outcome.ok && outcome.code === 'busy' && outcome.message === IMPORT_MESSAGES.changedMeanwhile;

function summaryOf(outcome: OperationOutcome, dryRun: boolean): ImportSummary {
  if (!outcome.ok) throw new DomainError(outcome.code, outcome.message);
  if (outcome.result.kind !== 'imported') throw new Error('an import answered another result');
  return { ...outcome.result.summary, dryRun };
}
