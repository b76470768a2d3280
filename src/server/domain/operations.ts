/**
 * What the domain is asked to apply (`Operation`) and what each one answers
 * (`OperationOutcome`): the words every other file of the domain speaks. The store interface
 * (store/types.ts) re-exports them for the layers above.
 */
import type { ErrorCode, Group, Mutation, MutationResult } from '../../shared/api.js';
import type { Change } from '../../shared/protocol.js';
import type { TapGrant } from '../../shared/links.js';
import type { StoredAlertRule, StoredDestination } from './alert-config.js';
import type { StoredTapLink, TapLinkMutation } from './tap-links.js';
import type { ImportPlan } from './import.js';

export interface GroupRecord extends Group {
  /** SHA-256 of the access key, hex. Never leaves the server. */
  keyHash: string;
  /** SHA-256 of the view-only link's key, hex; null while the group has no view-only link. */
  viewKeyHash: string | null;
  /** Its tap links (tap-links.ts), live and recently revoked; their keys' hashes never leave. */
  tapLinks: readonly StoredTapLink[];
}

/** Changes to who may open a group: server-made, never sent by clients as such. */
export type AccessMutation =
  /**
   * A new access key; an existing view-only link moves to the key derived from the new one. Tap
   * links keep working unless `revokeTapLinks`.
   */
  | { kind: 'rotateKey'; keyHash: string; viewKeyHash: string; revokeTapLinks?: boolean }
  /** Turns the view-only link on (its key's hash) or off (null). */
  | { kind: 'setViewKey'; viewKeyHash: string | null }
  /**
   * Ends the periods of these counters that are due (the reset scheduler, core/period-ends.ts).
   * Any batch ends a due period of a counter it reads; this names counters nobody touches at
   * midnight.
   */
  | { kind: 'resetPeriods'; counterIds: string[] }
  /**
   * A new alert rule (alert-config.ts), made by the server with its id and, for a new `standard`
   * destination, its secret: a group's destination of the same address is used instead.
   */
  | { kind: 'addAlertRule'; rule: StoredAlertRule; destination: StoredDestination }
  | { kind: 'removeAlertRule'; ruleId: string }
  /**
   * A file's counters and activity entries, read and checked by the server (server/import/):
   * applied all or nothing (import.ts).
   */
  | { kind: 'importData'; data: ImportPlan }
  | TapLinkMutation;

/** What the store applies: a client's mutation, or an access change. */
export type StoreMutation = Mutation | AccessMutation;

/** One mutation of one group, as the batcher hands it to the store. */
export interface Operation {
  groupId: string;
  /** Client operation id: a retried operation with the same id is applied once. */
  opId?: string | undefined;
  mutation: StoreMutation;
  /** The member's display name for the activity log (already cleaned: shared memberName). */
  actor?: string | undefined;
  /**
   * The tap link whose key made it, if one did: it may tap only its scope in its directions and
   * undo only its own taps (tap-links.ts); its entries name it beside the member.
   */
  link?: TapGrant | undefined;
}

/**
 * An operation as it is applied, with the change number it takes if it succeeds: what its
 * activity entries (activity.ts) and its answer (outcomes.ts) are made from.
 */
export interface SequencedOperation {
  operation: Operation;
  seq: number;
}

export type OperationOutcome =
  | {
      ok: true;
      result: MutationResult;
      /** What subscribers must hear; empty when the operation was a replay of an earlier one. */
      changes: Change[];
      replayed: boolean;
    }
  | {
      ok: false;
      code: ErrorCode;
      message: string;
      /**
       * What subscribers must hear although this operation was refused: the batch ended a
       * period it found due (domain/periods.ts) and announces it with the group's first outcome.
       */
      changes?: Change[];
    };

/** Whether a tap carries a note or an earlier time (ADR 36): it is then applied alone. */
export const hasTapContext = (mutation: Extract<Mutation, { kind: 'adjustCounter' }>): boolean =>
  mutation.note !== undefined || mutation.at !== undefined;

/** A group as clients may see it: without its key hashes. */
export const publicGroup = ({
  keyHash: _key,
  viewKeyHash: _view,
  tapLinks: _links,
  ...group
}: GroupRecord): Group => group;

/** Each group's changes of a committed batch, in change-number order. */
export function changesByGroup(
  operations: readonly Operation[],
  outcomes: readonly OperationOutcome[],
): Map<string, Change[]> {
  const byGroup = new Map<string, Change[]>();
  outcomes.forEach((outcome, index) => {
    const groupId = operations[index]?.groupId;
    const changes = outcome.changes ?? [];
    if (changes.length === 0 || groupId === undefined) return;
    const list = byGroup.get(groupId) ?? [];
    list.push(...changes);
    byGroup.set(groupId, list);
  });
  // Coalesced steps take their change number when they are applied, after singles that came
  // later in the batch, so the changes are put back in change-number order.
  for (const changes of byGroup.values()) changes.sort((a, b) => a.seq - b.seq);
  return byGroup;
}
