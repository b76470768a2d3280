/**
 * Group alerts on the web (the alerts dialog): the calls of the alerts API and the words that say
 * what a rule does, where its alerts go and how its destination is doing. Types only from
 * shared/alerts.ts (its runtime is zod); this module is part of the alerts dialog's chunk, never
 * of the group screen's first load.
 */
import type {
  AlertCreated,
  AlertDelivery,
  AlertDestinationView,
  AlertEventType,
  AlertList,
  AlertRuleInput,
  AlertRuleView,
  AlertWhen,
  WebhookFormat,
} from '../../shared/alerts.js';
import type { Counter } from '../../shared/api.js';
import { ApiRequestError, groupPath, request, type GroupAuth } from './api.js';
import { dateLocale, formatNumber } from '../i18n/format.js';

// ---- The API ----------------------------------------------------------------------------------

const alertsPath = (slug: string) => `${groupPath(slug)}/alerts`;
const rulePath = (slug: string, id: string) => `${alertsPath(slug)}/${encodeURIComponent(id)}`;

export function fetchAlerts({ slug, key }: GroupAuth): Promise<AlertList> {
  return request<AlertList>('GET', alertsPath(slug), { key });
}

export function createAlert({ slug, key }: GroupAuth, rule: AlertRuleInput): Promise<AlertCreated> {
  return request<AlertCreated>('POST', alertsPath(slug), { key, body: rule });
}

export function deleteAlert({ slug, key }: GroupAuth, id: string): Promise<undefined> {
  return request<undefined>('DELETE', rulePath(slug, id), { key });
}

/** The attempts to reach the rule's destination, newest first. */
export function fetchDeliveries({ slug, key }: GroupAuth, id: string): Promise<AlertDelivery[]> {
  return request<{ deliveries: AlertDelivery[] }>('GET', `${rulePath(slug, id)}/deliveries`, {
    key,
  }).then((answer) => answer.deliveries);
}

/** Sends the rule's alert as it would read, marked as a test; answers the one attempt made. */
export function sendTestAlert({ slug, key }: GroupAuth, id: string): Promise<AlertDelivery> {
  return request<{ delivery: AlertDelivery }>('POST', `${rulePath(slug, id)}/test`, { key }).then(
    (answer) => answer.delivery,
  );
}

/** What went wrong, for the screen: the server's own message when it sent one. */
export function problemWords(error: unknown): string {
  if (error instanceof ApiRequestError) {
    if (error.code === 'network_error') return NO_CONNECTION;
    return error.serverMessage ?? error.message;
  }
  return error instanceof Error ? error.message : String(error);
}

export const NO_CONNECTION = 'Tally could not be reached. Check the connection and try again.';

// ---- Words ------------------------------------------------------------------------------------

const count = formatNumber;

type Scope = Pick<AlertRuleView, 'counterId' | 'section'>;

/** What the rule watches, as the subject of its sentence: "Visitors", "any counter in Hall". */
export function scopeWords(rule: Scope, counters: readonly Pick<Counter, 'id' | 'name'>[]): string {
  if (rule.counterId !== null) {
    const counter = counters.find((candidate) => candidate.id === rule.counterId);
    if (counter === undefined) return 'a counter that no longer exists';
    return counter.name === '' ? 'an unnamed counter' : counter.name;
  }
  return rule.section === null ? 'any counter' : `any counter in ${rule.section}`;
}

/** When the rule fires, about `subject`: "When Visitors reaches 200", "Every 1,000 on any counter". */
export function whenWords(when: AlertWhen, subject: string): string {
  switch (when.kind) {
    case 'reaches':
      return `When ${subject} reaches ${count(when.value)}`;
    case 'fallsTo':
      return `When ${subject} falls to ${count(when.value)}`;
    case 'goal':
      return `When ${subject} reaches its goal`;
    case 'every':
      return `Every ${count(when.value)} on ${subject}`;
    case 'capacity':
      return when.state === 'full'
        ? `When ${subject} gets full, and when it has room again`
        : `When ${subject} gets nearly full, and when it has room again`;
    case 'periodEnd':
      return `When a period of ${subject} ends`;
  }
}

/** A webhook format's name as members know the service. */
export const FORMAT_NAMES: Record<WebhookFormat, string> = {
  standard: 'Webhook',
  slack: 'Slack',
  discord: 'Discord',
  ntfy: 'ntfy',
};

