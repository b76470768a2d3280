/**
 * Alerts by Web Push in the member's language. A push message carries its alert as parts
 * (src/shared/notification-words.ts); the service worker, which has no catalogs, words them with
 * the sentences this page keeps for it in the language in effect. They are kept when
 * notifications are turned on and again whenever the language changes, so the next notification
 * speaks the language the member last chose. A page in English keeps only that, and the worker
 * shows the server's English as it is.
 *
 * Each sentence is its catalog message rendered with `{name}` in place of each value, which the
 * worker fills in. Plurals are chosen by number, so the folded frame is rendered once per plural
 * category of the language, with a number of that category, which then becomes `{count}`.
 */
import { plural, t } from '@lingui/core/macro';
import { i18n } from '@lingui/core';
import type { NotificationTemplates } from '../../shared/notification-words.js';

/** The cache the service worker reads the kept sentences from (sw.js). */
export const NOTIFICATION_WORDS_CACHE = 'tally-notification-words';
export const NOTIFICATION_WORDS_REQUEST = '/notification-words';

/** What is kept: the language, and its sentences unless it is English. */
export interface KeptNotificationWords {
  locale: string;
  templates: NotificationTemplates | null;
}

/** Numbers tried to find one of each plural category (French's "many" is a million). */
const PLURAL_SAMPLES = [...Array.from({ length: 201 }, (_, index) => index), 1_000_000];

/** The folded frame, rendered for `count` alerts. */
function foldedFrame(count: number): string {
  const sentence = '{sentence}';
  return t`${sentence} (and ${plural(count, { one: '# more alert', other: '# more alerts' })} of this group)`;
}

/** The folded frame for each plural category of the language, `{count}` where the number goes. */
function foldedTemplates(locale: string): NotificationTemplates['folded'] {
  const rules = new Intl.PluralRules(locale);
  const numbers = new Intl.NumberFormat(locale);
  // A form that leaves the number out ("two alerts" in one word) has no {count}: that is right.
  const form = (sample: number) => foldedFrame(sample).replace(numbers.format(sample), '{count}');
  const templates: Partial<Record<Intl.LDMLPluralRule, string>> = {};
  for (const category of rules.resolvedOptions().pluralCategories) {
    const sample = PLURAL_SAMPLES.find((count) => rules.select(count) === category);
    if (sample !== undefined) templates[category] = form(sample);
  }
  // Every language has `other` (CLDR); the type cannot know it.
  return { ...templates, other: templates.other ?? form(100) };
}

/** The sentences of the language in effect, `{name}` where each value goes. */
export function notificationTemplates(): NotificationTemplates {
  const counter = '{counter}';
  const threshold = '{threshold}';
  const value = '{value}';
  const multiple = '{multiple}';
  const every = '{every}';
  const total = '{total}';
  const sentence = '{sentence}';
  const group = '{group}';
  const by = '{by}';
  return {
    sentences: {
      reached: t`${counter} reached ${threshold}`,
      reachedNow: t`${counter} reached ${threshold} (now ${value})`,
      fell: t`${counter} fell to ${threshold}`,
      fellNow: t`${counter} fell to ${threshold} (now ${value})`,
      goal: t`${counter} reached its goal (now ${value})`,
      passed: t`${counter} passed ${multiple}`,
      passedEvery: t`${counter} passed ${multiple} (every ${every})`,
      full: t`${counter} is full (now ${value})`,
      noLongerFull: t`${counter} is no longer full (now ${value})`,
      nearlyFull: t`${counter} is nearly full (now ${value})`,
      noLongerNearlyFull: t`${counter} is no longer nearly full (now ${value})`,
      dayEnded: t`${counter}: the day ended with ${total}`,
      weekEnded: t`${counter}: the week ended with ${total}`,
      monthEnded: t`${counter}: the month ended with ${total}`,
      periodEnded: t`${counter}: the period ended with ${total}`,
    },
    where: t`${sentence} in ${group}`,
    whereBy: t`${sentence} in ${group} (by ${by})`,
    test: t`Test: ${sentence}`,
    folded: foldedTemplates(i18n.locale),
  };
}

/**
 * What the page keeps for the language in effect (`english`: the source language, whose words
 * the server sends itself).
 */
export function notificationWordsOf(english: boolean): KeptNotificationWords {
  return { locale: i18n.locale, templates: english ? null : notificationTemplates() };
}

/** Keeps the language in effect's sentences for the service worker. */
export async function keepNotificationWords(english: boolean): Promise<void> {
  if (typeof caches === 'undefined') return;
  const cache = await caches.open(NOTIFICATION_WORDS_CACHE);
  const kept = notificationWordsOf(english);
  await cache.put(
    NOTIFICATION_WORDS_REQUEST,
    new Response(JSON.stringify(kept), { headers: { 'content-type': 'application/json' } }),
  );
}
