/**
 * The activity log as a hash chain (ADR 30): each entry of a group carries
 * SHA-256(previous entry's hash, a newline, the entry's canonical form), written in the commit
 * that made it, and the group's row keeps the newest hash (its head) and, once old entries were
 * pruned, the hash of the last one removed (its anchor). Re-computing the chain from the anchor
 * to the head finds an entry edited, deleted, inserted or moved after it was written: the first
 * entry whose hash does not follow is where the log was changed.
 *
 * What is chained is what an entry says, as the API shows it (so an exported file can be checked
 * with the same rule, scripts/verify-export.mjs): who, what, which counter, the value after, the
 * amounts, its details, when and when it was counted for, with the group's id. Its note (which its
 * member may change afterwards, ADR 36), its id, which later entry took it back
 * (`undoneBy`) and which entry an undo took back (`undoOf`) are set or known only after its hash
 * is made: they are not covered (the order of entries is: each follows the one before).
 */
import { createHash } from 'node:crypto';
import type { ActivityEntry } from '../../shared/activity.js';
import type { ActivityDraft } from './activity.js';
import { canonicalJson } from './canonical-json.js';
import { draftEntry } from './entry-record.js';

/** What a group's first chained entry follows: no entry. */
export const CHAIN_START = '';

/**
 * The text an entry's hash is made from: the group's id on a line, then the entry as canonical
 * JSON (keys sorted) without its id and undo links.
 */
export function chainedText(groupId: string, entry: ActivityEntry): string {
  // Left out by setting them undefined (canonicalJson skips those), cheaper than a rest copy.
  // A note may be changed by its member afterwards (ADR 36): it is not what the chain proves.
  const said = {
    ...entry,
    id: undefined,
    undoOf: undefined,
    undoneBy: undefined,
    note: undefined,
  };
  return `${JSON.stringify(groupId)}\n${canonicalJson(said)}`;
}

/** The entry's hash after `previous` (CHAIN_START for a group's first), hex. */
export function chainHash(previous: string, groupId: string, entry: ActivityEntry): string {
  return hashAfter(previous, chainedText(groupId, entry));
}

const hashAfter = (previous: string, text: string): string =>
  createHash('sha256').update(`${previous}\n${text}`).digest('hex');

/**
 * A new entry's hash after `previous`, from its draft (`at`: the batch's time, epoch ms). Taps,
 * the hot path's entries, have their canonical text written directly: the same text as
 * chainedText of the entry read back from its row (test/unit/log-chain.test.ts compares the two
 * for every shape a tap's entry takes), without building the entry and sorting its keys.
 */
export function draftChainHash(previous: string, draft: ActivityDraft, at: number): string {
  // An imported entry or a count for an earlier time says more than a tap made here: the
  // general form.
  if (
    draft.kind !== 'counter.adjusted' ||
    draft.imported !== undefined ||
    draft.countedAt !== undefined
  ) {
    return chainHash(previous, draft.groupId, draftEntry(draft, at));
  }
  return hashAfter(previous, adjustedChainText(draft, at));
}

/** chainedText of a tap's entry: its keys in sorted order, without id and undo links. */
export function adjustedChainText(draft: ActivityDraft, at: number): string {
  const delta = draft.delta ?? 0;
  const increments = draft.increments ?? Math.max(delta, 0);
  const decrements = draft.decrements ?? Math.max(-delta, 0);
  const goal = (draft.detail as { goal?: number } | null)?.goal ?? null;
  const link =
    draft.link === null
      ? ''
      : `,"link":{"id":${JSON.stringify(draft.link.id)},"label":${JSON.stringify(draft.link.label)}}`;
  return (
    `${JSON.stringify(draft.groupId)}\n{"actor":${JSON.stringify(draft.actor)},` +
    `"at":"${new Date(at).toISOString()}","counterId":${JSON.stringify(draft.counterId ?? '')},` +
    `"counterName":${JSON.stringify(draft.counterName ?? '')},"decrements":${JSON.stringify(decrements)},` +
    `"delta":${JSON.stringify(delta)},"increments":${JSON.stringify(increments)},` +
    `"kind":"counter.adjusted"${link},"reachedGoal":${JSON.stringify(goal)},` +
    `"seq":${JSON.stringify(draft.seq)},"value":${JSON.stringify(draft.value)}}`
  );
}

/** What a re-computed chain says. */
export type ChainVerdict =
  { ok: true; checked: number } | { ok: false; checked: number; firstBrokenId: number };

/** A stored entry as the check reads it: its stored hash and the entry as the API shows it. */
export interface StoredChainEntry {
  /** Null for an entry written before the log was chained (older servers). */
  hash: string | null;
  entry: ActivityEntry;
}

/**
 * Re-computes a group's chain, entry by entry in id order (`add` a page at a time), from the
 * group's anchor; `verdict` checks the last hash against the group's head too, so entries
 * removed from the newest end are found (the first broken id is then the head's own: none).
 *
 * Entries written before the log was chained (no hash) may come first, and are not checked;
 * one without a hash after a chained one is a break.
 */
export class ChainCheck {
  private previous: string;
  private checked = 0;
  private chained = false;
  private broken: number | null = null;
  private lastId = 0;

  private readonly anchored: boolean;

  constructor(
    private readonly groupId: string,
    anchor: string | null,
  ) {
    this.previous = anchor ?? CHAIN_START;
    this.anchored = anchor !== null;
  }

  add(entries: Iterable<StoredChainEntry>): void {
    for (const { hash, entry } of entries) {
      const { id } = entry;
      this.lastId = id;
      if (this.broken !== null) return;
      if (hash === null && !this.chained) continue;
      this.chained = true;
      const expected = chainHash(this.previous, this.groupId, entry);
      if (hash !== expected) {
        this.broken = id;
        return;
      }
      this.previous = expected;
      this.checked += 1;
    }
  }

  /** Whether the chain holds up to the group's head (null: the group has no chained entry). */
  verdict(head: string | null): ChainVerdict {
    if (this.broken !== null) {
      return { ok: false, checked: this.checked, firstBrokenId: this.broken };
    }
    // Where the chain ends: its last entry, or the anchor when every chained entry was pruned.
    const end = this.chained || this.anchored ? this.previous : null;
    if (end !== head) {
      // The newest entries were removed (or the head changed): the break is after the last one.
      return { ok: false, checked: this.checked, firstBrokenId: this.lastId + 1 };
    }
    return { ok: true, checked: this.checked };
  }
}
