/**
 * Which alert rules fire for a change of a counter (src/server/domain/alert-rules.ts): once per
 * crossing, in both directions, at the exact boundaries, scoped to a counter or a section.
 */
import { describe, expect, it } from 'vitest';
import type { Counter } from '../../src/shared/api.js';
import {
  ALERT_BODY_MAX_BYTES,
  ALERT_EVERY_MAX_PER_CHANGE,
  ALERT_MESSAGES,
  AlertEventBodySchema,
  alertBodyBytes,
  type AlertRule,
  type AlertWhen,
  MAX_ALERT_DESTINATIONS_PER_GROUP,
  MAX_ALERT_RULES_PER_GROUP,
} from '../../src/shared/alerts.js';
import { MAX_VALUE, MIN_VALUE } from '../../src/shared/limits.js';
import {
  alertEventBody,
  alertRulesRefusal,
  alertsFor,
  capacityLevel,
  multiplesCrossed,
  periodEndAlerts,
  type AlertEvent,
} from '../../src/server/domain/alert-rules.js';
import { NOW, counterRow } from '../helpers/domain.js';

const AT = new Date(NOW).toISOString();

function counter(fields: Partial<Counter> = {}): Counter {
  return counterRow('g', fields.id ?? 'c', fields).counter;
}

let ruleCount = 0;
function rule(when: AlertWhen, scope: Partial<Pick<AlertRule, 'counterId' | 'section'>> = {}) {
  ruleCount += 1;
  return {
    id: `r${String(ruleCount)}`,
    counterId: scope.counterId ?? null,
    section: scope.section ?? null,
    when,
    to: { kind: 'push' },
  } satisfies AlertRule;
}

/** The events of one change of counter `base` from one value to another. */
function move(
  rules: AlertRule[],
  values: { from: number; to: number },
  base: Partial<Counter> = {},
) {
  return alertsFor(rules, {
    before: counter({ ...base, value: values.from }),
    after: counter({ ...base, value: values.to }),
    by: 'Ada',
    at: NOW,
  });
}

/** Only what tells events apart: type, rule, and the multiple or capacity change if any. */
function brief(events: AlertEvent[]) {
  return events.map((event) => {
    if (event.type === 'counter.every') return [event.ruleId, event.type, event.multiple];
    if (event.type === 'counter.capacity') {
      return [event.ruleId, event.type, event.capacity.state, event.capacity.change];
    }
    return [event.ruleId, event.type];
  });
}

describe('alerts: reaches and fallsTo', () => {
  const reaches = rule({ kind: 'reaches', value: 10 });
  const fallsTo = rule({ kind: 'fallsTo', value: 10 });
  const rules = [reaches, fallsTo];

  it('reaches v fires when the value goes from below v to v exactly', () => {
    expect(move(rules, { from: 9, to: 10 })).toEqual([
      {
        type: 'counter.reached',
        ruleId: reaches.id,
        counter: { id: 'c', name: 'c', value: 10 },
        by: 'Ada',
        at: AT,
      },
    ]);
  });

  it('reaches v fires when a jump passes v, and not when the value starts at v', () => {
    expect(brief(move(rules, { from: 3, to: 25 }))).toEqual([[reaches.id, 'counter.reached']]);
    expect(move(rules, { from: 10, to: 11 })).toEqual([]);
    expect(move(rules, { from: 8, to: 9 })).toEqual([]);
  });

  it('fallsTo v fires when the value goes from above v to v exactly, or past it', () => {
    expect(brief(move(rules, { from: 11, to: 10 }))).toEqual([[fallsTo.id, 'counter.fell']]);
    expect(brief(move(rules, { from: 30, to: -5 }))).toEqual([[fallsTo.id, 'counter.fell']]);
    expect(move(rules, { from: 10, to: 9 })).toEqual([]);
    expect(move(rules, { from: 12, to: 11 })).toEqual([]);
  });

  it('does not fire twice for taps that stay on the same side', () => {
    const values = [9, 10, 11, 12, 11, 10];
    const fired = values.slice(1).flatMap((to, index) => {
      const from = values[index] ?? 0;
      return brief(move([reaches], { from, to }));
    });
    expect(fired).toEqual([[reaches.id, 'counter.reached']]);
  });

  it('fires again after moving away and back: that is a new crossing', () => {
    const values = [9, 10, 9, 10, 11, 10];
    const fired = values.slice(1).flatMap((to, index) => {
      const from = values[index] ?? 0;
      return brief(move(rules, { from, to }));
    });
    expect(fired).toEqual([
      [reaches.id, 'counter.reached'],
      [reaches.id, 'counter.reached'],
      [fallsTo.id, 'counter.fell'],
    ]);
  });

  it('works at the ends of the exact range', () => {
    const top = rule({ kind: 'reaches', value: MAX_VALUE });
    const bottom = rule({ kind: 'fallsTo', value: MIN_VALUE });
    expect(brief(move([top, bottom], { from: MAX_VALUE - 1, to: MAX_VALUE }))).toEqual([
      [top.id, 'counter.reached'],
    ]);
    expect(brief(move([top, bottom], { from: MIN_VALUE + 1, to: MIN_VALUE }))).toEqual([
      [bottom.id, 'counter.fell'],
    ]);
  });
});

