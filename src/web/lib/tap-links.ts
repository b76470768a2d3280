/**
 * Tap links on the web (docs/product.md#tap-links): what a page may tap with its key, and what a
 * link's page says it may do. The owner's list words a link's scope and rights in
 * tap-link-words.ts, loaded with that tab. Pure: unit-tested in test/unit/web-tap-links.test.ts.
 */
import { plural, t } from '@lingui/core/macro';
import type { AccessLevel, AdjustDirection } from '../../shared/api.js';
import type { TapGrant, TapLinkScope } from '../../shared/links.js';

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

/** The counters a scope names, within a sentence: "every counter", "the counters of Entrances". */
function scopePhrase(scope: TapLinkScope, counterCount: number): string {
  if ('all' in scope) return t`every counter`;
  if ('section' in scope) {
    const section = scope.section;
    return t`the counters of ${section}`;
  }
  return plural(counterCount, { one: 'one counter', other: '# chosen counters' });
}

/**
 * What a tap link's page may do, after its label ("Tap link · Gate B — you can count the counters
 * of Entrances, up only. …"). `counterCount` is how many counters the page holds (its scope's).
 */
export function tapLinkSentence(link: Pick<TapGrant, 'scope' | 'can'>, counterCount: number) {
  const rights = tapRights('tap', link);
  const how =
    rights.increment && rights.decrement
      ? t`up and down`
      : rights.increment
        ? t`up only`
        : t`down only`;
  const counters = scopePhrase(link.scope, counterCount);
  return t`you can count ${counters}, ${how}. Nothing else can be changed with this link.`;
}

/** Why a direction does nothing on this page, shown on screen when a key or tap asks for it. */
export function directionRefused(direction: AdjustDirection): string {
  return direction === 'increment'
    ? t`This tap link counts down only: it cannot add.`
    : t`This tap link counts up only: it cannot take away.`;
}
