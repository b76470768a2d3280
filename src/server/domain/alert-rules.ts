/**
 * Which alert rules (src/shared/alerts.ts) fire for one change of a counter, and what each one
 * says: pure functions of the group's rules and the counter before and after, so the commit can
 * ask them with what it already holds and delivery can send what they answer.
 *
 * A rule fires once per crossing: a change from `before` to `after` crosses a threshold when the
 * threshold lies between them (one end included, as each kind says); taps that stay on the same
 * side cross nothing, and moving away and back is a new crossing. The thresholds are the
 * counter's as the change left it (its goal, its limits): an edit of the goal or the limits moves
 * no value and fires nothing by itself. A counter created, restored or deleted fires nothing (it
 * did not count across anything), and a period's reset is not a crossing either: it is
 * announced by `periodEnd` rules (`periodEndAlerts`), with the period's total.
 */
import { capacityState } from '../../shared/capacity.js';
import type { Counter } from '../../shared/api.js';
import {
  ALERT_EVERY_MAX_PER_CHANGE,
  ALERT_MESSAGES,
  MAX_ALERT_DESTINATIONS_PER_GROUP,
  MAX_ALERT_RULES_PER_GROUP,
  alertRuleSummary,
  fitAlertBody,
  type AlertCapacityState,
  type AlertEventBody,
  type AlertRule,
  type AlertRuleInput,
} from '../../shared/alerts.js';
import type { PeriodWrite } from './commit-io.js';
import { reaches } from './limits.js';

/** A union's members each without the keys K (Omit of a union would merge them into one). */
type Without<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/**
 * What fires: the webhook's body without the group and the rule, which the sender adds
 * (`alertEventBody`), and with the id of the rule that fired.
 */
export type AlertEvent = Without<AlertEventBody, 'group' | 'rule'> & { ruleId: string };

/** One change of one counter, as the commit knows it. */
export interface AlertChange {
  /** The counter before the change; null when the change created or restored it. */
  before: Counter | null;
  /** The counter after the change; null when the change deleted it. */
  after: Counter | null;
  /** Who made the change; null when no member is known. */
  by: string | null;
  /** When the change was made, epoch ms. */
  at: number;
}

/** An ended period of a counter that resets (periods.ts), as the commit writes it. */
export interface EndedPeriod {
  /** The counter as the reset left it (back at its start value). */
  counter: Counter;
  /** The period's bounds and the value it ended with (its total). */
  period: Pick<PeriodWrite, 'start' | 'end' | 'value'>;
}

/** A card's capacity level (docs/product.md#counter-card), named as capacity rules name it. */
export type CapacityLevel = 'room' | AlertCapacityState;

const LEVEL_ORDER: Record<CapacityLevel, number> = { room: 0, nearlyFull: 1, full: 2 };

/**
 * How full a counter with a maximum is at `value` (shared/capacity.ts: the card reads the same
 * rule, so an alert and the card never disagree); null without a maximum.
 */
export function capacityLevel(
  limits: Pick<Counter, 'min' | 'max'>,
  value: number,
): CapacityLevel | null {
  return capacityState({ value, min: limits.min, max: limits.max });
}

/** Whether a rule watches a counter: the one it names, the counters of its section, or all. */
export function ruleWatches(
  rule: Pick<AlertRule, 'counterId' | 'section'>,
  counter: Pick<Counter, 'id' | 'section'>,
): boolean {
  if (rule.counterId !== null) return rule.counterId === counter.id;
  if (rule.section !== null) return rule.section === counter.section;
  return true;
}

/** Largest `every` whose remainder sums stay exact in doubles (less than 2 × every). */
const MAX_SAFE_HALF = Math.floor(Number.MAX_SAFE_INTEGER / 2);

/** a ÷ b rounded down (toward −∞), b > 0: BigInt division rounds toward zero. */
function floorDiv(a: bigint, b: bigint): bigint {
  const quotient = a / b;
  return a % b !== 0n && a < 0n ? quotient - 1n : quotient;
}

/**
 * The positive multiples of `every` in (from, to], going up only, at most
 * ALERT_EVERY_MAX_PER_CHANGE of them: the highest ones (nearest the new value), in ascending
 * order. Exact over the whole range (BigInt): a double's division can round onto a multiple.
 */
export function multiplesCrossed(from: number, to: number, every: number): number[] {
  if (to <= from || every < 1) return [];
  // The highest multiple at or below `to`, exact in doubles for safe integers (% is exact):
  // at or below `from` (or not positive), nothing was crossed, which is most taps' answer.
  if (Number.isSafeInteger(to) && Number.isSafeInteger(every) && every <= MAX_SAFE_HALF) {
    const highest = to - (((to % every) + every) % every);
    if (highest <= from || highest < every) return [];
  }
  const step = BigInt(every);
  const last = floorDiv(BigInt(to), step);
  let first = floorDiv(BigInt(from), step) + 1n;
  if (first < 1n) first = 1n;
  const bounded = last - BigInt(ALERT_EVERY_MAX_PER_CHANGE) + 1n;
  if (first < bounded) first = bounded;
  const multiples: number[] = [];
  for (let k = first; k <= last; k += 1n) multiples.push(Number(k * step));
  return multiples;
}