describe('alerts: goal', () => {
  const goal = rule({ kind: 'goal' });

  it('fires when the value reaches a goal counted up to, at the goal exactly', () => {
    const up = { goal: 20, startValue: 0 };
    expect(brief(move([goal], { from: 19, to: 20 }, up))).toEqual([[goal.id, 'counter.goal']]);
    expect(brief(move([goal], { from: 5, to: 50 }, up))).toEqual([[goal.id, 'counter.goal']]);
    expect(move([goal], { from: 20, to: 21 }, up)).toEqual([]);
    expect(move([goal], { from: 21, to: 19 }, up)).toEqual([]);
  });

  it('fires when the value reaches a goal below the start value, counted down to', () => {
    const down = { goal: 0, startValue: 10 };
    expect(brief(move([goal], { from: 1, to: 0 }, down))).toEqual([[goal.id, 'counter.goal']]);
    expect(move([goal], { from: -1, to: 0 }, down)).toEqual([]);
    expect(move([goal], { from: 0, to: -1 }, down)).toEqual([]);
  });

  it('fires nothing for a counter without a goal', () => {
    expect(move([goal], { from: 0, to: 100 })).toEqual([]);
  });

  it('uses the goal as the change left it: setting a goal at the value fires nothing', () => {
    const events = alertsFor([goal], {
      before: counter({ value: 7, goal: null }),
      after: counter({ value: 7, goal: 7 }),
      by: 'Ada',
      at: NOW,
    });
    expect(events).toEqual([]);
  });
});

