/**
 * What a group remembers of a client session's numbered taps (ADR 24): the highest number
 * applied and one bit for each of the OPERATION_SESSION_WINDOW numbers below it. One row per
 * group and session, rewritten in place, instead of one operation-id row per tap.
 *
 * Exact: a number is known applied or not as long as it is within the window; a number further
 * behind is `expired` and refused, never applied a second time. Taps that were refused (a limit,
 * busy) are not marked, so a retry is checked again like a new tap, as with opaque ids.
 */
import { OPERATION_SESSION_WINDOW } from '../../shared/limits.js';
import { parseNumberedId, type NumberedOperationId } from '../../shared/operation-ids.js';
import { hasTapContext, type Operation, type OperationOutcome } from './operations.js';
import { counterNotFound, operationExpired } from './outcomes.js';
import type { BatchState } from './state.js';

/** The key of an operation id or a session within its group. */
export const keyOf = (groupId: string, opId: string) => `${groupId}\u0000${opId}`;

export interface SessionWindow {
  /** The highest number applied. */
  high: number;
  /** Bit i: number `high − i` was applied (bit 0 is `high` itself), for i < the window. */
  seen: bigint;
}

export type NumberState = 'applied' | 'new' | 'expired';

const WINDOW = BigInt(OPERATION_SESSION_WINDOW);
const MASK = (1n << WINDOW) - 1n;

/** Whether number `n` of the session was applied, according to its window (none: new). */
export function numberState(window: SessionWindow | undefined, n: number): NumberState {
  if (window === undefined || n > window.high) return 'new';
  const back = window.high - n;
  if (back >= OPERATION_SESSION_WINDOW) return 'expired';
  return (window.seen >> BigInt(back)) & 1n ? 'applied' : 'new';
}

/** The window after number `n` was applied. */
export function withNumber(window: SessionWindow | undefined, n: number): SessionWindow {
  if (window === undefined) return { high: n, seen: 1n };
  const { high, seen } = window;
  if (n > high) {
    const shift = n - high;
    return {
      high: n,
      seen: shift >= OPERATION_SESSION_WINDOW ? 1n : ((seen << BigInt(shift)) | 1n) & MASK,
    };
  }
  const back = high - n;
  // Applied in the same batch after a number a whole window ahead: nothing left to record it in
  // (a retry of it is expired, refused).
  if (back >= OPERATION_SESSION_WINDOW) return window;
  return { high, seen: seen | (1n << BigInt(back)) };
}

/** The bits as stored: lowercase hex, at most OPERATION_SESSION_WINDOW / 4 characters. */
export const seenText = (seen: bigint): string => seen.toString(16);

/** The bits from their stored text. */
export const seenFromText = (text: string): bigint => BigInt(`0x${text}`);

/**
 * The session and number of a numbered tap (ADR 24): remembered in its session's window, not in
 * an operation-id row of its own. Every other change keeps its own row, whatever its id's form.
 */
export function numberedTap(operation: Operation): NumberedOperationId | undefined {
  const { opId, mutation } = operation;
  // A tap with a note or an earlier time is applied alone: its id gets a row like a non-tap's.
  return opId !== undefined && mutation.kind === 'adjustCounter' && !hasTapContext(mutation)
    ? parseNumberedId(opId)
    : undefined;
}

/**
 * A numbered tap its session already applied is answered with the counter as it is now (it
 * includes the tap), like a coalesced tap; one too far behind is refused, never applied twice.
 */
export function replayNumbered(
  batch: BatchState,
  operation: Operation,
  { session, n }: NumberedOperationId,
): OperationOutcome | undefined {
  const { groupId, mutation } = operation;
  const state = numberState(batch.sessions.get(keyOf(groupId, session)), n);
  if (state === 'new') return undefined;
  if (state === 'expired') return operationExpired();
  if (mutation.kind !== 'adjustCounter') return undefined;
  const counter = batch.counterOf(groupId, mutation.counterId);
  if (!counter) return counterNotFound();
  const result = { kind: 'counter', counter: counter.counter, created: false } as const;
  return { ok: true, result, changes: [], replayed: true };
}

/** A numbered tap applied: its session's window moves (written once, at the end). */
export function rememberNumber(
  batch: BatchState,
  groupId: string,
  { session, n }: NumberedOperationId,
): void {
  const key = keyOf(groupId, session);
  batch.sessions.set(key, withNumber(batch.sessions.get(key), n));
  batch.movedSessions.set(key, { groupId, session });
}
