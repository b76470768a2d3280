/**
 * Numbered operation ids (ADR 24): the two id forms, and the window of numbers a group keeps per
 * client session (domain/numbered-ids.ts), on their own, without a database.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OperationIdSchema } from '../../src/shared/api.js';
import { OPERATION_SESSION_WINDOW } from '../../src/shared/limits.js';
import { numberedId, parseNumberedId } from '../../src/shared/operation-ids.js';
import {
  numberState,
  seenFromText,
  seenText,
  withNumber,
  type SessionWindow,
} from '../../src/server/domain/numbered-ids.js';

describe('operation ids', () => {
  it('accepts opaque ids and numbered ids, and nothing else', () => {
    const valid = [
      'a',
      '0123456789abcdef01234567',
      'x'.repeat(64),
      'tab7Kq2x.1',
      `${'s'.repeat(40)}.999999999999999`,
    ];
    for (const id of valid) expect(OperationIdSchema.safeParse(id).success, id).toBe(true);
    const invalid = [
      '',
      'x'.repeat(65),
      'short.1', // a session of 7 characters
      `${'s'.repeat(41)}.1`,
      'tab7Kq2x.0',
      'tab7Kq2x.01',
      'tab7Kq2x.1000000000000000', // 16 digits
      'tab7Kq2x.-1',
      'tab7Kq2x.1.2',
      'tab.7Kq2x',
      'tab7Kq2x.',
    ];
    for (const id of invalid) expect(OperationIdSchema.safeParse(id).success, id).toBe(false);
  });

  it('parses the session and number of a numbered id, and nothing from an opaque one', () => {
    expect(parseNumberedId('tab7Kq2x.42')).toEqual({ session: 'tab7Kq2x', n: 42 });
    expect(parseNumberedId(numberedId('tab7Kq2x_-', 999_999_999_999_999))).toEqual({
      session: 'tab7Kq2x_-',
      n: 999_999_999_999_999,
    });
    expect(parseNumberedId('0123456789abcdef01234567')).toBeUndefined();
    expect(parseNumberedId('short.1')).toBeUndefined();
  });
});

describe('a session window', () => {
  /** The window after applying these numbers in order. */
  const apply = (first: number, ...rest: number[]): SessionWindow =>
    rest.reduce((window, n) => withNumber(window, n), withNumber(undefined, first));

  it('knows every number of a new session as new', () => {
    expect(numberState(undefined, 1)).toBe('new');
    expect(numberState(undefined, 10 ** 14)).toBe('new');
  });

  it('tells applied numbers from gaps, in any order within the window', () => {
    const window = apply(5, 2, 9, 3);
    expect(window.high).toBe(9);
    const states = Array.from({ length: 10 }, (_, i) => numberState(window, i + 1));
    expect(states).toEqual([
      'new',
      'applied',
      'applied',
      'new',
      'applied',
      'new',
      'new',
      'new',
      'applied',
      'new',
    ]);
  });

  it('holds the newest number and the WINDOW − 1 below it; older ones are expired', () => {
    const high = 1 + OPERATION_SESSION_WINDOW;
    const window = apply(1, 2, high);
    expect(numberState(window, 1)).toBe('expired');
    expect(numberState(window, 2)).toBe('applied');
    expect(numberState(window, 3)).toBe('new');
    expect(numberState(window, high + 1)).toBe('new');
  });

  it('forgets every bit after a jump of a whole window, and keeps the bits it shifts', () => {
    const jumped = apply(1, 2, 3, 3 + OPERATION_SESSION_WINDOW);
    expect(jumped.seen).toBe(1n);
    const shifted = apply(1, 2, 3, 3 + OPERATION_SESSION_WINDOW - 1);
    expect(numberState(shifted, 3)).toBe('applied');
    expect(numberState(shifted, 2)).toBe('expired');
  });

  it('records nothing for a number already out of the window when it is applied', () => {
    const window = apply(1 + OPERATION_SESSION_WINDOW);
    expect(withNumber(window, 1)).toEqual(window);
  });

  it('agrees with a plain set of applied numbers for any order of arrivals', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 3 * OPERATION_SESSION_WINDOW }), { maxLength: 400 }),
        (arrivals) => {
          let window: SessionWindow | undefined;
          const applied = new Set<number>();
          let newest = 0;
          for (const n of arrivals) {
            const expected =
              newest - n >= OPERATION_SESSION_WINDOW
                ? 'expired'
                : applied.has(n)
                  ? 'applied'
                  : 'new';
            expect(numberState(window, n)).toBe(expected);
            if (expected !== 'new') continue;
            window = withNumber(window, n);
            applied.add(n);
            newest = Math.max(newest, n);
          }
        },
      ),
      { numRuns: 300, seed: 24 },
    );
  });

  it('stores its bits as hex text of at most WINDOW / 4 characters, read back exactly', () => {
    let window: SessionWindow | undefined;
    for (let n = 1; n <= 3 * OPERATION_SESSION_WINDOW; n += 2) window = withNumber(window, n);
    const text = seenText(window?.seen ?? 0n);
    expect(text.length).toBeLessThanOrEqual(OPERATION_SESSION_WINDOW / 4);
    expect(text).toMatch(/^[0-9a-f]+$/);
    expect(seenFromText(text)).toBe(window?.seen);
  });
});