describe('alerts: every', () => {
  const every = rule({ kind: 'every', value: 1000 });

  it('fires once per multiple crossed going up, at the multiple exactly', () => {
    expect(brief(move([every], { from: 999, to: 1000 }))).toEqual([
      [every.id, 'counter.every', 1000],
    ]);
    expect(brief(move([every], { from: 999, to: 2001 }))).toEqual([
      [every.id, 'counter.every', 1000],
      [every.id, 'counter.every', 2000],
    ]);
    expect(move([every], { from: 1000, to: 1999 })).toEqual([]);
  });

  it('fires nothing going down, and again once the value climbs back over a multiple', () => {
    expect(move([every], { from: 1000, to: 999 })).toEqual([]);
    expect(move([every], { from: 5000, to: 0 })).toEqual([]);
    expect(brief(move([every], { from: 999, to: 1000 }))).toHaveLength(1);
  });

  it('counts positive multiples only: climbing from below zero to zero fires nothing', () => {
    expect(move([every], { from: -2500, to: 0 })).toEqual([]);
    expect(brief(move([every], { from: -1, to: 1000 }))).toEqual([
      [every.id, 'counter.every', 1000],
    ]);
  });

  it(`makes at most ${String(ALERT_EVERY_MAX_PER_CHANGE)} events per change: the highest multiples`, () => {
    const ones = rule({ kind: 'every', value: 1 });
    const events = move([ones], { from: 0, to: 1_000_000 });
    expect(events).toHaveLength(ALERT_EVERY_MAX_PER_CHANGE);
    expect(brief(events).map((event) => event[2])).toEqual(
      Array.from({ length: ALERT_EVERY_MAX_PER_CHANGE }, (_, i) => 999_991 + i),
    );
    expect(brief(move([ones], { from: 0, to: 10 }))).toHaveLength(10);
    expect(multiplesCrossed(0, 11, 1)).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
  });

  it('stays exact across the whole range, where a division in doubles would round', () => {
    expect(multiplesCrossed(MAX_VALUE - 2, MAX_VALUE - 1, MAX_VALUE)).toEqual([]);
    expect(multiplesCrossed(MAX_VALUE - 1, MAX_VALUE, MAX_VALUE)).toEqual([MAX_VALUE]);
    expect(multiplesCrossed(MIN_VALUE, MAX_VALUE, MAX_VALUE)).toEqual([MAX_VALUE]);
  });

  it('finds the same multiples as counting one by one, below zero, across it and near the ends', () => {
    const naive = (from: number, to: number, every: number): number[] => {
      const found: number[] = [];
      for (let value = from + 1; value <= to; value += 1) {
        if (value >= every && value % every === 0) found.push(value);
      }
      return found.slice(-ALERT_EVERY_MAX_PER_CHANGE);
    };
    const starts = [-25, -10, -1, 0, 1, 9, 10, 11, 99, MAX_VALUE - 30, MIN_VALUE];
    for (const every of [1, 2, 3, 7, 10, 64]) {
      for (const start of starts) {
        for (const span of [0, 1, 2, 5, 9, 10, 11, 25]) {
          const to = Math.min(start + span, MAX_VALUE);
          expect(
            multiplesCrossed(start, to, every),
            `${String(start)}→${String(to)} every ${String(every)}`,
          ).toEqual(naive(start, to, every));
        }
      }
    }
  });
});

describe('alerts: capacity', () => {
  const nearly = rule({ kind: 'capacity', state: 'nearlyFull' });
  const full = rule({ kind: 'capacity', state: 'full' });
  const rules = [nearly, full];
  const limits = { min: null, max: 70 };

  it('reads capacity as the card does: nearly full from 90 % of the way to the maximum', () => {
    expect(capacityLevel(limits, 62)).toBe('room');
    expect(capacityLevel(limits, 63)).toBe('nearlyFull');
    expect(capacityLevel(limits, 69)).toBe('nearlyFull');
    expect(capacityLevel(limits, 70)).toBe('full');
    expect(capacityLevel({ min: 10, max: 20 }, 18)).toBe('room');
    expect(capacityLevel({ min: 10, max: 20 }, 19)).toBe('nearlyFull');
    expect(capacityLevel({ min: 5, max: 5 }, 5)).toBe('full');
    expect(capacityLevel({ min: null, max: null }, 5)).toBeNull();
  });

  it('fires "entered" when the counter enters a state at its exact boundary', () => {
    expect(brief(move(rules, { from: 62, to: 63 }, limits))).toEqual([
      [nearly.id, 'counter.capacity', 'nearlyFull', 'entered'],
    ]);
    expect(brief(move(rules, { from: 69, to: 70 }, limits))).toEqual([
      [full.id, 'counter.capacity', 'full', 'entered'],
    ]);
  });

  it('fires "left" when it leaves a state again, going back below it', () => {
    expect(brief(move(rules, { from: 70, to: 69 }, limits))).toEqual([
      [full.id, 'counter.capacity', 'full', 'left'],
    ]);
    expect(brief(move(rules, { from: 63, to: 62 }, limits))).toEqual([
      [nearly.id, 'counter.capacity', 'nearlyFull', 'left'],
    ]);
  });

  it('treats nearly full as "at least nearly full": a jump to full enters both', () => {
    expect(brief(move(rules, { from: 10, to: 70 }, limits))).toEqual([
      [nearly.id, 'counter.capacity', 'nearlyFull', 'entered'],
      [full.id, 'counter.capacity', 'full', 'entered'],
    ]);
    expect(brief(move(rules, { from: 70, to: 0 }, limits))).toEqual([
      [nearly.id, 'counter.capacity', 'nearlyFull', 'left'],
      [full.id, 'counter.capacity', 'full', 'left'],
    ]);
  });

  it('fires nothing for moves within a state, nor for a counter without a maximum', () => {
    expect(move(rules, { from: 63, to: 68 }, limits)).toEqual([]);
    expect(move(rules, { from: 0, to: 62 }, limits)).toEqual([]);
    expect(move(rules, { from: 0, to: 1000 })).toEqual([]);
  });

  it('uses the limits as the change left them: lowering the maximum to the value fires nothing', () => {
    const events = alertsFor(rules, {
      before: counter({ value: 40, max: 100 }),
      after: counter({ value: 40, max: 40 }),
      by: 'Ada',
      at: NOW,
    });
    expect(events).toEqual([]);
  });
});

