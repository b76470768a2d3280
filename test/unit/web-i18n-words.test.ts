/**
 * The activity log, the period list, the alerts dialog and the tap links' list in the member's
 * language: whole sentences from the catalogs, numbers in the language's digits and grouping,
 * weekdays, days and times as Intl writes them there, while English stays word for word.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ActivityEntry } from '../../src/shared/activity.js';
import type { AlertDestinationView } from '../../src/shared/alerts.js';
import type { TapLinkScope } from '../../src/shared/links.js';
import { catalogOf, i18n } from '../../src/web/i18n/i18n.js';
import { weekdayName } from '../../src/web/i18n/dates.js';
import { destinationWords, whenWords } from '../../src/web/lib/alerts.js';
import { action, actorOf, describeOp } from '../../src/web/lib/describe.js';
import {
  CURRENT_PERIOD_LABEL,
  dayLabel,
  periodLabel,
  timeOfDay,
} from '../../src/web/lib/periods.js';
import { leaderName } from '../../src/web/lib/tallies.js';
import { rightsSummary, scopeSummary } from '../../src/web/lib/tap-link-words.js';
import * as server from '../../src/shared/link-rules.js';
import type { Op } from '../../src/web/live/ops.js';

async function speak(locale: string): Promise<void> {
  i18n.loadAndActivate({ locale, messages: await catalogOf(locale) });
}

/** A number as Intl writes it in Arabic (Latin or Arabic-Indic digits, as the runtime's CLDR has it). */
const arabic = (value: number) => new Intl.NumberFormat('ar').format(value);

afterEach(async () => {
  await speak('en');
});

const counterBase = {
  seq: 1,
  at: '2026-11-24T12:00:00.000Z',
  actor: 'Ada',
  undoOf: null,
  undoneBy: null,
  counterId: 'c1',
  counterName: 'Kaffee',
  value: 5,
};

const weekEnded = (final: number): ActivityEntry => ({
  kind: 'counter.reset',
  id: 4,
  ...counterBase,
  actor: 'Tally',
  value: 0,
  final,
  periodStart: '2026-11-16T00:00:00Z',
  periodEnd: '2026-11-23T00:00:00Z',
});

const pushTo = (subscribers: number): AlertDestinationView => ({
  id: 'd1',
  kind: 'push',
  format: null,
  host: null,
  subscribers,
  state: 'ok',
});

describe('weekday names', () => {
  it('names ISO weekdays 1 to 7 in English, and nothing else', () => {
    expect(weekdayName(1)).toBe('Monday');
    expect(weekdayName(7)).toBe('Sunday');
    expect(weekdayName(0)).toBeNull();
    expect(weekdayName(8)).toBeNull();
    expect(weekdayName(1.5)).toBeNull();
  });

  it('names them as the member’s language does', async () => {
    await speak('de');
    expect(weekdayName(1)).toBe('Montag');
    await speak('ja');
    expect(weekdayName(3)).toBe('水曜日');
  });
});

describe('days, times and periods in a group’s time zone', () => {
  const zone = 'Europe/Berlin';
  const now = Date.parse('2026-11-25T10:00:00Z');
  const monday = Date.parse('2026-11-22T23:00:00Z');

  it('English keeps its own order and spaces', () => {
    expect(dayLabel(monday, zone, now)).toBe('Mon 23 Nov');
    expect(timeOfDay(Date.parse('2026-11-25T13:05:00Z'), zone)).toBe('14:05');
    expect(CURRENT_PERIOD_LABEL.week).toBe('This week');
  });

  it('another language writes the day as Intl does there, and the words from its catalog', async () => {
    await speak('de');
    const germanDay = (at: number) =>
      new Intl.DateTimeFormat('de', {
        timeZone: zone,
        weekday: 'short',
        day: 'numeric',
        month: 'short',
      }).format(at);
    expect(dayLabel(monday, zone, now)).toBe(germanDay(monday));
    const week = {
      counterId: 'c1',
      start: '2026-11-15T23:00:00Z',
      end: '2026-11-22T23:00:00Z',
      value: 1,
    };
    expect(periodLabel(week, zone, now)).toBe(
      `Woche ab ${germanDay(Date.parse('2026-11-15T23:00:00Z'))}`,
    );
    expect(CURRENT_PERIOD_LABEL.week).toBe('Diese Woche');
  });
});

