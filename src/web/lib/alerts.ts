/**
 * Group alerts on the web (the alerts dialog): the calls of the alerts API and the words that say
 * what a rule does, where its alerts go and how its destination is doing. Types only from
 * shared/alerts.ts (its runtime is zod); this module is part of the alerts dialog's chunk, never
 * of the group screen's first load.
 */
import { plural, t } from '@lingui/core/macro';
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
    if (error.code === 'network_error') return noConnection();
    return error.serverMessage ?? error.message;
  }
  return error instanceof Error ? error.message : String(error);
}

export const noConnection = () =>
  t`Tally could not be reached. Check the connection and try again.`;

// ---- Words ------------------------------------------------------------------------------------

const count = formatNumber;

type Scope = Pick<AlertRuleView, 'counterId' | 'section'>;

/** What the rule watches, as the subject of its sentence: "Visitors", "any counter in Hall". */
export function scopeWords(rule: Scope, counters: readonly Pick<Counter, 'id' | 'name'>[]): string {
  if (rule.counterId !== null) {
    const counter = counters.find((candidate) => candidate.id === rule.counterId);
    if (counter === undefined) return t`a counter that no longer exists`;
    return counter.name === '' ? t`an unnamed counter` : counter.name;
  }
  const section = rule.section;
  return section === null ? t`any counter` : t`any counter in ${section}`;
}

/** When the rule fires, about `subject`: "When Visitors reaches 200", "Every 1,000 on any counter". */
export function whenWords(when: AlertWhen, subject: string): string {
  switch (when.kind) {
    case 'reaches': {
      const value = count(when.value);
      return t`When ${subject} reaches ${value}`;
    }
    case 'fallsTo': {
      const value = count(when.value);
      return t`When ${subject} falls to ${value}`;
    }
    case 'goal':
      return t`When ${subject} reaches its goal`;
    case 'every': {
      const value = count(when.value);
      return t`Every ${value} on ${subject}`;
    }
    case 'capacity':
      return when.state === 'full'
        ? t`When ${subject} gets full, and when it has room again`
        : t`When ${subject} gets nearly full, and when it has room again`;
    case 'periodEnd':
      return t`When a period of ${subject} ends`;
  }
}

/** A webhook format's name as members know the service: the services' own names, not words. */
const FORMAT_NAMES: Record<Exclude<WebhookFormat, 'standard'>, string> = {
  slack: 'Slack',
  discord: 'Discord',
  ntfy: 'ntfy',
};

const formatName = (format: WebhookFormat) =>
  format === 'standard' ? t`Webhook` : FORMAT_NAMES[format];

/** "Slack (hooks.slack.com)", "Web Push (3 browsers)". */
export function destinationWords(destination: AlertDestinationView): string {
  if (destination.kind === 'push') {
    const browsers = destination.subscribers;
    if (browsers === null) return t`Web Push`;
    if (browsers === 0) return t`Web Push (no browser yet)`;
    return plural(browsers, { one: 'Web Push (# browser)', other: 'Web Push (# browsers)' });
  }
  const name = destination.format === null ? t`Webhook` : formatName(destination.format);
  const host = destination.host;
  return host === null ? name : t`${name} (${host})`;
}

/** The whole rule in one line: "When Visitors reaches 200 → Slack (hooks.slack.com)". */
export function ruleWords(
  rule: Scope & Pick<AlertRuleView, 'when' | 'destination'>,
  counters: readonly Pick<Counter, 'id' | 'name'>[],
): string {
  const when = whenWords(rule.when, scopeWords(rule, counters));
  const destination = destinationWords(rule.destination);
  return t`${when} → ${destination}`;
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
        label: t`New`,
        detail:
          destination.kind === 'push' && destination.subscribers === 0
            ? t`No alert sent yet (tests do not count), and no browser has turned on notifications for this group.`
            : t`No alert sent yet (tests do not count).`,
      };
    case 'ok':
      return { label: t`Working`, detail: t`The last alert arrived.` };
    case 'retrying':
      return {
        label: t`Retrying`,
        detail: t`The last alert did not arrive; it is being tried again, for up to 24 hours.`,
      };
    case 'failing':
      return {
        label: t`Failing`,
        detail: t`An alert was given up, after 24 hours of errors or an answer that will not change. The next alert tries again; Deliveries says what went wrong.`,
      };
  }
}

function eventWords(type: AlertEventType): string {
  switch (type) {
    case 'counter.reached':
      return t`Reached`;
    case 'counter.fell':
      return t`Fell to`;
    case 'counter.goal':
      return t`Goal reached`;
    case 'counter.every':
      return t`Every`;
    case 'counter.capacity':
      return t`Capacity`;
    case 'counter.period':
      return t`Period ended`;
  }
}

