/**
 * What an alert says, as parts: which sentence, and the names and numbers it is filled with.
 * The server words the parts in English for every destination (Slack, Discord, ntfy, the push
 * message's title and body); a push message also carries the parts themselves, so the service
 * worker can word them in the language its member chose (the page keeps that language's
 * sentences for it). One composition, here, serves both: the English cannot drift from the
 * translations' structure.
 *
 * A sentence is a template with `{name}` placeholders. Frames wrap a sentence: where it happened,
 * whether it is a test, how many alerts it stands for. The service worker runs this module too
 * (vite.config.ts bundles it into sw.js), so it imports no library; the parts' schema is in
 * notification-words-schema.ts.
 */
import type { NotificationWords } from './notification-words-schema.js';

/** Each sentence, and the placeholders its template is filled with. */
export const NOTIFICATION_SENTENCES = {
  reached: ['counter', 'threshold'],
  reachedNow: ['counter', 'threshold', 'value'],
  fell: ['counter', 'threshold'],
  fellNow: ['counter', 'threshold', 'value'],
  goal: ['counter', 'value'],
  passed: ['counter', 'multiple'],
  passedEvery: ['counter', 'multiple', 'every'],
  full: ['counter', 'value'],
  noLongerFull: ['counter', 'value'],
  nearlyFull: ['counter', 'value'],
  noLongerNearlyFull: ['counter', 'value'],
  dayEnded: ['counter', 'total'],
  weekEnded: ['counter', 'total'],
  monthEnded: ['counter', 'total'],
  periodEnded: ['counter', 'total'],
} as const satisfies Record<string, readonly string[]>;

export type NotificationSentence = keyof typeof NOTIFICATION_SENTENCES;
export const NOTIFICATION_SENTENCE_NAMES = Object.keys(NOTIFICATION_SENTENCES) as [
  NotificationSentence,
  ...NotificationSentence[],
];

/** The frames around a sentence, and their placeholders. */
export const NOTIFICATION_FRAMES = {
  /** Where the change happened. */
  where: ['sentence', 'group'],
  /** Where, and who made it. */
  whereBy: ['sentence', 'group', 'by'],
  /** A test alert, sent from the alerts dialog (also the title's frame around the group). */
  test: ['sentence'],
  /** An alert that stands for `count` more of the group's, held back while they came too fast. */
  folded: ['sentence', 'count'],
} as const satisfies Record<string, readonly string[]>;

/** The numbers a sentence may hold. */
export const NOTIFICATION_NUMBERS = ['threshold', 'value', 'multiple', 'every', 'total'] as const;
export type NotificationNumber = (typeof NOTIFICATION_NUMBERS)[number];

/** One language's templates: every sentence, every frame, the folded frame per plural category. */
export interface NotificationTemplates {
  sentences: Record<NotificationSentence, string>;
  where: string;
  whereBy: string;
  test: string;
  /** By `Intl.PluralRules` category of the count (`other` is always there). */
  folded: Partial<Record<Intl.LDMLPluralRule, string>> & { other: string };
}

/** The server's English: what every destination but a translated notification says. */
export const ENGLISH_NOTIFICATION_TEMPLATES: NotificationTemplates = {
  sentences: {
    reached: '{counter} reached {threshold}',
    reachedNow: '{counter} reached {threshold} (now {value})',
    fell: '{counter} fell to {threshold}',
    fellNow: '{counter} fell to {threshold} (now {value})',
    goal: '{counter} reached its goal (now {value})',
    passed: '{counter} passed {multiple}',
    passedEvery: '{counter} passed {multiple} (every {every})',
    full: '{counter} is full (now {value})',
    noLongerFull: '{counter} is no longer full (now {value})',
    nearlyFull: '{counter} is nearly full (now {value})',
    noLongerNearlyFull: '{counter} is no longer nearly full (now {value})',
    dayEnded: '{counter}: the day ended with {total}',
    weekEnded: '{counter}: the week ended with {total}',
    monthEnded: '{counter}: the month ended with {total}',
    periodEnded: '{counter}: the period ended with {total}',
  },
  where: '{sentence} in {group}',
  whereBy: '{sentence} in {group} (by {by})',
  test: 'Test: {sentence}',
  folded: {
    one: '{sentence} (and {count} more alert of this group)',
    other: '{sentence} (and {count} more alerts of this group)',
  },
};

/**
 * The template with each `{name}` replaced by its value, in one pass: a value that itself holds
 * `{…}` (a counter named "{group}") is never read as a placeholder. A name with no value stays.
 */
export function fillTemplate(template: string, values: Readonly<Record<string, string>>): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => values[name] ?? whole);
}

/** How a language writes numbers and picks plural forms. */
export interface NumberWays {
  number: (value: number) => string;
  plural: (count: number) => Intl.LDMLPluralRule;
}

export const ENGLISH_NUMBERS: NumberWays = {
  number: (value) => value.toLocaleString('en-US'),
  plural: (count) => (count === 1 ? 'one' : 'other'),
};

/** The notification's title and body in the language of `templates`. */
export function wordNotification(
  words: NotificationWords,
  templates: NotificationTemplates,
  ways: NumberWays,
): { title: string; body: string } {
  const numbers: Record<string, string> = {};
  for (const [name, value] of Object.entries(words.numbers)) numbers[name] = ways.number(value);
  let body = fillTemplate(templates.sentences[words.sentence], {
    ...numbers,
    counter: words.counter,
  });
  body =
    words.by === null
      ? fillTemplate(templates.where, { sentence: body, group: words.group })
      : fillTemplate(templates.whereBy, { sentence: body, group: words.group, by: words.by });
  if (words.folded !== null) {
    const folded = templates.folded[ways.plural(words.folded)] ?? templates.folded.other;
    body = fillTemplate(folded, { sentence: body, count: ways.number(words.folded) });
  }
  if (!words.test) return { title: words.group, body };
  return {
    title: fillTemplate(templates.test, { sentence: words.group }),
    body: fillTemplate(templates.test, { sentence: body }),
  };
}