describe('the activity log in the member’s language', () => {
  it('English stays word for word, numbers grouped as before in the undo toast', () => {
    expect(action(weekEnded(12))).toBe('reset Kaffee: the week ended at 12');
    const op: Op = { kind: 'section', opId: 'o1', section: 'Halle', max: 1200, sent: false };
    expect(describeOp(op)).toBe('Set the maximum of Halle to 1,200');
  });

  it('a whole sentence per kind of period, with the language’s digits', async () => {
    await speak('de');
    expect(action(weekEnded(1234))).toBe('setzte Kaffee zurück: die Woche endete bei 1.234');
    await speak('ar');
    expect(action(weekEnded(12))).toBe(`أعاد ضبط Kaffee: انتهى الأسبوع عند ${arabic(12)}`);
  });

  it('a tap’s delta keeps its sign before it, right to left too, in the language’s digits', async () => {
    const tap: ActivityEntry = {
      kind: 'counter.adjusted',
      id: 1,
      ...counterBase,
      delta: -3,
      increments: 0,
      decrements: 3,
      reachedGoal: null,
    };
    await speak('fr');
    expect(action(tap)).toBe('\u22123 sur Kaffee');
    await speak('ar');
    expect(action(tap)).toBe(`\u2066\u2212${arabic(3)}\u2069 على Kaffee`);
  });
});

describe('alerts and the By member board in the member’s language', () => {
  it('counts browsers with the language’s plural forms', async () => {
    expect(destinationWords(pushTo(1))).toBe('Web Push (1 browser)');
    expect(destinationWords(pushTo(3))).toBe('Web Push (3 browsers)');
    await speak('ru');
    expect(destinationWords(pushTo(1))).toBe('Web Push (1 браузер)');
    expect(destinationWords(pushTo(3))).toBe('Web Push (3 браузера)');
    expect(destinationWords(pushTo(5))).toBe('Web Push (5 браузеров)');
  });

  it('words a rule around the counter’s name, with the number grouped', async () => {
    expect(whenWords({ kind: 'reaches', value: 2000 }, 'Visitors')).toBe(
      'When Visitors reaches 2,000',
    );
    await speak('es');
    expect(whenWords({ kind: 'reaches', value: 2000 }, 'Visitantes')).toBe(
      `Cuando Visitantes llegue a ${new Intl.NumberFormat('es').format(2000)}`,
    );
  });

  it('names a guest and the group’s own link', async () => {
    expect(leaderName({ member: '', link: undefined }, 'member')).toBe('Guest');
    expect(leaderName({ member: 'Ada', link: undefined }, 'link')).toBe('Full access link');
    await speak('it');
    expect(leaderName({ member: '', link: undefined }, 'member')).toBe('Ospite');
  });
});

describe('a tap link’s scope and rights in the owner’s list', () => {
  it('English says what the server says, word for word', () => {
    const scopes: [TapLinkScope, number | undefined][] = [
      [{ all: true }, undefined],
      [{ section: 'Entrances' }, undefined],
      [{ counterIds: ['a'] }, undefined],
      [{ counterIds: ['a', 'b', 'c'] }, 2],
    ];
    for (const [scope, count] of scopes) {
      expect(scopeSummary(scope, count)).toBe(server.scopeSummary(scope, count));
    }
    for (const can of [['increment', 'decrement'], ['increment'], ['decrement']] as const) {
      expect(rightsSummary(can)).toBe(server.rightsSummary(can));
    }
  });

  it('another language words them from its catalog, with its plural forms', async () => {
    await speak('de');
    expect(rightsSummary(['increment'])).toBe('Nur hochzählen');
    expect(scopeSummary({ counterIds: ['a', 'b'] })).toBe('2 Zähler');
    await speak('ru');
    expect(scopeSummary({ counterIds: ['a', 'b', 'c', 'd', 'e'] })).toBe('5 счётчиков');
  });
});

describe('a member who gave no name', () => {
  it('is "Someone" in English and its own word in every other language, in the log and By member; a real name stays', async () => {
    expect(actorOf({ actor: 'Someone', link: undefined })).toBe('Someone');
    await speak('de');
    expect(actorOf({ actor: 'Someone', link: undefined })).toBe('Jemand');
    expect(actorOf({ actor: 'Someone', link: { id: 'l1', label: 'Tor B' } })).toBe(
      'Jemand · Tor B',
    );
    expect(actorOf({ actor: 'Ada', link: undefined })).toBe('Ada');
    expect(leaderName({ member: 'Someone', link: undefined }, 'member')).toBe('Jemand');
    await speak('ja');
    expect(actorOf({ actor: 'Someone', link: undefined })).not.toBe('Someone');
  });
});