describe('alerts: scoping', () => {
  const anyCounter = rule({ kind: 'reaches', value: 5 });
  const onlyA = rule({ kind: 'reaches', value: 5 }, { counterId: 'a' });
  const onlyBar = rule({ kind: 'reaches', value: 5 }, { section: 'Bar' });
  const rules = [anyCounter, onlyA, onlyBar];

  it('a rule naming a counter watches that counter only', () => {
    expect(brief(move(rules, { from: 4, to: 5 }, { id: 'a' })).map(([id]) => id)).toEqual([
      anyCounter.id,
      onlyA.id,
    ]);
    expect(brief(move(rules, { from: 4, to: 5 }, { id: 'b' })).map(([id]) => id)).toEqual([
      anyCounter.id,
    ]);
  });

  it('a rule naming a section watches the counters of that section', () => {
    const inBar = move(rules, { from: 4, to: 5 }, { id: 'b', section: 'Bar' });
    expect(brief(inBar).map(([id]) => id)).toEqual([anyCounter.id, onlyBar.id]);
    const inDoor = move(rules, { from: 4, to: 5 }, { id: 'b', section: 'Door' });
    expect(brief(inDoor).map(([id]) => id)).toEqual([anyCounter.id]);
  });

  it("uses the counter's section after the change", () => {
    const events = alertsFor([onlyBar], {
      before: counter({ value: 4, section: 'Door' }),
      after: counter({ value: 5, section: 'Bar' }),
      by: null,
      at: NOW,
    });
    expect(events).toMatchObject([{ ruleId: onlyBar.id, by: null }]);
  });

  it("ignores a deleted counter's rules: its deletion and other counters fire nothing of them", () => {
    const gone = rule({ kind: 'fallsTo', value: 0 }, { counterId: 'gone' });
    const deleted = alertsFor([gone, anyCounter], {
      before: counter({ id: 'gone', value: 10 }),
      after: null,
      by: 'Ada',
      at: NOW,
    });
    expect(deleted).toEqual([]);
    expect(brief(move([gone], { from: 10, to: 0 }, { id: 'other' }))).toEqual([]);
  });

  it('fires nothing when a counter is created or restored: it crossed nothing', () => {
    const created = alertsFor([anyCounter], {
      before: null,
      after: counter({ value: 50 }),
      by: 'Ada',
      at: NOW,
    });
    expect(created).toEqual([]);
  });
});

