/**
 * Tap links' bounds, messages and rules, apart from the zod schemas in links.ts so the web app
 * can use them without shipping zod to the browser (as live.ts sits beside protocol.ts).
 */
import type { Counter } from './api.js';
import type { TapLinkScope, TapRight } from './links.js';

/**
 * Most tap links one group may have at once: every call with a key that is not the group's own
 * compares it with each of them, and an event has a handful of doors, not hundreds.
 */
export const MAX_TAP_LINKS_PER_GROUP = 50;
/**
 * Revoked links remembered per group (newest first), so a revoked link's holder is told it was
 * revoked rather than that the key is wrong; older ones are forgotten and read as wrong keys.
 */
export const REMEMBERED_REVOKED_LINKS = 50;
/** A link's label, characters (after sanitising): it stands beside a member's name in the log. */
export const TAP_LINK_LABEL_MAX_LENGTH = 40;
/** Counters a scope may name: the group's own bound on counters. */
export const TAP_LINK_SCOPE_MAX_COUNTERS = 500;

export const LINK_MESSAGES = {
  labelEmpty: 'A tap link needs a label, such as the door or desk it is for.',
  canEmpty: 'A tap link must be allowed to count up, count down, or both.',
  scopeInvalid:
    'A tap link’s scope is every counter ({"all": true}), chosen counters ({"counterIds": […]}) or one section ({"section": "…"}).',
  tooManyLinks: `This group has reached its limit of ${String(MAX_TAP_LINKS_PER_GROUP)} tap links. Revoke one to make another.`,
  linkNotFound: 'This tap link does not exist (anymore).',
  tapOnly: 'This is a tap link: it can only count the counters it was made for.',
  revoked: 'This tap link was revoked. Ask the group for a new link.',
  unknownCounter: (id: string) => `This group has no counter with the id ${id}.`,
} as const;

// ---- Rules -------------------------------------------------------------------------------------

/** Whether a counter is in a link's scope (a section scope follows the counter's section now). */
export function inScope(scope: TapLinkScope, counter: Pick<Counter, 'id' | 'section'>): boolean {
  if ('all' in scope) return true;
  if ('section' in scope) return counter.section === scope.section;
  return scope.counterIds.includes(counter.id);
}

/** The link's scope in words, for the share dialog and the owner's list. */
export function scopeSummary(scope: TapLinkScope, counterCount?: number): string {
  if ('all' in scope) return 'Every counter';
  if ('section' in scope) return `Section ${scope.section}`;
  const n = counterCount ?? scope.counterIds.length;
  return n === 1 ? '1 counter' : `${String(n)} counters`;
}

/** What a link may do, in words. */
export function rightsSummary(can: readonly TapRight[]): string {
  if (can.includes('increment') && can.includes('decrement')) return 'Count up and down';
  return can.includes('increment') ? 'Count up only' : 'Count down only';
}
