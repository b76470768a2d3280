import type { Counter } from '../../shared/api.js';
import { MESSAGES } from '../../shared/messages.js';
import type { Change } from '../../shared/protocol.js';
import type { OperationOutcome } from './types.js';

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
