/**
 * Every answer the commit gives, succeeded or refused, in one place: a refusal's code and the
 * app's message (shared/messages.ts), a success's result, changes and activity drafts.
 */
import type { Counter } from '../../shared/api.js';
import { MESSAGES } from '../../shared/messages.js';
import type { Change } from '../../shared/protocol.js';
import { counterDraft, groupDraft, type ActivityDraft } from './activity.js';
import {
  publicGroup,
  type GroupRecord,
  type OperationOutcome,
  type SequencedOperation,
} from './operations.js';

/**
 * Marks each change with the client operation id that caused it, so the client that sent it
 * recognises its own change and retires its optimistic copy in the same step.
 */
export function tagWithOperationId(
  outcome: OperationOutcome,
  opId: string | undefined,
): OperationOutcome {
  if (!outcome.ok || opId === undefined) return outcome;
  return { ...outcome, changes: outcome.changes.map((change) => ({ ...change, opIds: [opId] })) };
}

export function counterOutcome(
  counter: Counter,
  created: boolean,
  change: Change,
): OperationOutcome {
  return {
    ok: true,
    result: { kind: 'counter', counter, created },
    changes: [change],
    replayed: false,
  };
}

export function deletedOutcome(counterId: string, seq: number): OperationOutcome {
  return {
    ok: true,
    result: { kind: 'deleted', counterId },
    changes: [{ type: 'counter.deleted', seq, counterId }],
    replayed: false,
  };
}

export function counterNotFound(): OperationOutcome {
  return { ok: false, code: 'counter_not_found', message: MESSAGES.counterNotFound };
}

export function valueOutOfRange(): OperationOutcome {
  return { ok: false, code: 'value_out_of_range', message: MESSAGES.valueOutOfRange };
}

export function groupNotFound(): OperationOutcome {
  return { ok: false, code: 'group_not_found', message: MESSAGES.groupNotFound };
}

/** The fields a patch sets (a key present with undefined sets nothing). */
export function definedEntries<T extends object>(patch: T): [keyof T & string, unknown][] {
  return (Object.entries(patch) as [keyof T & string, unknown][]).filter(
    ([, value]) => value !== undefined,
  );
}

export function activityNotFound(): OperationOutcome {
  return { ok: false, code: 'activity_not_found', message: MESSAGES.activityNotFound };
}

export function alreadyUndone(): OperationOutcome {
  return { ok: false, code: 'already_undone', message: MESSAGES.alreadyUndone };
}

/** One applied mutation: its outcome and the activity entries it makes. */
export interface Applied {
  outcome: OperationOutcome;
  drafts: ActivityDraft[];
}

export const failed = (outcome: OperationOutcome): Applied => ({ outcome, drafts: [] });

export function created(sequenced: SequencedOperation, counter: Counter): Applied {
  const { seq } = sequenced;
  return {
    outcome: counterOutcome(counter, true, { type: 'counter.created', seq, counter }),
    drafts: [counterDraft(sequenced, 'counter.created', counter)],
  };
}

export function groupUpdated(
  sequenced: SequencedOperation,
  before: GroupRecord,
  after: GroupRecord,
): Applied {
  const { seq } = sequenced;
  const group = publicGroup(after);
  const previous = publicGroup(before);
  return {
    outcome: {
      ok: true,
      result: { kind: 'group', group },
      changes: [{ type: 'group.updated', seq, group }],
      replayed: false,
    },
    drafts: [groupDraft(sequenced, previous, group)],
  };
}

/** A new access key or view-only link: announced (sockets are re-checked), not logged. */
export function accessChanged(group: GroupRecord, seq: number): Applied {
  return {
    outcome: {
      ok: true,
      result: { kind: 'group', group: publicGroup(group) },
      changes: [{ type: 'group.accessChanged', seq }],
      replayed: false,
    },
    drafts: [],
  };
}

/** A numbered tap too far behind its session's newest to tell whether it was applied (ADR 24). */
export function operationExpired(): OperationOutcome {
  return { ok: false, code: 'operation_expired', message: MESSAGES.operationExpired };
}

/** A change that would take a counter or a section past its limit: HTTP 409. */
export function limitReached(message: string): OperationOutcome {
  return { ok: false, code: 'limit_reached', message };
}

/** A change the stored state makes invalid (limits that exclude the value, a bad order). */
export function invalidChange(message: string): OperationOutcome {
  return { ok: false, code: 'validation_failed', message };
}

/** An undo that cannot be applied: an automatic reset, a change of an ended period. */
export function cannotUndo(message: string): OperationOutcome {
  return { ok: false, code: 'cannot_undo', message };
}

/** A reorder that does not list every counter of the group exactly once: HTTP 422. */
export function invalidOrder(): OperationOutcome {
  return { ok: false, code: 'invalid_order', message: MESSAGES.invalidOrder };
}

/** A new or restored counter past the group's quota of counters (countersPerGroup). */
export function tooManyCounters(max: number): OperationOutcome {
  return { ok: false, code: 'too_many_counters', message: MESSAGES.tooManyCounters(max) };
}