describe('alerts: one tap at a time', () => {
  it('200 single taps fire each crossing exactly once', () => {
    // A walk of 200 taps of one: up to 120, down to 60, up to 80. Thresholds on the way are
    // crossed once (50, 100), twice (70 up, 75 up) or in each direction (the capacity states).
    const path: number[] = [0];
    const walk = (to: number) => {
      let value = path.at(-1) ?? 0;
      while (value !== to) {
        value += to > value ? 1 : -1;
        path.push(value);
      }
    };
    walk(120);
    walk(60);
    walk(80);
    expect(path).toHaveLength(201);

    const rules = [
      rule({ kind: 'reaches', value: 50 }),
      rule({ kind: 'reaches', value: 70 }),
      rule({ kind: 'fallsTo', value: 100 }),
      rule({ kind: 'fallsTo', value: 70 }),
      rule({ kind: 'goal' }),
      rule({ kind: 'every', value: 25 }),
      rule({ kind: 'capacity', state: 'nearlyFull' }),
      rule({ kind: 'capacity', state: 'full' }),
    ];
    const fields = { goal: 100, max: 120 };
    const fired: { tap: number; event: (string | number)[] }[] = [];
    path.slice(1).forEach((to, index) => {
      const from = path[index] ?? 0;
      for (const event of brief(move(rules, { from, to }, fields))) {
        fired.push({ tap: index + 1, event: [to, ...event.slice(1)] });
      }
    });

    // The oracle: with taps of one, a value is reached when the walk lands on it from one below,
    // fallen to when it lands on it from one above.
    const landings = (value: number, direction: 1 | -1) =>
      path.flatMap((to, tap) =>
        tap > 0 && to === value && path[tap - 1] === value - direction ? [tap] : [],
      );
    const at = (type: string, value: number, direction: 1 | -1) =>
      landings(value, direction).map((tap) => ({ tap, event: [path[tap] ?? 0, type] }));
    const expected = [
      ...at('counter.reached', 50, 1),
      ...at('counter.reached', 70, 1),
      ...at('counter.fell', 100, -1),
      ...at('counter.fell', 70, -1),
      ...at('counter.goal', 100, 1),
      ...[25, 50, 75, 100].flatMap((multiple) =>
        landings(multiple, 1).map((tap) => ({
          tap,
          event: [multiple, 'counter.every', multiple],
        })),
      ),
      // 90 % of 120 is 108; full at 120. Leaving: landing one below from the boundary.
      ...landings(108, 1).map((tap) => ({
        tap,
        event: [108, 'counter.capacity', 'nearlyFull', 'entered'],
      })),
      ...landings(107, -1).map((tap) => ({
        tap,
        event: [107, 'counter.capacity', 'nearlyFull', 'left'],
      })),
      ...landings(120, 1).map((tap) => ({
        tap,
        event: [120, 'counter.capacity', 'full', 'entered'],
      })),
      ...landings(119, -1).map((tap) => ({
        tap,
        event: [119, 'counter.capacity', 'full', 'left'],
      })),
    ];
    const byTap = (a: { tap: number; event: unknown[] }, b: { tap: number; event: unknown[] }) =>
      a.tap - b.tap || JSON.stringify(a.event).localeCompare(JSON.stringify(b.event));
    expect([...fired].sort(byTap)).toEqual([...expected].sort(byTap));
    // Spelled out, so that the oracle above cannot be wrong the same way as the rules.
    expect(fired.filter(({ event }) => event[1] === 'counter.reached')).toHaveLength(3);
    expect(fired.filter(({ event }) => event[1] === 'counter.fell')).toHaveLength(2);
    expect(fired.filter(({ event }) => event[1] === 'counter.goal')).toHaveLength(1);
    expect(fired.filter(({ event }) => event[1] === 'counter.every')).toHaveLength(5);
    expect(fired.filter(({ event }) => event[1] === 'counter.capacity')).toHaveLength(4);
  });
});

describe('alerts: period end', () => {
  const periodEnd = rule({ kind: 'periodEnd' });
  const inBar = rule({ kind: 'periodEnd' }, { section: 'Bar' });
  const start = Date.UTC(2026, 2, 9);
  const end = Date.UTC(2026, 2, 10);

  it('fires each periodEnd rule that watches the counter, with the period and its total', () => {
    const events = periodEndAlerts([periodEnd, inBar, rule({ kind: 'reaches', value: 1 })], {
      counter: counter({ value: 0, reset: 'daily' }),
      period: { start, end, value: 37 },
    });
    expect(events).toEqual([
      {
        type: 'counter.period',
        ruleId: periodEnd.id,
        counter: { id: 'c', name: 'c', value: 0 },
        by: null,
        at: new Date(end).toISOString(),
        period: {
          start: new Date(start).toISOString(),
          end: new Date(end).toISOString(),
          total: 37,
        },
      },
    ]);
  });

  it('fires nothing for a change of the value: only periodEndAlerts announces an ended period', () => {
    const reset = { before: counter({ value: 37 }), after: counter({ value: 0 }) };
    expect(alertsFor([periodEnd], { ...reset, by: null, at: end })).toEqual([]);
  });
});

