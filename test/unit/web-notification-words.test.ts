/**
 * The sentences a page keeps for its service worker, so a push notification speaks the member's
 * language: English as the server says it, word for word; every other language with the same
 * placeholders, a folded frame for each of its plural forms, and numbers written its way.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  ENGLISH_NOTIFICATION_TEMPLATES,
  NOTIFICATION_FRAMES,
  NOTIFICATION_SENTENCES,
  wordNotification,
  type NotificationSentence,
  type NotificationTemplates,
} from '../../src/shared/notification-words.js';
import type { NotificationWords } from '../../src/shared/notification-words-schema.js';
import { catalogOf, i18n } from '../../src/web/i18n/i18n.js';
import { LOCALES } from '../../src/web/i18n/locales.js';
import { PUSH_GROUPS_KEY } from '../../src/web/lib/push.js';
import { PUSH_GROUPS_KEY as STORAGE_PUSH_GROUPS_KEY } from '../../src/web/lib/storage.js';
import {
  notificationTemplates,
  notificationWordsOf,
} from '../../src/web/lib/notification-words.js';

async function speak(locale: string): Promise<void> {
  i18n.loadAndActivate({ locale, messages: await catalogOf(locale) });
}

afterEach(async () => {
  await speak('en');
});

const placeholders = (template: string) =>
  [...template.matchAll(/\{(\w+)\}/g)].map((match) => match[1]).sort();

const words: NotificationWords = {
  sentence: 'reachedNow',
  counter: 'Visitors',
  group: 'Game night',
  by: 'Ada',
  numbers: { threshold: 2000, value: 2005 },
  test: false,
  folded: 3,
};

function wordIn(locale: string, templates: NotificationTemplates, alert = words) {
  const numbers = new Intl.NumberFormat(locale);
  const plurals = new Intl.PluralRules(locale);
  return wordNotification(alert, templates, {
    number: (value) => numbers.format(value),
    plural: (count) => plurals.select(count),
  });
}

describe('the sentences kept for notifications', () => {
  it('are, in English, exactly the server’s English', () => {
    expect(notificationTemplates()).toEqual(ENGLISH_NOTIFICATION_TEMPLATES);
  });

  it('keep nothing for English: the server’s own words are shown', () => {
    expect(notificationWordsOf(true)).toEqual({ locale: 'en', templates: null });
  });

  const others = LOCALES.map((locale) => locale.code).filter((code) => code !== 'en');
  it.each(others)('in %s, translate every sentence with the same placeholders', async (code) => {
    await speak(code);
    const templates = notificationTemplates();
    for (const [sentence, names] of Object.entries(NOTIFICATION_SENTENCES)) {
      const template = templates.sentences[sentence as NotificationSentence];
      expect(template, sentence).not.toBe(
        ENGLISH_NOTIFICATION_TEMPLATES.sentences[sentence as NotificationSentence],
      );
      expect(placeholders(template), `${code} ${sentence}`).toEqual([...names].sort());
    }
    for (const frame of ['where', 'whereBy', 'test'] as const) {
      expect(placeholders(templates[frame]), `${code} ${frame}`).toEqual(
        [...NOTIFICATION_FRAMES[frame]].sort(),
      );
    }
    // One folded frame for each plural form the language has; each keeps the sentence, and
    // the count unless the form says the number in words.
    const categories = new Intl.PluralRules(code).resolvedOptions().pluralCategories;
    expect(Object.keys(templates.folded).sort()).toEqual([...categories].sort());
    for (const folded of Object.values(templates.folded)) {
      expect(folded).toContain('{sentence}');
      expect(folded).not.toMatch(/\d/);
    }
    expect(templates.folded.other).toContain('{count}');
  });
});

describe('when the sentences are kept', () => {
  it('the first load and the notifications dialog read the same list of groups', () => {
    expect(PUSH_GROUPS_KEY).toBe(STORAGE_PUSH_GROUPS_KEY);
  });
});

describe('a notification worded from the kept sentences', () => {
  it('reads naturally in German, with German number grouping and plural', async () => {
    await speak('de');
    expect(wordIn('de', notificationTemplates())).toEqual({
      title: 'Game night',
      body: 'Visitors hat 2.000 erreicht (jetzt 2.005) in Game night (von Ada) (und 3 weitere Alarme dieser Gruppe)',
    });
    expect(wordIn('de', notificationTemplates(), { ...words, folded: 1, test: true })).toEqual({
      title: 'Test: Game night',
      body: 'Test: Visitors hat 2.000 erreicht (jetzt 2.005) in Game night (von Ada) (und 1 weiterer Alarm dieser Gruppe)',
    });
  });

  it('uses Russian’s few and many forms', async () => {
    await speak('ru');
    const templates = notificationTemplates();
    expect(wordIn('ru', templates, { ...words, folded: 3 }).body).toMatch(
      /\(и ещё 3 оповещения этой группы\)$/,
    );
    expect(wordIn('ru', templates, { ...words, folded: 5 }).body).toMatch(
      /\(и ещё 5 оповещений этой группы\)$/,
    );
  });

  it('says Arabic’s two form without a number, and writes numbers as Arabic does', async () => {
    await speak('ar');
    const templates = notificationTemplates();
    expect(wordIn('ar', templates, { ...words, folded: 2 }).body).toContain('تنبيهان آخران');
    expect(wordIn('ar', templates, { ...words, folded: 5 }).body).toContain(
      new Intl.NumberFormat('ar').format(5),
    );
  });
});
