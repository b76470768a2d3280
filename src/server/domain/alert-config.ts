/**
 * A group's alert rules and where they send (src/shared/alerts.ts), as the group's row holds
 * them, and the changes members make to them: adding a rule (to a destination it shares with
 * the group's other rules of the same address), removing one, and the rules that go with a
 * deleted counter. Which rules fire for a change is alert-rules.ts; what the commit writes for
 * them (the outbox) is `alertWrites`.
 *
 * The rules live in the group's row, so the commit has them with the group it locks anyway: a
 * group without rules costs a tap nothing, and a rule added or removed is ordered with the taps
 * around it.
 */
import { ALERT_MESSAGES, type AlertRule, type WebhookFormat } from '../../shared/alerts.js';
import type { Change } from '../../shared/protocol.js';
import { alertEventBody, alertRulesRefusal, alertsFor, type AlertChange } from './alert-rules.js';
import type { AlertEvent } from './alert-rules.js';
import { publicGroup, type StoreMutation } from './operations.js';
import { counterNotFound, failed, groupNotFound, type Applied } from './outcomes.js';
import type { GroupState, OperationContext } from './state.js';

/** Where a group's alerts go: one webhook address, or the group's Web Push subscribers. */
export type StoredDestination =
  | {
      id: string;
      kind: 'webhook';
      url: string;
      format: WebhookFormat;
      /** A `standard` destination's signing secret (whsec_…); null for the other formats. */
      secret: string | null;
      /** The origin the group's link in an alert starts with (https://tally.example). */
      linkBase: string;
    }
  | { id: string; kind: 'push' };

/** A rule as the group's row keeps it: what the API took, its destination, when it was made. */
export interface StoredAlertRule extends AlertRule {
  destinationId: string;
  /** Epoch ms. */
  createdAt: number;
}

/** Every rule of a group, oldest first, and the destinations they send to. */
export interface GroupAlerts {
  readonly rules: readonly StoredAlertRule[];
  readonly destinations: readonly StoredDestination[];
}

export const NO_ALERTS: GroupAlerts = Object.freeze({ rules: [], destinations: [] });

/** One alert for the outbox: written in the commit that fired it, delivered after it. */
export interface AlertWrite {
  groupId: string;
  destinationId: string;
  /** The webhook body (AlertEventBody) as JSON; the other formats are written from it. */
  body: string;
  /** Epoch ms of the change that fired it. */
  at: number;
}

/** The group's rules as stored: null when it has none. */
export function alertsText(alerts: GroupAlerts): string | null {
  return alerts.rules.length === 0 ? null : JSON.stringify(alerts);
}

/** The group's rules from their stored text (written by `alertsText` only). */
export function parseAlerts(text: string | null): GroupAlerts {
  if (text === null || text === '') return NO_ALERTS;
  const parsed = JSON.parse(text) as Partial<GroupAlerts> | null;
  return {
    rules: Array.isArray(parsed?.rules) ? parsed.rules : [],
    destinations: Array.isArray(parsed?.destinations) ? parsed.destinations : [],
  };
}

/** The destination a rule sends to. */
export function destinationOf(
  alerts: GroupAlerts,
  rule: Pick<StoredAlertRule, 'destinationId'>,
): StoredDestination | undefined {
  return alerts.destinations.find((destination) => destination.id === rule.destinationId);
}

/** Whether two destinations are the same place: one webhook address, or Web Push. */
const samePlace = (a: StoredDestination, b: StoredDestination): boolean =>
  a.kind === 'push' ? b.kind === 'push' : b.kind === 'webhook' && a.url === b.url;

/**
 * The rules with one more, sending to `destination` or to the group's destination of the same
 * address if it has one (which keeps its id, format and secret); the refusal's message when the
 * group would pass its bounds.
 */
