/**
 * The web app's languages (docs/product.md#languages, ADR 35): which language a browser gets,
 * numbers and plurals as each language writes them, and the English that must not change.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MESSAGES } from '../../src/shared/messages.js';
import { catalogOf, i18n } from '../../src/web/i18n/i18n.js';
import { formatNumber, numbersInOrder } from '../../src/web/i18n/format.js';
import { LOCALES, isLocale, matchLocale, preferredLocale } from '../../src/web/i18n/locales.js';
import { changesWaiting, problemText } from '../../src/web/i18n/messages.js';
import { blockedReason } from '../../src/web/lib/capacity.js';
import { droppedTaps } from '../../src/web/live/groupStore.js';
import { relativeTime } from '../../src/web/lib/describe.js';
import { selectionAnnouncement } from '../../src/web/lib/keys.js';
import { compilePlaceholders } from '../../src/web/i18n/placeholders.js';
import { compileMessage } from '@lingui/message-utils/compileMessage';

const ROOT = path.resolve(import.meta.dirname, '../..');

const formatIn = (locale: string, value: number) => new Intl.NumberFormat(locale).format(value);

/** The language as the page would have it, without a page to set `<html lang>` on. */
async function speak(locale: string): Promise<void> {
  i18n.loadAndActivate({ locale, messages: await catalogOf(locale) });
}

afterEach(async () => {
  await speak('en');
});