/** What the attempt carried: "Test", or the kind of alert ("Reached", "Period ended"). */
export function deliveryKind(delivery: Pick<AlertDelivery, 'test' | 'type'>): string {
  return delivery.test ? t`Test` : eventWords(delivery.type);
}

/** How an attempt ended: a test is one attempt, never retried. */
export function outcomeWords(delivery: Pick<AlertDelivery, 'outcome' | 'test'>): string {
  switch (delivery.outcome) {
    case 'delivered':
      return t`Delivered`;
    case 'failed':
      return delivery.test ? t`Failed` : t`Failed, will retry`;
    case 'gaveUp':
      return t`Gave up`;
  }
}

/** "HTTP 204 · 35 ms · try 2": what the receiver answered and how long it took. */
export function attemptDetails(
  delivery: Pick<AlertDelivery, 'status' | 'durationMs' | 'attempt'>,
): string {
  const status = String(delivery.status);
  const answer = delivery.status === null ? t`No answer` : t`HTTP ${status}`;
  const duration = count(delivery.durationMs);
  if (delivery.attempt <= 1) return t`${answer} · ${duration} ms`;
  const attempt = count(delivery.attempt);
  return t`${answer} · ${duration} ms · try ${attempt}`;
}

/** The result of Send test, as one sentence that starts with how it ended. */
export function testResultWords(delivery: AlertDelivery): string {
  const details = attemptDetails(delivery);
  if (delivery.outcome === 'delivered') return t`Delivered · ${details}`;
  const error = delivery.error;
  return error === null ? t`Not delivered · ${details}` : t`Not delivered: ${error} · ${details}`;
}

/** When an attempt was made, in this browser's time zone: "3 Jun 2025, 14:05:12". */
export function attemptTime(iso: string): string {
  return new Date(iso).toLocaleString(dateLocale(), { dateStyle: 'medium', timeStyle: 'medium' });
}

/** "3 of 20 alerts · to 2 of 10 places": how much of the group's room the rules take. */
export function limitWords(list: AlertList): string {
  const destinations = new Set(list.rules.map((rule) => rule.destination.id)).size;
  const rules = count(list.rules.length);
  const maxRules = count(list.limits.rules);
  const places = count(destinations);
  const maxPlaces = count(list.limits.destinations);
  return t`${rules} of ${maxRules} alerts · sent to ${places} of ${maxPlaces} places`;
}

// ---- The form ---------------------------------------------------------------------------------

/** The form's choices of when: the six kinds, with capacity split into its two states. */
export type WhenChoice =
  'reaches' | 'fallsTo' | 'goal' | 'every' | 'nearlyFull' | 'full' | 'periodEnd';

/** The choices in the language of the moment (a function: the words follow a language switch). */
export const whenChoices = (): readonly { value: WhenChoice; label: string; hint: string }[] => [
  { value: 'reaches', label: t`Reaches a number`, hint: t`Going up to it or past it.` },
  { value: 'fallsTo', label: t`Falls to a number`, hint: t`Going down to it or below it.` },
  {
    value: 'goal',
    label: t`Reaches its goal`,
    hint: t`The counter's goal, set in Goal and limits.`,
  },
  {
    value: 'every',
    label: t`Every so many`,
    hint: t`Each time the value passes a multiple of the number, going up.`,
  },
  {
    value: 'nearlyFull',
    label: t`Gets nearly full`,
    hint: t`Near its maximum (Goal and limits); again when it has room.`,
  },
  {
    value: 'full',
    label: t`Gets full`,
    hint: t`At its maximum (Goal and limits); again when it has room.`,
  },
  {
    value: 'periodEnd',
    label: t`A period ends`,
    hint: t`For counters that reset daily, weekly or monthly: with the period’s total.`,
  },
];

/** The choices that need a number. */
export const needsNumber = (choice: WhenChoice) =>
  choice === 'reaches' || choice === 'fallsTo' || choice === 'every';

export const formatChoices = (): readonly {
  value: WebhookFormat;
  label: string;
  hint: string;
}[] => [
  {
    value: 'standard',
    label: t`Standard (signed JSON)`,
    hint: t`Tally’s own JSON, signed (Standard Webhooks) with a secret that is shown once.`,
  },
  { value: 'slack', label: FORMAT_NAMES.slack, hint: t`A Slack incoming webhook URL.` },
  { value: 'discord', label: FORMAT_NAMES.discord, hint: t`A Discord channel’s webhook URL.` },
  {
    value: 'ntfy',
    label: FORMAT_NAMES.ntfy,
    hint: t`A topic’s URL, like https://ntfy.sh/your-topic.`,
  },
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
    if (typed === '') errors.value = t`Enter a number.`;
    else if (!/^[+-]?(\d+\.?\d*|\.\d+)$/.test(typed)) errors.value = t`Enter a number, like 200.`;
    else value = Number(typed);
  }
  if (draft.to === 'webhook' && draft.url.trim() === '') errors.url = t`Enter the webhook’s URL.`;
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
