/**
 * An alert rule as the API takes it (src/shared/alerts.ts): the documented shapes pass, and
 * everything else is refused with an issue that says what is wrong, at the field that is.
 */
import { describe, expect, it } from 'vitest';
import {
  ALERT_MESSAGES,
  AlertEventBodySchema,
  AlertRuleInputSchema,
  alertRuleSummary,
} from '../../src/shared/alerts.js';
import { MAX_VALUE, MIN_VALUE, URL_MAX_LENGTH } from '../../src/shared/limits.js';
import { MESSAGES } from '../../src/shared/messages.js';

const push = { kind: 'push' } as const;
const hook = { kind: 'webhook', url: 'https://hooks.example.com/t', format: 'standard' } as const;

/** The issues of a refused rule, as path and message. */
function issues(input: unknown): { path: string; message: string }[] {
  const result = AlertRuleInputSchema.safeParse(input);
  if (result.success) throw new Error(`accepted: ${JSON.stringify(result.data)}`);
  return result.error.issues.map((issue) => ({
    path: issue.path.join('.'),
    message: issue.message,
  }));
}

describe('alert rule schema: the documented shapes', () => {
  const whens = [
    { kind: 'reaches', value: 100 },
    { kind: 'reaches', value: MAX_VALUE },
    { kind: 'fallsTo', value: 0 },
    { kind: 'fallsTo', value: MIN_VALUE },
    { kind: 'goal' },
    { kind: 'every', value: 1 },
    { kind: 'every', value: 1000 },
    { kind: 'capacity', state: 'nearlyFull' },
    { kind: 'capacity', state: 'full' },
    { kind: 'periodEnd' },
  ] as const;

  for (const when of whens) {
    it(`takes ${JSON.stringify(when)}`, () => {
      const input = { counterId: null, section: null, when, to: push };
      expect(AlertRuleInputSchema.parse(input)).toEqual(input);
    });
  }

  it('takes every webhook format', () => {
    for (const format of ['standard', 'slack', 'discord', 'ntfy'] as const) {
      const input = {
        counterId: 'c1',
        section: null,
        when: { kind: 'goal' },
        to: { ...hook, format },
      };
      expect(AlertRuleInputSchema.parse(input)).toEqual(input);
    }
  });

  it('scopes to a counter, to a section, or (both null or left out) to every counter', () => {
    const when = { kind: 'goal' } as const;
    expect(AlertRuleInputSchema.parse({ counterId: 'c1', section: null, when, to: push })).toEqual({
      counterId: 'c1',
      section: null,
      when,
      to: push,
    });
    expect(AlertRuleInputSchema.parse({ counterId: null, section: 'Bar', when, to: push })).toEqual(
      { counterId: null, section: 'Bar', when, to: push },
    );
    expect(AlertRuleInputSchema.parse({ when, to: push })).toEqual({
      counterId: null,
      section: null,
      when,
      to: push,
    });
  });

  it("writes a section's name as a counter's section is written (trimmed, cut to 60)", () => {
    const rule = AlertRuleInputSchema.parse({
      section: `  ${'B'.repeat(80)}  `,
      when: { kind: 'goal' },
      to: push,
    });
    expect(rule.section).toBe('B'.repeat(60));
  });

  it('writes a webhook URL as an image URL is: a missing scheme gets https://', () => {
    const rule = AlertRuleInputSchema.parse({
      when: { kind: 'goal' },
      to: { ...hook, url: 'ntfy.sh/tally-door' },
    });
    expect(rule.to).toEqual({
      kind: 'webhook',
      url: 'https://ntfy.sh/tally-door',
      format: 'standard',
    });
  });

  it('takes a URL of 2048 characters exactly', () => {
    const base = 'https://hooks.example.com/';
    const url = base + 'a'.repeat(URL_MAX_LENGTH - base.length);
    const rule = AlertRuleInputSchema.parse({ when: { kind: 'goal' }, to: { ...hook, url } });
    expect(rule.to).toMatchObject({ url });
  });
});