describe('the language a browser gets', () => {
  it('takes the first preferred language Tally speaks, else English', () => {
    expect(preferredLocale(['de-AT', 'en'])).toBe('de');
    expect(preferredLocale(['xx', 'nl-BE', 'fr-CA', 'de'])).toBe('fr');
    expect(preferredLocale(['pt-PT'])).toBe('pt-BR');
    expect(preferredLocale(['pt-br'])).toBe('pt-BR');
    expect(preferredLocale(['ar-EG'])).toBe('ar');
    expect(preferredLocale(['ja-JP'])).toBe('ja');
    expect(preferredLocale(['nl', 'sv'])).toBe('en');
    expect(preferredLocale([])).toBe('en');
  });

  it('reads Chinese in simplified characters as 简体中文, and traditional as no match', () => {
    for (const tag of ['zh', 'zh-CN', 'zh-SG', 'zh-Hans', 'zh-Hans-HK', 'zh_CN']) {
      expect(matchLocale(tag)).toBe('zh-Hans');
    }
    for (const tag of ['zh-TW', 'zh-HK', 'zh-Hant', 'zh-Hant-CN', 'zh-MO']) {
      expect(matchLocale(tag)).toBeNull();
    }
    expect(preferredLocale(['zh-TW', 'ja'])).toBe('ja');
  });

  it('lets a link name only a language Tally has, exactly as written', () => {
    expect(isLocale('de')).toBe(true);
    expect(isLocale('en-XA')).toBe(true);
    expect(isLocale('DE')).toBe(false);
    expect(isLocale('xx')).toBe(false);
    expect(isLocale(null)).toBe(false);
  });

  it('lists ten languages, each named in itself, English first', () => {
    expect(LOCALES).toHaveLength(10);
    expect(LOCALES[0]).toEqual({ code: 'en', name: 'English' });
    for (const { code, name } of LOCALES) {
      const own = new Intl.DisplayNames([code], { type: 'language' }).of(code) ?? '';
      // The menu's name is the language's own (capitalised as a menu entry starts).
      expect(name.toLocaleLowerCase(code)).toContain(
        own.split(/[ (（]/)[0]?.toLocaleLowerCase(code),
      );
    }
  });
});

describe('numbers as each language writes them', () => {
  const cases: [string, string][] = [
    ['en', '1,234,567'],
    ['de', '1.234.567'],
    ['es', '1.234.567'],
    ['it', '1.234.567'],
    ['pt-BR', '1.234.567'],
    ['fr', '1\u202f234\u202f567'],
    ['ru', '1\u00a0234\u00a0567'],
    ['ja', '1,234,567'],
    ['zh-Hans', '1,234,567'],
    // Arabic digits or Latin ones, as the CLDR data of the browser (and Node) has Arabic.
    ['ar', new Intl.NumberFormat('ar').format(1234567)],
  ];
  for (const [locale, expected] of cases) {
    it(`${locale}: 1234567 → ${expected}`, async () => {
      await speak(locale);
      expect(formatNumber(1234567)).toBe(expected);
      expect(formatNumber(-5)).toBe(new Intl.NumberFormat(locale).format(-5));
    });
  }
});

describe("plurals by each language's rules", () => {
  const cases: [string, number, string][] = [
    ['de', 1, '1 Änderung wartet'],
    ['de', 1500, '1.500 Änderungen warten'],
    ['fr', 1, '1 modification en attente'],
    ['fr', 2, '2 modifications en attente'],
    ['fr', 1000000, '1\u202f000\u202f000 de modifications en attente'],
    ['es', 1000000, '1.000.000 de cambios pendientes'],
    ['ru', 1, '1 изменение ожидает отправки'],
    ['ru', 3, '3 изменения ожидают отправки'],
    ['ru', 5, '5 изменений ожидают отправки'],
    ['ru', 21, '21 изменение ожидает отправки'],
    ['ar', 1, 'تغيير واحد في الانتظار'],
    ['ar', 2, 'تغييران في الانتظار'],
    ['ar', 3, `${formatIn('ar', 3)} تغييرات في الانتظار`],
    ['ar', 11, `${formatIn('ar', 11)} تغييرًا في الانتظار`],
    ['ar', 100, `${formatIn('ar', 100)} تغيير في الانتظار`],
    ['ja', 1, '送信待ちの変更 1 件'],
    ['ja', 12, '送信待ちの変更 12 件'],
    ['zh-Hans', 2, '2 项更改等待发送'],
  ];
  for (const [locale, count, expected] of cases) {
    it(`${locale}: ${count} → ${expected}`, async () => {
      await speak(locale);
      expect(changesWaiting(count)).toBe(expected);
    });
  }

  it('a language switch changes the words at once, and back', async () => {
    await speak('de');
    expect(problemText('emptyGroupName')).toBe('Bitte gib einen Gruppennamen ein.');
    await speak('en');
    expect(problemText('emptyGroupName')).toBe(MESSAGES.emptyGroupName);
  });
});

describe('the English the server also speaks, word for word', () => {
  it('refusals of a group name or an image URL', () => {
    for (const problem of ['emptyGroupName', 'groupNameNeedsAlnum', 'groupNameTooLong'] as const) {
      expect(problemText(problem)).toBe(MESSAGES[problem]);
    }
    expect(problemText('invalidUrl')).toBe(MESSAGES.invalidUrl);
  });

  it('changes waiting, with the plural and the thousands separator', () => {
    for (const count of [0, 1, 2, 5, 1000, 1234567]) {
      expect(changesWaiting(count)).toBe(MESSAGES.changesWaiting(count));
    }
  });

  it('limits a step would pass', () => {
    const counter = { value: 1000, min: null, max: 1000, incrementStep: 1, decrementStep: 1 };
    expect(blockedReason({ ...counter, section: null }, 'increment')).toBe(
      MESSAGES.limitAbove(1000),
    );
    expect(blockedReason({ ...counter, min: 1000, section: null }, 'decrement')).toBe(
      MESSAGES.limitBelow(1000),
    );
    expect(
      blockedReason({ ...counter, max: null, section: 'Doors' }, 'increment', {
        max: 2500,
        total: 2500,
      }),
    ).toBe(MESSAGES.sectionFull('Doors', 2500));
  });

  it('the taps a revoked tap link leaves behind', () => {
    expect(droppedTaps(1)).toBe('The tap waiting on this device was not counted.');
    expect(droppedTaps(1200)).toBe('The 1,200 taps waiting on this device were not counted.');
  });

  it('every message of src/shared/messages.ts that the app shows is in its catalog as is', () => {
    const english = readFileSync(path.join(ROOT, 'src/web/locales/en.po'), 'utf8');
    const msgids = new Set(
      [...english.matchAll(/^msgid "(.*)"$/gm)].map(
        (match) => JSON.parse(`"${match[1] ?? ''}"`) as string,
      ),
    );
    const shown = [
      'tagline',
      'landingInvalidKey',
      'groupExistsWrongKey',
      'groupExists',
      'groupExistsNote',
      'missingNameOrKey',
      'invalidKeyFormat',
      'wrongKey',
      'accessDenied',
      'counterImageFailed',
      'profileImageFailed',
      'thumbnailHint',
      'failedToLoadCounters',
      'failedToCreateCounter',
      'failedToUpdateCounter',
      'failedToDeleteCounter',
      'copyFailed',
      'copied',
      'loadingGroup',
      'loadingCounters',
      'noCountersTitle',
      'noCountersBody',
      'deleteConfirm',
      'newCounterName',
      'groupNotFound',
      'valueOutOfRange',
      'notAnInteger',
      'readOnly',
      'keyChanged',
      'viewLinkChanged',
      'minAboveMax',
      'limitsExcludeValue',
      'startValueOutsideLimits',
      'notSentYet',
      'offlineOpening',
      'savingPaused',
      'viewOnlyKeys',
    ] as const;
    for (const key of shown) expect(msgids, key).toContain(MESSAGES[key]);
  });
});

describe('times and dates as each language writes them', () => {
  const now = Date.UTC(2026, 10, 27, 12, 0);
  it('English keeps its own short forms', () => {
    expect(relativeTime(now - 10_000, now)).toBe('just now');
    expect(relativeTime(now - 2 * 60_000, now)).toBe('2 min ago');
    expect(relativeTime(now - 3 * 3_600_000, now)).toBe('3 h ago');
    expect(relativeTime(now - 4 * 86_400_000, now)).toBe('4 d ago');
    expect(relativeTime(Date.UTC(2026, 2, 12, 12), now)).toBe('12 Mar');
    expect(relativeTime(Date.UTC(2024, 2, 12, 12), now)).toBe('12 Mar 2024');
  });

  const cases: [string, string, string, string][] = [
    // locale, 2 minutes ago, 3 hours ago, 12 March of another year
    ['de', 'vor 2 Min.', 'vor 3 Std.', '12. März 2024'],
    ['fr', 'il y a 2\u00a0min', 'il y a 3\u00a0h', '12 mars 2024'],
    ['ja', '2 分前', '3 時間前', '2024年3月12日'],
  ];
  for (const [locale, minutes, hours, date] of cases) {
    it(`${locale}: Intl's relative times and dates`, async () => {
      await speak(locale);
      expect(relativeTime(now - 2 * 60_000, now)).toBe(minutes);
      expect(relativeTime(now - 3 * 3_600_000, now)).toBe(hours);
      expect(relativeTime(Date.UTC(2024, 2, 12, 12), now)).toBe(date);
      expect(relativeTime(now - 1000, now)).toBe(
        new Intl.RelativeTimeFormat(locale, { numeric: 'auto', style: 'short' }).format(
          0,
          'second',
        ),
      );
    });
  }
});

describe('numbers around a slash where text runs right to left', () => {
  it('keeps "6 / 8" in its order in Arabic, and English as it is', async () => {
    expect(numbersInOrder('6 / 8')).toBe('6 / 8');
    await speak('ar');
    expect(numbersInOrder('6 / 8')).toBe('\u20666 / 8\u2069');
  });
});

describe('English messages with placeholders, shipped as their text alone', () => {
  it('splits a message at its placeholders exactly as Lingui compiles it', () => {
    for (const message of ['Set to {shown}', '{left} left', 'Tap link · {label}', 'Plain text']) {
      expect(compilePlaceholders(message)).toEqual(compileMessage(message));
    }
  });

  it('fills in the values in English, where no catalog is loaded', () => {
    expect(
      blockedReason(
        { value: 5, min: 5, max: null, incrementStep: 1, decrementStep: 1, section: null },
        'decrement',
      ),
    ).toBe('Limit reached: this counter cannot go below 5.');
    expect(selectionAnnouncement('Coffees', 12)).toBe('Selected Coffees, 12');
  });
});
