/**
 * The group screen's opening (src/web/lib/opening.ts): a join started before the screen (by the
 * landing page, or by the entry script for a group link) is taken by the screen once, and a
 * screen whose group is already known opens without 'Loading group...'.
 */
import { describe, expect, it } from 'vitest';
import type { GroupSnapshot } from '../../src/shared/api.js';
import { handOver, openingAnswered, takeOpening } from '../../src/web/lib/opening.js';

const KEY = 'ab'.repeat(32);
const snapshot: GroupSnapshot = {
  group: {
    id: 'g1',
    name: 'team',
    displayName: 'Team',
    profileImageUrl: null,
    timeZone: 'UTC',
    weekStart: 1,
    sectionLimits: {},
  },
  counters: [],
  seq: 4,
  access: 'full',
};

describe('an opening handed over by the landing page', () => {
  it('is answered at once for its own URL only, and taken once', () => {
    handOver(KEY, snapshot);
    expect(openingAnswered('team', KEY)).toBe(true);
    expect(openingAnswered('other', KEY)).toBe(false);
    expect(openingAnswered('team', 'cd'.repeat(32))).toBe(false);

    const opening = takeOpening('team', KEY);
    expect(opening.ok && opening.answered).toBe(snapshot);
    // Taken: a later screen for the same URL starts its own opening, which has not answered.
    expect(openingAnswered('team', KEY)).toBe(false);
  });

  it('checks the name and key of an opening it starts itself', () => {
    const opening = takeOpening('team', 'not-a-key');
    expect(opening.ok).toBe(false);
  });
});
