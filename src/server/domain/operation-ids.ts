/**
 * Operation ids: a client names each change so that a retry is applied once. An opaque id keeps
 * a row of its own (the answer, what the id meant, the entry it made) and a retry is answered
 * from it; an id used again for another change is refused. Numbered taps remember their ids in
 * a window per session instead (numbered-ids.ts, ADR 24).
 */
import { canonicalJson } from './canonical-json.js';
import { createHash } from 'node:crypto';
import type { MutationResult } from '../../shared/api.js';
import { MESSAGES } from '../../shared/messages.js';
import type { OperationIdWrite } from './commit-io.js';
import { keyOf, numberedTap, replayNumbered } from './numbered-ids.js';
import type { Operation, OperationOutcome, StoreMutation } from './operations.js';
import { counterNotFound } from './outcomes.js';
import type { BatchState } from './state.js';

/**
 * What is stored for each operation id: the answer, or for coalesced taps a reference to the
 * counter (its row at replay time includes the tap), which keeps the table small under load.
 */
export type StoredAnswer = MutationResult | { kind: 'counterRef'; counterId: string };

/**
 * What an operation id promises to mean: for a tap its direction, times and counter
 * (`+3@<counterId>`), for anything else the SHA-256 (base64url, 43 characters) of the parsed
 * mutation's canonical JSON — kind, counter, fields. The two forms never collide. Stored with the id, so a
 * retry (same fingerprint) is answered again while the id reused for another change is refused.
 */
export function fingerprintOf(mutation: StoreMutation): string {
  // Taps are most operations under load: their few fields make a short exact text at once,
  // without hashing (a hash cost ~10 µs per tap on a loaded machine; this ~0.1 µs).
  if (mutation.kind === 'adjustCounter') {
    const sign = mutation.direction === 'increment' ? '+' : '-';
    return `${sign}${mutation.times}@${mutation.counterId}`;
  }
  return createHash('sha256')
    .update(canonicalJson(meaningOf(mutation)))
    .digest('base64url');
}

/**
 * What a change means, for its fingerprint: a new alert rule or tap link is what the member asked
 * for, not
 * the id, secret, key and time the server made for it (a retry makes new ones).
 */
function meaningOf(mutation: StoreMutation): unknown {
  switch (mutation.kind) {
    case 'addAlertRule': {
      const { counterId, section, when, to } = mutation.rule;
      return { kind: mutation.kind, counterId, section, when, to };
    }
    case 'addTapLink': {
      // A tap link's key (so its hash) and time are made anew for each request.
      const { label, scope, can } = mutation.link;
      return { kind: mutation.kind, label, scope, can };
    }
    default:
      return mutation;
  }
}

/** The fingerprint of each operation that carries an id, by batch position. */
export function fingerprintsOf(operations: readonly Operation[]): (string | undefined)[] {
  return operations.map((operation) =>
    operation.opId === undefined ? undefined : fingerprintOf(operation.mutation),
  );
}

/** The answer to an operation id already used for a different change: nothing is applied. */
export function operationIdReused(): OperationOutcome {
  return { ok: false, code: 'operation_id_reused', message: MESSAGES.operationIdReused };
}

/**
 * The outcome of an operation id found stored with `stored` (null: a row written before
 * fingerprints, which replays as before); undefined when it is the same change (a replay).
 */
export function reuseOf(stored: string | null, fingerprint: string | undefined) {
  return stored !== null && fingerprint !== undefined && stored !== fingerprint
    ? operationIdReused()
    : undefined;
}

/** A repeated operation id answers like its first use, as a replay. */
export function duplicateOutcome(first: OperationOutcome | undefined): OperationOutcome {
  if (!first) throw new Error('duplicate of an operation without an outcome');
  return first.ok ? { ...first, changes: [], replayed: true } : first;
}

/** Each operation id's fingerprint at its first use in the batch. */
export function firstFingerprints(
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

/** The answer again, if this group already applied this operation id in an earlier batch. */
export function replay(
  batch: BatchState,
  operation: Operation,
  fingerprint: string | undefined,
): OperationOutcome | undefined {
  if (operation.opId === undefined) return undefined;
  const numbered = numberedTap(operation);
  if (numbered) return replayNumbered(batch, operation, numbered);
  const stored = batch.storedIds.get(keyOf(operation.groupId, operation.opId));
  if (!stored) return undefined;
  const reused = reuseOf(stored.fingerprint, fingerprint);
  if (reused) return reused;
  const answer = stored.result;
  if (answer.kind !== 'counterRef') {
    return { ok: true, result: answer, changes: [], replayed: true };
  }
  // A coalesced tap is answered with the counter as it is now (it includes the tap).
  const counter = batch.counterOf(operation.groupId, answer.counterId);
  if (!counter) return counterNotFound();
  const result = { kind: 'counter', counter: counter.counter, created: false } as const;
  return { ok: true, result, changes: [], replayed: true };
}

/**
 * An operation id this batch applied (none: nothing to remember): its row is written with the
 * answer and the entry it made, and its fingerprint; an undo in the batch finds it.
 */
export function rememberId(
  batch: BatchState,
  {
    groupId,
    opId,
    result,
    entry,
  }: Omit<OperationIdWrite, 'opId' | 'fingerprint'> & { opId: string | undefined },
): void {
  if (opId === undefined) return;
  const key = keyOf(groupId, opId);
  batch.appliedIds.set(key, entry);
  const fingerprint = batch.fingerprints.get(key) ?? null;
  batch.operationIds.push({ groupId, opId, result, entry, fingerprint });
}