/** "Slack (hooks.slack.com)", "Web Push (3 browsers)". */
export function destinationWords(destination: AlertDestinationView): string {
  if (destination.kind === 'push') {
    const browsers = destination.subscribers;
    if (browsers === null) return 'Web Push';
    if (browsers === 0) return 'Web Push (no browser yet)';
    return `Web Push (${count(browsers)} ${browsers === 1 ? 'browser' : 'browsers'})`;
  }
  const name = destination.format === null ? 'Webhook' : FORMAT_NAMES[destination.format];
  return destination.host === null ? name : `${name} (${destination.host})`;
}

/** The whole rule in one line: "When Visitors reaches 200 → Slack (hooks.slack.com)". */
export function ruleWords(
  rule: Scope & Pick<AlertRuleView, 'when' | 'destination'>,
  counters: readonly Pick<Counter, 'id' | 'name'>[],
): string {
  return `${whenWords(rule.when, scopeWords(rule, counters))} → ${destinationWords(rule.destination)}`;
}

export type StateTone = 'new' | 'ok' | 'retrying' | 'failing';

/**
 * Where a destination stands, in words on screen (a colour alone would say nothing to many):
 * a short label and what it means for the member.
 */
export function stateWords(destination: AlertDestinationView): { label: string; detail: string } {
  switch (destination.state) {
    case 'new':
      return {
        label: 'New',
        detail:
          destination.kind === 'push' && destination.subscribers === 0
            ? 'No alert sent yet (tests do not count), and no browser has turned on notifications for this group.'
            : 'No alert sent yet (tests do not count).',
      };
    case 'ok':
      return { label: 'Working', detail: 'The last alert arrived.' };
    case 'retrying':
      return {
        label: 'Retrying',
        detail: 'The last alert did not arrive; it is being tried again, for up to 24 hours.',
      };
    case 'failing':
      return {
        label: 'Failing',
        detail:
          'An alert was given up, after 24 hours of errors or an answer that will not change. The next alert tries again; Deliveries says what went wrong.',
      };
  }
}

const EVENT_WORDS: Record<AlertEventType, string> = {
  'counter.reached': 'Reached',
  'counter.fell': 'Fell to',
  'counter.goal': 'Goal reached',
  'counter.every': 'Every',
  'counter.capacity': 'Capacity',
  'counter.period': 'Period ended',
};

/** What the attempt carried: "Test", or the kind of alert ("Reached", "Period ended"). */
export function deliveryKind(delivery: Pick<AlertDelivery, 'test' | 'type'>): string {
  return delivery.test ? 'Test' : EVENT_WORDS[delivery.type];
}

/** How an attempt ended: a test is one attempt, never retried. */
export function outcomeWords(delivery: Pick<AlertDelivery, 'outcome' | 'test'>): string {
  switch (delivery.outcome) {
    case 'delivered':
      return 'Delivered';
    case 'failed':
      return delivery.test ? 'Failed' : 'Failed, will retry';
    case 'gaveUp':
      return 'Gave up';
  }
}

/** "HTTP 204 · 35 ms · try 2": what the receiver answered and how long it took. */
export function attemptDetails(
  delivery: Pick<AlertDelivery, 'status' | 'durationMs' | 'attempt'>,
): string {
  const answer = delivery.status === null ? 'No answer' : `HTTP ${String(delivery.status)}`;
  const tries = delivery.attempt > 1 ? ` · try ${count(delivery.attempt)}` : '';
  return `${answer} · ${count(delivery.durationMs)} ms${tries}`;
}

/** The result of Send test, as one sentence that starts with how it ended. */
export function testResultWords(delivery: AlertDelivery): string {
  const details = attemptDetails(delivery);
  if (delivery.outcome === 'delivered') return `Delivered · ${details}`;
  return delivery.error === null
    ? `Not delivered · ${details}`
    : `Not delivered: ${delivery.error} · ${details}`;
}

/** When an attempt was made, in this browser's time zone: "3 Jun 2025, 14:05:12". */
export function attemptTime(iso: string): string {
  return new Date(iso).toLocaleString(dateLocale(), { dateStyle: 'medium', timeStyle: 'medium' });
}

/** "3 of 20 alerts · to 2 of 10 places": how much of the group's room the rules take. */
export function limitWords(list: AlertList): string {
  const destinations = new Set(list.rules.map((rule) => rule.destination.id)).size;
  const alerts = `${count(list.rules.length)} of ${count(list.limits.rules)} alerts`;
  return `${alerts} · sent to ${count(destinations)} of ${count(list.limits.destinations)} places`;
}

// ---- The form ---------------------------------------------------------------------------------

/** The form's choices of when: the six kinds, with capacity split into its two states. */
export type WhenChoice =
  'reaches' | 'fallsTo' | 'goal' | 'every' | 'nearlyFull' | 'full' | 'periodEnd';

