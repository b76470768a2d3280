import { DateTime, IANAZone } from 'luxon';
import { describe, expect, it } from 'vitest';
import { canonicalTimeZone } from '../../src/shared/rules.js';
import { ianaZoneName } from '../../src/shared/time-zones.js';

describe('time zones under their current IANA names', () => {
  it('stores Asia/Kolkata, Asia/Ho_Chi_Minh and Europe/Kyiv, whichever name is sent', () => {
    for (const [sent, stored] of [
      ['Asia/Kolkata', 'Asia/Kolkata'],
      ['Asia/Calcutta', 'Asia/Kolkata'],
      ['asia/saigon', 'Asia/Ho_Chi_Minh'],
      ['Asia/Ho_Chi_Minh', 'Asia/Ho_Chi_Minh'],
      ['Europe/Kiev', 'Europe/Kyiv'],
      ['Europe/Kyiv', 'Europe/Kyiv'],
      ['utc', 'UTC'],
      ['Europe/Berlin', 'Europe/Berlin'],
    ] as const) {
      expect(canonicalTimeZone(sent), sent).toBe(stored);
    }
    expect(canonicalTimeZone('Mars/Olympus')).toBeNull();
  });

  it('the stored names are zones luxon (the server’s period arithmetic) knows, with the same rules', () => {
    const at = Date.UTC(2026, 0, 15, 12);
    for (const [old, current] of [
      ['Asia/Calcutta', 'Asia/Kolkata'],
      ['Asia/Saigon', 'Asia/Ho_Chi_Minh'],
      ['Europe/Kiev', 'Europe/Kyiv'],
    ] as const) {
      expect(IANAZone.isValidZone(current)).toBe(true);
      expect(DateTime.fromMillis(at, { zone: current }).offset).toBe(
        DateTime.fromMillis(at, { zone: old }).offset,
      );
    }
  });

  it('lists no replaced name among the zones this runtime offers', () => {
    const offered = new Set(Intl.supportedValuesOf('timeZone').map(ianaZoneName));
    for (const old of ['Asia/Calcutta', 'Asia/Saigon', 'Europe/Kiev']) {
      expect(offered.has(old)).toBe(false);
    }
    for (const current of ['Asia/Kolkata', 'Asia/Ho_Chi_Minh', 'Europe/Kyiv']) {
      expect(offered.has(current)).toBe(true);
    }
  });
});
