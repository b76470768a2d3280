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
  return { ...outcome, changes: outcome.changes.map((change) => ({ ...change, opId })) };
}
