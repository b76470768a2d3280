/**
 * The activity log's hash chain, without a database: a chain re-computed from its anchor holds
 * for entries as written, and breaks at the first entry that was edited, removed, inserted or
 * moved, or past the last one when the newest were removed.
 */
import { describe, expect, it } from 'vitest';
import type { ActivityEntry } from '../../src/shared/activity.js';
import type { ActivityDraft } from '../../src/server/domain/activity.js';
import { draftColumns, toActivityEntry } from '../../src/server/domain/entry-record.js';
import {
  CHAIN_START,
  ChainCheck,
  adjustedChainText,
  chainHash,
  chainedText,
  draftChainHash,
  type StoredChainEntry,
} from '../../src/server/domain/log-chain.js';

/** A tap's entry, as the API shows it. */
function entry(id: number, fields: { delta?: number } = {}): ActivityEntry {
  const delta = fields.delta ?? 1;
  return {
    kind: 'counter.adjusted',
    id,
    seq: id,
    at: new Date(1_764_200_000_000 + id).toISOString(),
    actor: 'Ada',
    undoOf: null,
    undoneBy: null,
    counterId: 'c',
    counterName: 'Coffees',
    value: id,
    delta,
    increments: Math.max(delta, 0),
    decrements: 0,
    reachedGoal: null,
  };
}

/** A log of `count` entries as the commit writes it, ids from 1. */
function written(count: number, anchor = CHAIN_START): StoredChainEntry[] {
  let previous = anchor;
  return Array.from({ length: count }, (_, index) => {
    const made = entry(index + 1);
    previous = chainHash(previous, 'g', made);
    return { hash: previous, entry: made };
  });
}

/** The same entry under another id (what a swap of two rows' contents looks like). */
const renumbered = (row: StoredChainEntry, id: number): StoredChainEntry => ({
  ...row,
  entry: { ...row.entry, id },
});

function check(
  entries: StoredChainEntry[],
  group: { anchor?: string | null; head: string | null },
) {
  const chain = new ChainCheck('g', group.anchor ?? null);
  chain.add(entries.slice(0, 2));
  chain.add(entries.slice(2));
  return chain.verdict(group.head);
}

const headOf = (entries: StoredChainEntry[]) => entries[entries.length - 1]?.hash ?? null;

describe('the activity hash chain', () => {
  it('holds for entries as written, read a page at a time', () => {
    // The id and undo links are not chained; what the entry says is.
    const first = entry(1);
    expect(chainHash(CHAIN_START, 'g', { ...first, id: 9, undoneBy: 4 })).toBe(
      chainHash(CHAIN_START, 'g', first),
    );
    expect(chainHash(CHAIN_START, 'h', first)).not.toBe(chainHash(CHAIN_START, 'g', first));
    const log = written(5);
    expect(check(log, { head: headOf(log) })).toEqual({ ok: true, checked: 5 });
  });

  it('breaks at an entry whose amount was edited', () => {
    const log = written(5);
    const edited = log.map((row) =>
      row.entry.id === 3 ? { ...row, entry: entry(3, { delta: 100 }) } : row,
    );
    expect(check(edited, { head: headOf(log) })).toEqual({
      ok: false,
      checked: 2,
      firstBrokenId: 3,
    });
  });

  it('breaks after an entry that was deleted, and at the first of two that were swapped', () => {
    const log = written(5);
    expect(
      check(
        log.filter((row) => row.entry.id !== 2),
        { head: headOf(log) },
      ),
    ).toMatchObject({
      ok: false,
      firstBrokenId: 3,
    });
    const [one, two, three, four, five] = log as [
      StoredChainEntry,
      StoredChainEntry,
      StoredChainEntry,
      StoredChainEntry,
      StoredChainEntry,
    ];
    const swapped = [one, renumbered(three, 2), renumbered(two, 3), four, five];
    expect(check(swapped, { head: headOf(log) })).toMatchObject({ ok: false, firstBrokenId: 2 });
  });

  it('breaks past the last entry when the newest ones were removed', () => {
    const log = written(5);
    expect(check(log.slice(0, 3), { head: headOf(log) })).toEqual({
      ok: false,
      checked: 3,
      firstBrokenId: 4,
    });
  });

  it('holds from its anchor once old entries were pruned, and with every entry pruned', () => {
    const log = written(6);
    const anchor = log[2]?.hash ?? null;
    expect(check(log.slice(3), { anchor, head: headOf(log) })).toEqual({ ok: true, checked: 3 });
    expect(check([], { anchor: headOf(log), head: headOf(log) })).toEqual({
      ok: true,
      checked: 0,
    });
    // Removing the oldest remaining entries without moving the anchor is found.
    expect(check(log.slice(4), { anchor, head: headOf(log) })).toMatchObject({
      ok: false,
      firstBrokenId: 5,
    });
  });

  it('skips entries written before the log was chained, but not an unchained one after', () => {
    const log = written(3);
    const legacy = [{ id: -1, hash: null, entry: entry(0) }, ...log.map((row) => ({ ...row }))];
    expect(check(legacy, { head: headOf(log) })).toEqual({ ok: true, checked: 3 });
    const stripped = log.map((row) => (row.entry.id === 2 ? { ...row, hash: null } : row));
    expect(check(stripped, { head: headOf(log) })).toMatchObject({ ok: false, firstBrokenId: 2 });
    expect(check([], { head: null })).toEqual({ ok: true, checked: 0 });
  });
});

describe('a tap entry’s chained text, written from its draft', () => {
  const base: ActivityDraft = {
    groupId: 'g-1',
    seq: 42,
    actor: 'Ada',
    link: null,
    kind: 'counter.adjusted',
    counterId: 'c-1',
    counterName: 'Coffees',
    value: 12,
    delta: 3,
    increments: 4,
    decrements: 1,
    detail: null,
    opIds: ['op-1'],
  };
  const shapes: [string, Partial<ActivityDraft>][] = [
    ['a plain tap', {}],
    ['a tap through a tap link', { link: { id: 'l-1', label: 'Gate "B" · Ost' } }],
    ['a tap that reached the goal', { detail: { goal: 20 } }],
    ['an entry without its amounts (older rows)', { increments: null, decrements: null }],
    ['a negative delta', { delta: -5, increments: 0, decrements: 5, value: -5 }],
    ['text that JSON escapes', { actor: 'Zoë \\ "the" 🎉\n', counterName: '</script>\u2028' }],
    ['the largest values', { value: Number.MAX_SAFE_INTEGER, delta: -Number.MAX_SAFE_INTEGER }],
  ];
  it.each(shapes)('is the text of the entry read back from its row: %s', (_name, fields) => {
    const draft = { ...base, ...fields };
    const at = 1_795_761_192_688;
    const row = toActivityEntry({
      id: 7,
      at,
      ...draftColumns(draft),
      undo_of: null,
      undone_by: null,
    });
    expect(adjustedChainText(draft, at)).toBe(chainedText(draft.groupId, row));
    expect(draftChainHash('prev', draft, at)).toBe(chainHash('prev', draft.groupId, row));
  });
});
