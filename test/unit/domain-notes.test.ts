/**
 * Who may change an entry's note, and until when (src/server/domain/notes.ts): the member who made
 * the change, through the same link, within 24 hours; never an automatic reset.
 */
import { describe, expect, it } from 'vitest';
import { noteEditRefusal } from '../../src/server/domain/notes.js';
import type { ActivityEntry } from '../../src/shared/activity.js';

const at = Date.parse('2026-11-20T12:00:00Z');
const HOUR = 3_600_000;

const tap: ActivityEntry = {
  kind: 'counter.adjusted',
  id: 7,
  seq: 3,
  at: new Date(at).toISOString(),
  actor: 'Ada',
  undoOf: null,
  undoneBy: null,
  counterId: 'c1',
  counterName: 'Coffees',
  value: 3,
  delta: 3,
  increments: 3,
  decrements: 0,
  reachedGoal: null,
};

describe('changing a note', () => {
  it('lets its member change it until 24 hours after the change, not a millisecond later', () => {
    expect(noteEditRefusal(tap, { actor: 'Ada', linkId: null, now: at + 24 * HOUR })).toBeNull();
    expect(noteEditRefusal(tap, { actor: 'Ada', linkId: null, now: at + 24 * HOUR + 1 })).toEqual({
      code: 'note_edit_closed',
      message: 'A note can be changed for 24 hours after the change.',
    });
  });

  it('refuses another member, and the same name through another link', () => {
    const refusal = {
      code: 'not_your_entry',
      message: 'Only the member who made this change can change its note.',
    };
    expect(noteEditRefusal(tap, { actor: 'Bob', linkId: null, now: at })).toEqual(refusal);
    expect(noteEditRefusal(tap, { actor: 'Ada', linkId: 'gate-b', now: at })).toEqual(refusal);
    const linked = { ...tap, link: { id: 'gate-b', label: 'Gate B' } };
    expect(noteEditRefusal(linked, { actor: 'Ada', linkId: 'gate-b', now: at })).toBeNull();
  });

  it('refuses a note on an automatic reset, even to a member named Tally', () => {
    const reset: ActivityEntry = {
      kind: 'counter.reset',
      id: 8,
      seq: 4,
      at: new Date(at).toISOString(),
      actor: 'Tally',
      undoOf: null,
      undoneBy: null,
      counterId: 'c1',
      counterName: 'Coffees',
      value: 0,
      final: 3,
      periodStart: '2026-11-19T00:00:00.000Z',
      periodEnd: '2026-11-20T00:00:00.000Z',
    };
    expect(noteEditRefusal(reset, { actor: 'Tally', linkId: null, now: at })).toMatchObject({
      code: 'validation_failed',
    });
  });
});
