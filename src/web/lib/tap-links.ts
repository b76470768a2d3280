/**
 * Tap links on the web (docs/product.md#tap-links): what a page may tap with its key, and a link's
 * scope and rights in words. Types only from shared/links.ts: its runtime is zod, which must not
 * ship to the browser (the words here say the same as its scopeSummary and rightsSummary). Pure:
 * unit-tested in test/unit/web-tap-links.test.ts.
 */
import type { AccessLevel, AdjustDirection } from '../../shared/api.js';
import type { TapGrant, TapLinkScope, TapRight } from '../../shared/links.js';

/** The directions a page may count in. One object per case, so memoised cards compare them. */
export type TapRights = Readonly<Record<AdjustDirection, boolean>>;

const BOTH: TapRights = { increment: true, decrement: true };
const UP: TapRights = { increment: true, decrement: false };
const DOWN: TapRights = { increment: false, decrement: true };
const NONE: TapRights = { increment: false, decrement: false };

/** What this page may tap: everything with the access key, nothing view-only, a link's rights. */
export function tapRights(access: AccessLevel, link: Pick<TapGrant, 'can'> | null): TapRights {
  if (access === 'full') return BOTH;
  if (access === 'view' || link === null) return NONE;
  const up = link.can.includes('increment');
  const down = link.can.includes('decrement');
  return up && down ? BOTH : up ? UP : down ? DOWN : NONE;
}

/** The link's scope in words, for the owner's list: "Every counter", "Section Entrances", "3 counters". */
export function scopeSummary(scope: TapLinkScope, counterCount?: number): string {
  if ('all' in scope) return 'Every counter';
  if ('section' in scope) return `Section ${scope.section}`;
  const n = counterCount ?? scope.counterIds.length;
  return n === 1 ? '1 counter' : `${String(n)} counters`;
}

/** What a link may do, in words: "Count up and down", "Count up only", "Count down only". */
export function rightsSummary(can: readonly TapRight[]): string {
  if (can.includes('increment') && can.includes('decrement')) return 'Count up and down';
  return can.includes('increment') ? 'Count up only' : 'Count down only';
}

/** The counters a scope names, within a sentence: "every counter", "the counters of Entrances". */
function scopePhrase(scope: TapLinkScope, counterCount: number): string {
  if ('all' in scope) return 'every counter';
  if ('section' in scope) return `the counters of ${scope.section}`;
  return counterCount === 1 ? 'one counter' : `${String(counterCount)} chosen counters`;
}

/**
 * What a tap link's page may do, after its label ("Tap link · Gate B — you can count the counters
 * of Entrances, up only. …"). `counterCount` is how many counters the page holds (its scope's).
 */
export function tapLinkSentence(link: Pick<TapGrant, 'scope' | 'can'>, counterCount: number) {
  const rights = tapRights('tap', link);
  const how =
    rights.increment && rights.decrement
      ? 'up and down'
      : rights.increment
        ? 'up only'
        : 'down only';
  return `you can count ${scopePhrase(link.scope, counterCount)}, ${how}. Nothing else can be changed with this link.`;
}

/** Why a direction does nothing on this page, shown on screen when a key or tap asks for it. */
export function directionRefused(direction: AdjustDirection): string {
  return direction === 'increment'
    ? 'This tap link counts down only: it cannot add.'
    : 'This tap link counts up only: it cannot take away.';
}