export function withRule(
  alerts: GroupAlerts,
  added: { rule: StoredAlertRule; destination: StoredDestination },
): GroupAlerts | { refused: string; code: 'too_many_alerts' | 'validation_failed' } {
  const existing = alerts.destinations.find((place) => samePlace(place, added.destination));
  if (
    existing?.kind === 'webhook' &&
    added.destination.kind === 'webhook' &&
    existing.format !== added.destination.format
  ) {
    // One address is one receiver: it cannot take Slack's messages and Discord's at once.
    return { refused: ALERT_MESSAGES.formatMismatch(existing.format), code: 'validation_failed' };
  }
  const rule = { ...added.rule, destinationId: (existing ?? added.destination).id };
  const rules = [...alerts.rules, rule];
  const refused = alertRulesRefusal(rules);
  if (refused !== null) return { refused, code: 'too_many_alerts' };
  const destinations = existing ? alerts.destinations : [...alerts.destinations, added.destination];
  return { rules, destinations };
}

/** Only the destinations some rule still sends to. */
function usedDestinations(
  rules: readonly StoredAlertRule[],
  destinations: readonly StoredDestination[],
): StoredDestination[] {
  const used = new Set(rules.map((rule) => rule.destinationId));
  return destinations.filter((destination) => used.has(destination.id));
}

/** The rules without `ruleId` (null when there is no such rule), and unused destinations gone. */
export function withoutRule(alerts: GroupAlerts, ruleId: string): GroupAlerts | null {
  const rules = alerts.rules.filter((rule) => rule.id !== ruleId);
  if (rules.length === alerts.rules.length) return null;
  return { rules, destinations: usedDestinations(rules, alerts.destinations) };
}

/** The rules without those of a deleted counter (the same object when it had none). */
export function withoutCounter(alerts: GroupAlerts, counterId: string): GroupAlerts {
  if (!alerts.rules.some((rule) => rule.counterId === counterId)) return alerts;
  const rules = alerts.rules.filter((rule) => rule.counterId !== counterId);
  return { rules, destinations: usedDestinations(rules, alerts.destinations) };
}

/** What the outbox gets for `events` of the group's rules: one row per event. */
export function alertWrites(
  group: GroupState,
  events: readonly AlertEvent[],
  at: number,
): AlertWrite[] {
  const writes: AlertWrite[] = [];
  for (const event of events) {
    const rule = group.alerts.rules.find((candidate) => candidate.id === event.ruleId);
    if (!rule) continue;
    const body = alertEventBody(event, { group: group.record.name, rule });
    writes.push({
      groupId: group.record.id,
      destinationId: rule.destinationId,
      body: JSON.stringify(body),
      at,
    });
  }
  return writes;
}

/** The alerts one change of a counter fires in `group`, as outbox rows. */
export function alertWritesForChange(group: GroupState, change: AlertChange): AlertWrite[] {
  if (group.alerts.rules.length === 0) return [];
  return alertWrites(group, alertsFor(group.alerts.rules, change), change.at);
}

/**
 * A member's change to the group's rules: announced as the group updated (its fields are as
 * they were: members' screens keep them), never logged in the activity (it changes no count).
 */
export function changeAlerts(
  context: OperationContext,
  mutation: Extract<StoreMutation, { kind: 'addAlertRule' | 'removeAlertRule' }>,
): Applied {
  const { batch, operation, seq } = context;
  const group = batch.groups.get(operation.groupId);
  if (!group) return failed(groupNotFound());
  let alerts: GroupAlerts;
  if (mutation.kind === 'addAlertRule') {
    const { counterId } = mutation.rule;
    if (counterId !== null && !batch.counterOf(group.record.id, counterId)) {
      return failed(counterNotFound());
    }
    const next = withRule(group.alerts, mutation);
    if ('refused' in next) {
      return failed({ ok: false, code: next.code, message: next.refused });
    }
    alerts = next;
  } else {
    const next = withoutRule(group.alerts, mutation.ruleId);
    if (next === null) {
      return failed({ ok: false, code: 'alert_not_found', message: ALERT_MESSAGES.alertNotFound });
    }
    alerts = next;
  }
  group.alerts = alerts;
  group.alertsChanged = true;
  group.changed = true;
  const record = publicGroup(group.record);
  const change: Change = { type: 'group.updated', seq, group: record };
  return {
    outcome: {
      ok: true,
      result: { kind: 'group', group: record },
      changes: [change],
      replayed: false,
    },
    drafts: [],
  };
}