type EventDetail = Without<AlertEvent, 'ruleId' | 'counter' | 'by' | 'at'>;

/** What one rule says about a move of `counter`'s value from `from` to its value now. */
function crossings(rule: AlertRule, counter: Counter, from: number): EventDetail[] {
  const to = counter.value;
  const { when } = rule;
  switch (when.kind) {
    case 'reaches':
      return from < when.value && when.value <= to ? [{ type: 'counter.reached' }] : [];
    case 'fallsTo':
      return from > when.value && when.value >= to ? [{ type: 'counter.fell' }] : [];
    case 'goal':
      return reaches(counter, BigInt(from), BigInt(to)) ? [{ type: 'counter.goal' }] : [];
    case 'every':
      return multiplesCrossed(from, to, when.value).map((multiple) => ({
        type: 'counter.every',
        multiple,
      }));
    case 'capacity': {
      const was = capacityLevel(counter, from);
      const now = capacityLevel(counter, to);
      if (was === null || now === null) return [];
      const threshold = LEVEL_ORDER[when.state];
      const change =
        LEVEL_ORDER[was] < threshold && LEVEL_ORDER[now] >= threshold
          ? 'entered'
          : LEVEL_ORDER[was] >= threshold && LEVEL_ORDER[now] < threshold
            ? 'left'
            : null;
      return change === null
        ? []
        : [{ type: 'counter.capacity', capacity: { state: when.state, change } }];
    }
    case 'periodEnd':
      return [];
  }
}

/**
 * The alerts one change of a counter fires, rule by rule in the rules' order (an `every` rule's
 * multiples in ascending order). Rules that name another counter or another section (the
 * counter's section after the change) are skipped, and so are rules of a deleted counter: it
 * changes no more.
 */
export function alertsFor(rules: readonly AlertRule[], change: AlertChange): AlertEvent[] {
  const { before, after } = change;
  if (before === null || after === null || before.value === after.value) return [];
  // Most taps fire nothing: what an event names is made only for the first one that fires.
  let named: Pick<AlertEvent, 'counter' | 'by' | 'at'> | undefined;
  const events: AlertEvent[] = [];
  for (const rule of rules) {
    if (!ruleWatches(rule, after)) continue;
    for (const detail of crossings(rule, after, before.value)) {
      named ??= {
        counter: { id: after.id, name: after.name, value: after.value },
        by: change.by,
        at: new Date(change.at).toISOString(),
      };
      events.push({ ...detail, ruleId: rule.id, ...named });
    }
  }
  return events;
}

/**
 * The alerts of a counter's ended period: one per `periodEnd` rule that watches the counter,
 * with the period's bounds and total. No member ended it (`by` is null; the activity log says
 * Tally), and it is dated at the period's end, however late the server noticed.
 */
export function periodEndAlerts(rules: readonly AlertRule[], ended: EndedPeriod): AlertEvent[] {
  const { counter, period } = ended;
  const at = new Date(period.end).toISOString();
  return rules
    .filter((rule) => rule.when.kind === 'periodEnd' && ruleWatches(rule, counter))
    .map((rule) => ({
      type: 'counter.period',
      ruleId: rule.id,
      counter: { id: counter.id, name: counter.name, value: counter.value },
      by: null,
      at,
      period: {
        start: new Date(period.start).toISOString(),
        end: at,
        total: period.value,
      },
    }));
}

/**
 * The body a webhook receives for an event of `rule` (the rule that fired) in the group named
 * `group`: the rule without its secrets, within ALERT_BODY_MAX_BYTES.
 */
export function alertEventBody(
  event: AlertEvent,
  context: { group: string; rule: AlertRule },
): AlertEventBody {
  const { ruleId: _ruleId, ...body } = event;
  return fitAlertBody({ ...body, group: context.group, rule: alertRuleSummary(context.rule) });
}

/**
 * Why a group may not hold these rules: more than MAX_ALERT_RULES_PER_GROUP, or more than
 * MAX_ALERT_DESTINATIONS_PER_GROUP distinct destinations (each webhook URL, and Web Push, counts
 * once however many rules send to it). Null when it may.
 */
export function alertRulesRefusal(rules: readonly Pick<AlertRuleInput, 'to'>[]): string | null {
  if (rules.length > MAX_ALERT_RULES_PER_GROUP) return ALERT_MESSAGES.tooManyRules;
  const destinations = new Set(rules.map(({ to }) => (to.kind === 'webhook' ? to.url : 'push')));
  if (destinations.size > MAX_ALERT_DESTINATIONS_PER_GROUP) {
    return ALERT_MESSAGES.tooManyDestinations;
  }
  return null;
}
