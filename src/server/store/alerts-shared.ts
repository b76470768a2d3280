/** What both stores' alerts (store/alerts.ts) decide alike, apart from their SQL. */
import type { AlertDeliveryOutcome, AlertDestinationState } from '../../shared/alerts.js';

/**
 * Where a destination stands: retrying while one of its alerts failed and waits for another
 * try, else as its last real (not test) attempt ended; new before any.
 */
export function stateOf(
  retrying: boolean,
  lastOutcome: AlertDeliveryOutcome | null,
): AlertDestinationState {
  if (retrying) return 'retrying';
  switch (lastOutcome) {
    case null:
      return 'new';
    case 'delivered':
      return 'ok';
    case 'gaveUp':
      return 'failing';
    case 'failed':
      return 'retrying';
  }
}

/**
 * The body that stands for several waiting alerts of one destination: the newest one's, with
 * `folded` counting the others (and what each of them had folded already).
 */
export function foldedBody(bodies: readonly string[]): string {
  let folded = 0;
  let newest: Record<string, unknown> = {};
  bodies.forEach((text, index) => {
    const body = JSON.parse(text) as Record<string, unknown>;
    const already = typeof body.folded === 'number' ? body.folded : 0;
    folded += already + (index < bodies.length - 1 ? 1 : 0);
    if (index === bodies.length - 1) newest = body;
  });
  return JSON.stringify({ ...newest, folded });
}
