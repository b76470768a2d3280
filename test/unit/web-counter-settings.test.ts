/**
 * The counter settings and group settings forms (src/web/lib/counter-settings.ts): goal, limits,
 * period and section; time zone and first day of the week (ADR 19).
 */
import { describe, expect, it } from 'vitest';
import { MESSAGES } from '../../src/shared/messages.js';
import {
  draftOf,
  parseOptionalInteger,
  sectionNames,
  sectionOf,
  settingsPatch,
  timeZoneOptions,
  weekdayNames,
  zoneLabel,
} from '../../src/web/lib/counter-settings.js';

const plain = {
  value: 7,
  goal: null,
  min: null,
  max: null,
  reset: null,
  startValue: 0,
  section: null,
} as const;

describe('the settings draft', () => {
  it('shows none as blank and the start value as a number', () => {
    expect(draftOf(plain)).toEqual({
      goal: '',
      min: '',
      max: '',
      reset: '',
      startValue: '0',
      section: '',
    });
    expect(
      draftOf({ ...plain, goal: 20, min: -5, max: 100, reset: 'daily', section: 'Entrances' }),
    ).toMatchObject({ goal: '20', min: '-5', max: '100', reset: 'daily', section: 'Entrances' });
  });

  it('saves nothing when nothing changed', () => {
    expect(settingsPatch(draftOf(plain), plain)).toEqual({ ok: true, patch: {} });
  });

  it('saves one patch of exactly what changed', () => {
    const draft = { ...draftOf(plain), goal: ' 20 ', max: '50', reset: 'weekly' as const };
    expect(settingsPatch(draft, plain)).toEqual({
      ok: true,
      patch: { goal: 20, max: 50, reset: 'weekly' },
    });
  });

  it('clears a field left blank (null), and the period set to None', () => {
    const set = { ...plain, goal: 20, max: 50, reset: 'daily' as const, section: 'North' };
    const draft = { ...draftOf(set), goal: '', max: '  ', reset: '' as const, section: '' };
    expect(settingsPatch(draft, set)).toEqual({
      ok: true,
      patch: { goal: null, max: null, reset: null, section: null },
    });
  });

  it('takes a blank start value as 0', () => {
    const draft = { ...draftOf({ ...plain, startValue: 5 }), startValue: '' };
    expect(settingsPatch(draft, { ...plain, startValue: 5 })).toEqual({
      ok: true,
      patch: { startValue: 0 },
    });
  });

  it('refuses a minimum above the maximum with the shared message', () => {
    const draft = { ...draftOf(plain), min: '10', max: '5' };
    expect(settingsPatch(draft, plain)).toEqual({
      ok: false,
      errors: { min: MESSAGES.minAboveMax },
    });
  });

  it('accepts a minimum equal to the maximum', () => {
    const draft = { ...draftOf(plain), min: '7', max: '7' };
    expect(settingsPatch(draft, plain)).toEqual({ ok: true, patch: { min: 7, max: 7 } });
  });

  it('refuses numbers that are not whole or out of range, naming each field', () => {
    const draft = { ...draftOf(plain), goal: '2.5', max: 'ten', min: '99999999999999999' };
    expect(settingsPatch(draft, plain)).toEqual({
      ok: false,
      errors: {
        goal: MESSAGES.notAnInteger,
        max: MESSAGES.notAnInteger,
        min: MESSAGES.valueOutOfRange,
      },
    });
  });

  it('moves an untouched start value inside new limits of a counter that resets', () => {
    const draft = { ...draftOf(plain), min: '5', max: '50', reset: 'daily' as const };
    expect(settingsPatch(draft, plain)).toEqual({
      ok: true,
      patch: { min: 5, max: 50, reset: 'daily', startValue: 5 },
    });
  });

  it('leaves the start value alone for a counter that never resets', () => {
    const draft = { ...draftOf(plain), min: '5', max: '50', startValue: '-3' };
    expect(settingsPatch(draft, plain)).toEqual({
      ok: true,
      patch: { min: 5, max: 50, startValue: -3 },
    });
  });

  it('refuses a typed start value outside the limits of a counter that resets', () => {
    const draft = { ...draftOf(plain), min: '1', startValue: '-3', reset: 'weekly' as const };
    expect(settingsPatch(draft, plain)).toEqual({
      ok: false,
      errors: { startValue: MESSAGES.startValueOutsideLimits },
    });
  });

  it('refuses limits that would leave the current value outside them', () => {
    expect(settingsPatch({ ...draftOf(plain), max: '5' }, plain)).toEqual({
      ok: false,
      errors: { max: MESSAGES.limitsExcludeValue },
    });
    expect(settingsPatch({ ...draftOf(plain), min: '8', startValue: '8' }, plain)).toEqual({
      ok: false,
      errors: { min: MESSAGES.limitsExcludeValue },
    });
  });

  it('sanitises the section name like the server and cuts it to 60 characters', () => {
    expect(sectionOf('  Entrances  ')).toBe('Entrances');
    expect(sectionOf('<script>x</script>North')).toBe('North');
    expect(sectionOf('   ')).toBeNull();
    expect(sectionOf('é'.repeat(80))).toBe('é'.repeat(60));
  });
});

describe('numbers typed in the dialog', () => {
  it('are whole numbers, signs allowed, blank is none', () => {
    expect(parseOptionalInteger('')).toEqual({ ok: true, value: null });
    expect(parseOptionalInteger('-12')).toEqual({ ok: true, value: -12 });
    expect(parseOptionalInteger('+3')).toEqual({ ok: true, value: 3 });
    expect(parseOptionalInteger('1e3')).toEqual({ ok: false, message: MESSAGES.notAnInteger });
  });
});

describe('section suggestions', () => {
  it('lists each section in use once, sorted', () => {
    expect(
      sectionNames([
        { section: 'South' },
        { section: null },
        { section: 'North' },
        { section: 'South' },
      ]),
    ).toEqual(['North', 'South']);
  });
});

describe('group settings', () => {
  it('suggests the group’s zone, this device’s and UTC first, each once', () => {
    const options = timeZoneOptions('UTC', 'Europe/Berlin', ['Europe/Berlin', 'Asia/Tokyo']);
    expect(options.suggested).toEqual(['UTC', 'Europe/Berlin']);
    expect(options.all).toEqual(['Asia/Tokyo', 'Europe/Berlin', 'UTC']);
  });

  it('keeps a current zone the browser does not list', () => {
    const options = timeZoneOptions('America/Nuuk', undefined, ['Asia/Tokyo']);
    expect(options.suggested).toEqual(['America/Nuuk', 'UTC']);
    expect(options.all).toContain('America/Nuuk');
  });

  it('names the week days from Monday (1) to Sunday (7)', () => {
    expect(weekdayNames()[0]).toBe('Monday');
    expect(weekdayNames()[6]).toBe('Sunday');
  });

  it('writes zone names readably', () => {
    expect(zoneLabel('America/Argentina/Buenos_Aires')).toBe('America / Argentina / Buenos Aires');
  });
});
