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
 * amounts, its details and when, with the group's id. Its id, which later entry took it back
 * (`undoneBy`) and which entry an undo took back (`undoOf`) are set or known only after its hash
 * is made: they are not covered (the order of entries is: each follows the one before).
 */
import { createHash } from 'node:crypto';
import type { ActivityEntry } from '../../shared/activity.js';
import { canonicalJson } from './canonical-json.js';

/** What a group's first chained entry follows: no entry. */
export const CHAIN_START = '';

/**
 * The text an entry's hash is made from: the group's id on a line, then the entry as canonical
 * JSON (keys sorted) without its id and undo links.
 */
export function chainedText(groupId: string, entry: ActivityEntry): string {
  // Left out by setting them undefined (canonicalJson skips those), cheaper than a rest copy.
  const said = { ...entry, id: undefined, undoOf: undefined, undoneBy: undefined };
  return `${JSON.stringify(groupId)}\n${canonicalJson(said)}`;
}

/** The entry's hash after `previous` (CHAIN_START for a group's first), hex. */
export function chainHash(previous: string, groupId: string, entry: ActivityEntry): string {
  return createHash('sha256')
    .update(`${previous}\n${chainedText(groupId, entry)}`)
    .digest('hex');
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