describe('alerts: the webhook body', () => {
  const webhook: AlertRule = {
    id: 'r-hook',
    counterId: null,
    section: null,
    when: { kind: 'reaches', value: 10 },
    to: { kind: 'webhook', url: 'https://hooks.example.com/secret-token', format: 'slack' },
  };

  it('is the event with the group and the rule, without the webhook URL', () => {
    const [event] = move([webhook], { from: 9, to: 10 });
    if (!event) throw new Error('expected an event');
    const body = alertEventBody(event, { group: 'game-night', rule: webhook });
    expect(body).toEqual({
      type: 'counter.reached',
      group: 'game-night',
      counter: { id: 'c', name: 'c', value: 10 },
      rule: {
        id: 'r-hook',
        counterId: null,
        section: null,
        when: { kind: 'reaches', value: 10 },
        to: { kind: 'webhook', format: 'slack' },
      },
      by: 'Ada',
      at: AT,
    });
    expect(JSON.stringify(body)).not.toContain('secret-token');
    expect(AlertEventBodySchema.parse(body)).toEqual(body);
  });

  it('parses for every kind of event', () => {
    const rules = [
      rule({ kind: 'every', value: 5 }),
      rule({ kind: 'capacity', state: 'full' }),
      rule({ kind: 'goal' }),
      rule({ kind: 'fallsTo', value: 0 }),
    ];
    const events = [
      ...move(rules, { from: 0, to: 10 }, { goal: 10, max: 10 }),
      ...move(rules, { from: 10, to: 0 }, { goal: 10, max: 10 }),
      ...periodEndAlerts([rule({ kind: 'periodEnd' })], {
        counter: counter(),
        period: { start: 0, end: NOW, value: 3 },
      }),
    ];
    expect(new Set(events.map((event) => event.type)).size).toBe(5);
    for (const event of events) {
      const fired = rules.find((candidate) => candidate.id === event.ruleId) ?? webhook;
      const body = alertEventBody(event, { group: 'g', rule: fired });
      expect(AlertEventBodySchema.safeParse(body).success).toBe(true);
    }
  });

  it(`stays within ${String(ALERT_BODY_MAX_BYTES)} bytes: a long name is cut, never through an emoji`, () => {
    const name = '🎉'.repeat(1000);
    const [event] = move([webhook], { from: 9, to: 10 }, { name });
    if (!event) throw new Error('expected an event');
    const body = alertEventBody(event, { group: 'g'.repeat(100), rule: webhook });
    expect(alertBodyBytes(body)).toBeLessThanOrEqual(ALERT_BODY_MAX_BYTES);
    expect(alertBodyBytes(body)).toBeGreaterThan(ALERT_BODY_MAX_BYTES - 8);
    expect(Array.from(body.counter.name).every((character) => character === '🎉')).toBe(true);
    expect(body.counter.name.length).toBeGreaterThan(0);
    const short = alertEventBody(event, { group: 'g', rule: webhook });
    expect(short.counter.name.length).toBeLessThan(name.length);
    const plain = move([webhook], { from: 9, to: 10 }, { name: 'Door' })[0];
    if (!plain) throw new Error('expected an event');
    expect(alertEventBody(plain, { group: 'g', rule: webhook }).counter.name).toBe('Door');
  });
});

describe("alerts: a group's rules", () => {
  const push = { to: { kind: 'push' } } as const;
  const hook = (n: number) =>
    ({
      to: { kind: 'webhook', url: `https://hooks.example.com/${String(n)}`, format: 'standard' },
    }) as const;

  it(`holds at most ${String(MAX_ALERT_RULES_PER_GROUP)} rules`, () => {
    expect(alertRulesRefusal(Array.from({ length: MAX_ALERT_RULES_PER_GROUP }, () => push))).toBe(
      null,
    );
    expect(
      alertRulesRefusal(Array.from({ length: MAX_ALERT_RULES_PER_GROUP + 1 }, () => push)),
    ).toBe(ALERT_MESSAGES.tooManyRules);
  });

  it(`sends to at most ${String(MAX_ALERT_DESTINATIONS_PER_GROUP)} places, each URL and push counted once`, () => {
    const ten = Array.from({ length: MAX_ALERT_DESTINATIONS_PER_GROUP - 1 }, (_, n) => hook(n));
    expect(alertRulesRefusal([...ten, push, push, ...ten])).toBe(null);
    expect(alertRulesRefusal([...ten, push, hook(99)])).toBe(ALERT_MESSAGES.tooManyDestinations);
  });
});