describe('alert rule schema: what it refuses', () => {
  const when = { kind: 'goal' } as const;

  it('refuses a counter and a section together', () => {
    expect(issues({ counterId: 'c1', section: 'Bar', when, to: push })).toEqual([
      { path: 'section', message: ALERT_MESSAGES.counterAndSection },
    ]);
  });

  it('refuses thresholds that are not whole numbers', () => {
    for (const value of [1.5, '10', null, Number.NaN]) {
      expect(issues({ when: { kind: 'reaches', value }, to: push })).toEqual([
        { path: 'when.value', message: MESSAGES.notAnInteger },
      ]);
    }
  });

  it('refuses thresholds outside the exact range, and only says so', () => {
    for (const value of [MAX_VALUE + 1, MIN_VALUE - 1, 1e300]) {
      expect(issues({ when: { kind: 'fallsTo', value }, to: push })).toEqual([
        { path: 'when.value', message: MESSAGES.valueOutOfRange },
      ]);
    }
  });

  it('refuses every N below 1', () => {
    for (const value of [0, -5]) {
      expect(issues({ when: { kind: 'every', value }, to: push })).toEqual([
        { path: 'when.value', message: ALERT_MESSAGES.everyTooSmall },
      ]);
    }
    expect(issues({ when: { kind: 'every', value: 2.5 }, to: push })).toEqual([
      { path: 'when.value', message: MESSAGES.notAnInteger },
    ]);
  });

  it('refuses a URL over 2048 characters', () => {
    const url = `https://hooks.example.com/${'a'.repeat(URL_MAX_LENGTH)}`;
    expect(issues({ when, to: { ...hook, url } })).toEqual([
      { path: 'to.url', message: ALERT_MESSAGES.webhookUrlTooLong },
    ]);
  });

  it('refuses a URL that is not http(s), or not a URL', () => {
    for (const url of ['javascript:alert(1)', 'ftp://example.com/x', '', '/hooks/local', 'a b']) {
      expect(issues({ when, to: { ...hook, url } })).toEqual([
        { path: 'to.url', message: MESSAGES.invalidUrl },
      ]);
    }
  });

  it('refuses unknown kinds, formats and capacity states, saying which there are', () => {
    expect(issues({ when: { kind: 'halfway' }, to: push })).toEqual([
      { path: 'when.kind', message: ALERT_MESSAGES.unknownWhen },
    ]);
    expect(issues({ when, to: { kind: 'email', address: 'a@example.com' } })).toEqual([
      { path: 'to.kind', message: ALERT_MESSAGES.unknownDestination },
    ]);
    expect(issues({ when, to: { ...hook, format: 'teams' } })).toEqual([
      { path: 'to.format', message: ALERT_MESSAGES.unknownFormat },
    ]);
    expect(issues({ when: { kind: 'capacity', state: 'empty' }, to: push })).toEqual([
      { path: 'when.state', message: ALERT_MESSAGES.unknownCapacityState },
    ]);
  });

  it('refuses a rule without when or to, and fields it does not know', () => {
    expect(issues({ to: push }).map((issue) => issue.path)).toEqual(['when']);
    expect(issues({ when }).map((issue) => issue.path)).toEqual(['to']);
    expect(issues({ when: { kind: 'goal', value: 3 }, to: push })).toMatchObject([
      { path: 'when' },
    ]);
    expect(issues({ when, to: push, secret: 'x' })).toMatchObject([{ path: '' }]);
  });

  it('refuses an empty or overlong counter id, and a blank section name', () => {
    for (const counterId of ['', 'c'.repeat(65), 7]) {
      expect(issues({ counterId, when, to: push })).toEqual([
        { path: 'counterId', message: ALERT_MESSAGES.counterIdInvalid },
      ]);
    }
    expect(issues({ section: '   ', when, to: push })).toEqual([
      { path: 'section', message: MESSAGES.sectionNameEmpty },
    ]);
  });
});

describe('alert rule schema: what is sent back', () => {
  it("a rule's summary leaves out the webhook URL and parses in an event body", () => {
    const input = AlertRuleInputSchema.parse({ counterId: 'c1', when: { kind: 'goal' }, to: hook });
    const summary = alertRuleSummary({ ...input, id: 'r1' });
    expect(summary).toEqual({
      id: 'r1',
      counterId: 'c1',
      section: null,
      when: { kind: 'goal' },
      to: { kind: 'webhook', format: 'standard' },
    });
    const body = {
      type: 'counter.goal',
      group: 'game-night',
      counter: { id: 'c1', name: 'Door', value: 100 },
      rule: summary,
      by: null,
      at: '2026-03-10T12:00:00.000Z',
    };
    expect(AlertEventBodySchema.parse(body)).toEqual(body);
    expect(AlertEventBodySchema.safeParse({ ...body, type: 'counter.deleted' }).success).toBe(
      false,
    );
    expect(AlertEventBodySchema.safeParse({ ...body, at: 'yesterday' }).success).toBe(false);
  });
});
