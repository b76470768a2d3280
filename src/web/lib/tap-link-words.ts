/**
 * A tap link's scope and rights in the owner's list and form, in the member's language: the
 * server's English for the same (shared/link-rules.ts) word for word in English. Apart from
 * tap-links.ts, which the group screen's first load carries: only the Tap links tab needs these.
 */
import { plural, t } from '@lingui/core/macro';
import type { TapLinkScope, TapRight } from '../../shared/links.js';

/** "Every counter", "Section Entrances", "2 counters". */
export function scopeSummary(scope: TapLinkScope, counterCount?: number): string {
  if ('all' in scope) return t`Every counter`;
  if ('section' in scope) {
    const section = scope.section;
    return t`Section ${section}`;
  }
  const count = counterCount ?? scope.counterIds.length;
  return plural(count, { one: '# counter', other: '# counters' });
}

/** What a link may do, in words. */
export function rightsSummary(can: readonly TapRight[]): string {
  if (can.includes('increment') && can.includes('decrement')) return t`Count up and down`;
  return can.includes('increment') ? t`Count up only` : t`Count down only`;
}
