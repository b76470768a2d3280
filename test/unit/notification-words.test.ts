import { describe, expect, it } from 'vitest';
import {
  ENGLISH_NOTIFICATION_TEMPLATES,
  ENGLISH_NUMBERS,
  NOTIFICATION_FRAMES,
  NOTIFICATION_SENTENCES,
  fillTemplate,
  wordNotification,
  type NotificationSentence,
  type NumberWays,
} from '../../src/shared/notification-words.js';
import {
  NotificationWordsSchema,
  type NotificationWords,
} from '../../src/shared/notification-words-schema.js';

const words = (overrides: Partial<NotificationWords> = {}): NotificationWords => ({
  sentence: 'reached',
  counter: 'Visitors',
  group: 'Game night',
  by: 'Ada',
  numbers: { threshold: 2000 },
  test: false,
  folded: null,
  ...overrides,
});

const english = (overrides: Partial<NotificationWords>) =>
  wordNotification(words(overrides), ENGLISH_NOTIFICATION_TEMPLATES, ENGLISH_NUMBERS);

/** The placeholders a template holds, sorted. */
const placeholders = (template: string) =>
  [...template.matchAll(/\{(\w+)\}/g)].map((match) => match[1]).sort();

describe('the English of an alert', () => {
  it('says each sentence with its numbers grouped as English writes them', () => {
    const cases: [NotificationSentence, NotificationWords['numbers'], string][] = [
      ['reached', { threshold: 2000 }, 'Visitors reached 2,000'],
      ['reachedNow', { threshold: 200, value: 205 }, 'Visitors reached 200 (now 205)'],
      ['fell', { threshold: 0 }, 'Visitors fell to 0'],
      ['fellNow', { threshold: 10, value: 8 }, 'Visitors fell to 10 (now 8)'],
      ['goal', { value: 50 }, 'Visitors reached its goal (now 50)'],
      ['passed', { multiple: 3000 }, 'Visitors passed 3,000'],
      ['passedEvery', { multiple: 3000, every: 1000 }, 'Visitors passed 3,000 (every 1,000)'],
      ['full', { value: 250 }, 'Visitors is full (now 250)'],
      ['noLongerFull', { value: 249 }, 'Visitors is no longer full (now 249)'],
      ['nearlyFull', { value: 240 }, 'Visitors is nearly full (now 240)'],
      ['noLongerNearlyFull', { value: 200 }, 'Visitors is no longer nearly full (now 200)'],
      ['dayEnded', { total: 12 }, 'Visitors: the day ended with 12'],
      ['weekEnded', { total: 1200 }, 'Visitors: the week ended with 1,200'],
      ['monthEnded', { total: 5 }, 'Visitors: the month ended with 5'],
      ['periodEnded', { total: 0 }, 'Visitors: the period ended with 0'],
    ];
    expect(cases.map(([sentence]) => sentence).sort()).toEqual(
      Object.keys(NOTIFICATION_SENTENCES).sort(),
    );
    for (const [sentence, numbers, said] of cases) {
      expect(english({ sentence, numbers, by: null })).toEqual({
        title: 'Game night',
        body: `${said} in Game night`,
      });
    }
  });

  it('names who made the change, a test in title and body, and the alerts folded in', () => {
    expect(english({}).body).toBe('Visitors reached 2,000 in Game night (by Ada)');
    expect(english({ test: true })).toEqual({
      title: 'Test: Game night',
      body: 'Test: Visitors reached 2,000 in Game night (by Ada)',
    });
    expect(english({ folded: 1 }).body).toBe(
      'Visitors reached 2,000 in Game night (by Ada) (and 1 more alert of this group)',
    );
    expect(english({ folded: 1500, test: true }).body).toBe(
      'Test: Visitors reached 2,000 in Game night (by Ada) (and 1,500 more alerts of this group)',
    );
  });

  it('has every placeholder its sentence and frames are filled with, and no other', () => {
    for (const [sentence, names] of Object.entries(NOTIFICATION_SENTENCES)) {
      expect(
        placeholders(ENGLISH_NOTIFICATION_TEMPLATES.sentences[sentence as NotificationSentence]),
      ).toEqual([...names].sort());
    }
    for (const frame of ['where', 'whereBy', 'test'] as const) {
      expect(placeholders(ENGLISH_NOTIFICATION_TEMPLATES[frame])).toEqual(
        [...NOTIFICATION_FRAMES[frame]].sort(),
      );
    }
    for (const folded of Object.values(ENGLISH_NOTIFICATION_TEMPLATES.folded)) {
      expect(placeholders(folded)).toEqual([...NOTIFICATION_FRAMES.folded].sort());
    }
  });
});

describe('wording in another language', () => {
  const german: NumberWays = {
    number: (value) => new Intl.NumberFormat('de').format(value),
    plural: (count) => new Intl.PluralRules('de').select(count),
  };
  const templates = {
    ...ENGLISH_NOTIFICATION_TEMPLATES,
    sentences: {
      ...ENGLISH_NOTIFICATION_TEMPLATES.sentences,
      reached: '{counter} hat {threshold} erreicht',
    },
    whereBy: '{sentence} in {group} (von {by})',
    folded: {
      one: '{sentence} (und {count} weiterer Alarm)',
      other: '{sentence} (und {count} weitere Alarme)',
    },
  };

  it("fills the language's templates with its own number grouping and plural forms", () => {
    expect(wordNotification(words({ folded: 2 }), templates, german).body).toBe(
      'Visitors hat 2.000 erreicht in Game night (von Ada) (und 2 weitere Alarme)',
    );
    expect(wordNotification(words({ folded: 1 }), templates, german).body).toBe(
      'Visitors hat 2.000 erreicht in Game night (von Ada) (und 1 weiterer Alarm)',
    );
  });

  it('uses the `other` form for a plural category the language has no template for', () => {
    const arabic: NumberWays = { ...german, plural: () => 'few' };
    expect(wordNotification(words({ folded: 3 }), templates, arabic).body).toMatch(
      /\(und 3 weitere Alarme\)$/,
    );
  });
});

describe('filling a template', () => {
  it('reads placeholders in the template only, never in the names filled in', () => {
    expect(fillTemplate('{counter} in {group}', { counter: '{group}', group: 'Hall' })).toBe(
      '{group} in Hall',
    );
  });

  it('leaves a placeholder that has no value as it is', () => {
    expect(fillTemplate('{counter} at {place}', { counter: 'Laps' })).toBe('Laps at {place}');
  });
});

describe('the parts a push message carries', () => {
  it('are refused when they name an unknown sentence or a number that is not one', () => {
    expect(NotificationWordsSchema.safeParse(words()).success).toBe(true);
    expect(NotificationWordsSchema.safeParse({ ...words(), sentence: 'exploded' }).success).toBe(
      false,
    );
    expect(
      NotificationWordsSchema.safeParse({ ...words(), numbers: { threshold: '2' } }).success,
    ).toBe(false);
    expect(NotificationWordsSchema.safeParse({ ...words(), extra: 1 }).success).toBe(false);
  });
});