export const WHEN_CHOICES: readonly { value: WhenChoice; label: string; hint: string }[] = [
  { value: 'reaches', label: 'Reaches a number', hint: 'Going up to it or past it.' },
  { value: 'fallsTo', label: 'Falls to a number', hint: 'Going down to it or below it.' },
  {
    value: 'goal',
    label: 'Reaches its goal',
    hint: "The counter's goal, set in Goal and limits.",
  },
  {
    value: 'every',
    label: 'Every so many',
    hint: 'Each time the value passes a multiple of the number, going up.',
  },
  {
    value: 'nearlyFull',
    label: 'Gets nearly full',
    hint: 'Near its maximum (Goal and limits); again when it has room.',
  },
  {
    value: 'full',
    label: 'Gets full',
    hint: 'At its maximum (Goal and limits); again when it has room.',
  },
  {
    value: 'periodEnd',
    label: 'A period ends',
    hint: 'For counters that reset daily, weekly or monthly: with the period’s total.',
  },
];

/** The choices that need a number. */
export const needsNumber = (choice: WhenChoice) =>
  choice === 'reaches' || choice === 'fallsTo' || choice === 'every';

export const FORMAT_CHOICES: readonly { value: WebhookFormat; label: string; hint: string }[] = [
  {
    value: 'standard',
    label: 'Standard (signed JSON)',
    hint: 'Tally’s own JSON, signed (Standard Webhooks) with a secret that is shown once.',
  },
  { value: 'slack', label: 'Slack', hint: 'A Slack incoming webhook URL.' },
  { value: 'discord', label: 'Discord', hint: 'A Discord channel’s webhook URL.' },
  { value: 'ntfy', label: 'ntfy', hint: 'A topic’s URL, like https://ntfy.sh/your-topic.' },
];

/** The format a webhook URL's host says it is, or null when it does not say. */
export function formatOfUrl(text: string): WebhookFormat | null {
  const host = /^\s*(?:https?:\/\/)?([^/?#\s:]+)/i.exec(text)?.[1]?.toLowerCase() ?? '';
  if (host === 'hooks.slack.com') return 'slack';
  if (/(^|\.)discord(app)?\.com$/.test(host)) return 'discord';
  if (host === 'ntfy.sh') return 'ntfy';
  return null;
}

export interface AlertDraft {
  /** 'all', `counter:{id}` or `section:{name}`. */
  scope: string;
  when: WhenChoice;
  /** The number as typed. */
  value: string;
  to: 'webhook' | 'push';
  url: string;
  format: WebhookFormat;
}

export type DraftField = 'value' | 'url';

export type DraftResult =
  { ok: true; rule: AlertRuleInput } | { ok: false; errors: Partial<Record<DraftField, string>> };

/**
 * The rule the form describes. Only what is plainly missing is refused here (an empty field, a
 * number that is not one); ranges, URLs and limits are the server's to judge, in its own words.
 */
export function ruleOfDraft(draft: AlertDraft): DraftResult {
  const errors: Partial<Record<DraftField, string>> = {};
  let value = 0;
  if (needsNumber(draft.when)) {
    // Digit grouping as people type it (1,000 or 1 000); a real minus sign as a hyphen.
    const typed = draft.value.replace(/[\s,_]/g, '').replace('\u2212', '-');
    if (typed === '') errors.value = 'Enter a number.';
    else if (!/^[+-]?(\d+\.?\d*|\.\d+)$/.test(typed)) errors.value = 'Enter a number, like 200.';
    else value = Number(typed);
  }
  if (draft.to === 'webhook' && draft.url.trim() === '') errors.url = 'Enter the webhook’s URL.';
  if (Object.keys(errors).length > 0) return { ok: false, errors };

  const when: AlertWhen =
    draft.when === 'nearlyFull' || draft.when === 'full'
      ? { kind: 'capacity', state: draft.when }
      : draft.when === 'goal' || draft.when === 'periodEnd'
        ? { kind: draft.when }
        : { kind: draft.when, value };
  const counterId = draft.scope.startsWith('counter:')
    ? draft.scope.slice('counter:'.length)
    : null;
  const section = draft.scope.startsWith('section:') ? draft.scope.slice('section:'.length) : null;
  return {
    ok: true,
    rule: {
      counterId,
      section,
      when,
      to:
        draft.to === 'webhook'
          ? { kind: 'webhook', url: draft.url.trim(), format: draft.format }
          : { kind: 'push' },
    },
  };
}
