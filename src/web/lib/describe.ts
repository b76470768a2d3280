/**
 * Words for the activity log and the undo toast: every entry readable at a glance, "Ada +5 on
 * Coffees", "Ada renamed Coffees → Teas", "Bob undid Ada +5 on Coffees". Pure functions, no DOM:
 * unit-tested in test/unit/web-describe.test.ts.
 */
import { t } from '@lingui/core/macro';
import type { ActivityEntry, FieldChange } from '../../shared/activity.js';
import { memberName } from './member-name.js';
import type { Op } from '../live/ops.js';
import { ApiRequestError } from './api.js';
import { periodKind } from './periods.js';
import { dateLocale, formatNumber, numbersInOrder } from '../i18n/format.js';
import { weekdayName } from '../i18n/dates.js';

/**
 * "+5" or "−3" (a real minus sign, read as "minus" by screen readers), in the language's digits;
 * where text runs right to left, isolated so the sign stays before the number ("+3", not "3+").
 */
export function signed(delta: number): string {
  return numbersInOrder(delta < 0 ? `\u2212${formatNumber(-delta)}` : `+${formatNumber(delta)}`);
}

/** A changed value as the log shows it: a number in the language's digits, else as it is. */
const shown = (value: FieldChange['from']) =>
  typeof value === 'number' ? formatNumber(value) : String(value);

/** A section's name as a change carries it (from may be '' in this tab's own patches). */
const sectionOf = (value: FieldChange['from']) =>
  value === null || value === '' ? null : String(value);

const fieldPhrase = (change: FieldChange, name: string): string => {
  const { field, from, to } = change;
  const value = shown(to);
  switch (field) {
    case 'name': {
      const before = shown(from);
      return t`renamed ${before} → ${value}`;
    }
    case 'value':
      return t`set ${name} to ${value}`;
    case 'description':
      return to === ''
        ? t`cleared the description of ${name}`
        : t`changed the description of ${name}`;
    case 'incrementStep':
      return t`set the increment step of ${name} to ${value}`;
    case 'decrementStep':
      return t`set the decrement step of ${name} to ${value}`;
    case 'thumbnailUrl':
      if (to === null) return t`removed the thumbnail of ${name}`;
      return from === null ? t`added a thumbnail to ${name}` : t`changed the thumbnail of ${name}`;
    case 'goal':
      return to === null ? t`removed the goal of ${name}` : t`set the goal of ${name} to ${value}`;
    case 'min':
      return to === null
        ? t`removed the minimum of ${name}`
        : t`set the minimum of ${name} to ${value}`;
    case 'max':
      return to === null
        ? t`removed the maximum of ${name}`
        : t`set the maximum of ${name} to ${value}`;
    case 'reset':
      switch (to) {
        case null:
          return t`stopped the automatic reset of ${name}`;
        case 'daily':
          return t`set ${name} to reset daily`;
        case 'weekly':
          return t`set ${name} to reset weekly`;
        case 'monthly':
          return t`set ${name} to reset monthly`;
        default:
          return t`set ${name} to reset ${value}`;
      }
    case 'startValue':
      return t`set the start value of ${name} to ${value}`;
    case 'section': {
      const left = sectionOf(from);
      const joined = sectionOf(to);
      if (joined !== null) return t`moved ${name} to section ${joined}`;
      return left === null
        ? t`took ${name} out of its section`
        : t`took ${name} out of section ${left}`;
    }
    case 'displayName':
      return t`changed the group name to ${value}`;
    case 'profileImageUrl':
      return to === null ? t`removed the group picture` : t`changed the group picture`;
    case 'timeZone':
      return t`set the group's time zone to ${value}`;
    case 'weekStart': {
      const day = weekdayName(Number(to));
      return day === null ? t`changed the first day of the week` : t`made weeks start on ${day}`;
    }
    case 'sectionMax': {
      const section = change.section ?? '';
      return to === null
        ? t`removed the maximum of section ${section}`
        : t`set the maximum of section ${section} to ${value}`;
    }
  }
};

/**
 * "reset Coffees to 5: the week ended at 12": one sentence per kind of period (a period cut short
 * is "the period"), so that each language words the whole of it.
 */
function resetPhrase(entry: Extract<ActivityEntry, { kind: 'counter.reset' }>): string {
  const counter = entry.counterName;
  const final = formatNumber(entry.final);
  const kind = periodKind(entry.periodStart, entry.periodEnd);
  if (entry.value === null || entry.value === 0) {
    switch (kind) {
      case 'day':
        return t`reset ${counter}: the day ended at ${final}`;
      case 'week':
        return t`reset ${counter}: the week ended at ${final}`;
      case 'month':
        return t`reset ${counter}: the month ended at ${final}`;
      case null:
        return t`reset ${counter}: the period ended at ${final}`;
    }
  }
  const value = formatNumber(entry.value);
  switch (kind) {
    case 'day':
      return t`reset ${counter} to ${value}: the day ended at ${final}`;
    case 'week':
      return t`reset ${counter} to ${value}: the week ended at ${final}`;
    case 'month':
      return t`reset ${counter} to ${value}: the month ended at ${final}`;
    case null:
      return t`reset ${counter} to ${value}: the period ended at ${final}`;
  }
}

/**
 * What an entry did, without who: "+5 on Coffees", "renamed Coffees → Teas", "deleted Coffees".
 * Undo entries read as what they did too (an undone +5 is "−5 on Coffees"); see `describeEntry`.
 */
export function action(entry: ActivityEntry): string {
  switch (entry.kind) {
    case 'counter.adjusted': {
      const delta = signed(entry.delta);
      const counter = entry.counterName;
      if (entry.reachedGoal === null) return t`${delta} on ${counter}`;
      const goal = formatNumber(entry.reachedGoal);
      return t`${delta} on ${counter} — reached the goal of ${goal}`;
    }
    case 'counter.created': {
      const counter = entry.counterName;
      return t`created ${counter}`;
    }
    case 'counter.deleted': {
      const counter = entry.counterName;
      return t`deleted ${counter}`;
    }
    case 'counter.updated':
    case 'group.updated':
      if (entry.changes.length === 0) {
        const counter = entry.counterName ?? '';
        return entry.kind === 'group.updated' ? t`changed the group` : t`changed ${counter}`;
      }
      return entry.changes.map((change) => fieldPhrase(change, entry.counterName ?? '')).join(', ');
    case 'counters.reordered':
      return t`reordered the counters`;
    case 'counter.reset':
      return resetPhrase(entry);
  }
}

const swap = (changes: FieldChange[]): FieldChange[] =>
  changes.map((change) => ({ ...change, from: change.to, to: change.from }));

/**
 * The entry an undo entry took back, as far as the undo entry itself tells (used when the
 * original is on a page not loaded): the inverse of what the undo did.
 */
export function originalOf(undo: ActivityEntry): ActivityEntry {
  switch (undo.kind) {
    case 'counter.adjusted':
      // What the goal crossing of the original was is not in the undo: none is named.
      return {
        ...undo,
        delta: -undo.delta,
        increments: undo.decrements,
        decrements: undo.increments,
        reachedGoal: null,
      };
    case 'counter.created':
      return { ...undo, kind: 'counter.deleted' };
    case 'counter.deleted':
      return { ...undo, kind: 'counter.created' };
    case 'counter.updated': {
      const rename = undo.changes.find((change) => change.field === 'name');
      return {
        ...undo,
        counterName: rename ? String(rename.to) : undo.counterName,
        changes: swap(undo.changes),
      };
    }
    case 'group.updated':
      return { ...undo, changes: swap(undo.changes) };
    case 'counters.reordered':
      return { ...undo, from: undo.to, to: undo.from };
    case 'counter.reset':
      // Resets are made by Tally and cannot be undone: no undo entry is ever one.
      return undo;
  }
}

/** Who made an entry: the member, and beside them the tap link they used ("Ada · Gate B"). */
export function actorOf(entry: Pick<ActivityEntry, 'actor' | 'link'>): string {
  const name = memberName(entry.actor);
  return entry.link === undefined ? name : `${name} · ${entry.link.label}`;
}

export interface EntryText {
  /** The member, with the tap link they used ("Ada · Gate B"). */
  actor: string;
  /** The rest of the sentence after the actor's name. */
  text: string;
}

/**
 * One line of the log. An undo names what it took back: "Bob undid Ada +5 on Coffees" when the
 * original entry is known (loaded), else "Bob undid +5 on Coffees".
 */
export function describeEntry(
  entry: ActivityEntry,
  byId: ReadonlyMap<number, ActivityEntry>,
): EntryText {
  if (entry.undoOf === null) return { actor: actorOf(entry), text: action(entry) };
  const original = byId.get(entry.undoOf);
  return {
    actor: actorOf(entry),
    text: original
      ? undid(actorOf(original), action(original))
      : undidWhat(action(originalOf(entry))),
  };
}

const undid = (who: string, what: string) => t`undid ${who} ${what}`;
const undidWhat = (what: string) => t`undid ${what}`;

/** The whole sentence, e.g. for an accessible name or a test. */
export function entrySentence(entry: ActivityEntry, byId: ReadonlyMap<number, ActivityEntry>) {
  const { actor, text } = describeEntry(entry, byId);
  return `${actor} ${text}`;
}

const capitalise = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** This tab's own change, for the undo toast: "+1 on Coffees", "Renamed Coffees → Teas". */
export function describeOp(op: Op): string {
  const name = ('name' in op ? op.name : undefined) ?? t`the counter`;
  switch (op.kind) {
    case 'adjust': {
      const delta = signed(op.delta);
      return t`${delta} on ${name}`;
    }
    case 'create':
      return t`Added a counter`;
    case 'delete':
      return t`Deleted ${name}`;
    case 'patch':
    case 'group': {
      const patch: Record<string, unknown> = op.patch;
      return capitalise(
        Object.entries(patch)
          .map(([field, to]) =>
            fieldPhrase(
              // Only the rename needs the old value; a thumbnail that was there is "changed".
              { field, from: field === 'name' ? name : '', to } as FieldChange,
              name,
            ),
          )
          .join(', '),
      );
    }
    case 'reorder':
      return t`Reordered the counters`;
    case 'section': {
      const section = op.section;
      if (op.max === null) return t`Removed the maximum of ${section}`;
      const max = formatNumber(op.max);
      return t`Set the maximum of ${section} to ${max}`;
    }
    default:
      // An op of a kind a newer version stored (the outbox outlives deploys): still a sentence.
      return t`Changed the group`;
  }
}

/** Why an undo did not happen, in words (409, 404 and 422 answers; docs/product.md#undo). */
export function undoErrorMessage(error: unknown): string {
  if (error instanceof ApiRequestError) {
    switch (error.code) {
      case 'already_undone':
        return t`This change was already undone.`;
      case 'activity_not_found':
        return t`This change can no longer be undone.`;
      case 'counter_not_found':
        return t`Cannot undo: the counter no longer exists.`;
      case 'value_out_of_range':
        return t`Cannot undo: the value would go out of range.`;
      // The server's sentence says which limit, or why (an automatic reset, an ended period): it is
      // shown whole.
      case 'limit_reached': {
        const reason = error.serverMessage;
        return reason ? t`Cannot undo. ${reason}` : t`Cannot undo: a limit would be crossed.`;
      }
      case 'cannot_undo':
        return error.serverMessage ?? t`This change cannot be undone.`;
      case 'network_error':
        return t`Cannot undo while offline. Please try again.`;
      default: {
        const reason = error.serverMessage;
        return reason ? t`Cannot undo: ${reason}` : t`Undo failed.`;
      }
    }
  }
  return t`Undo failed.`;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

const relativeFormats = new Map<string, Intl.RelativeTimeFormat>();

/** The language's relative times; none for English, whose short forms are the app's own. */
function relativeFormat(): Intl.RelativeTimeFormat | null {
  const locale = dateLocale();
  if (locale === 'en-GB') return null;
  let format = relativeFormats.get(locale);
  if (!format) {
    format = new Intl.RelativeTimeFormat(locale, { numeric: 'auto', style: 'short' });
    relativeFormats.set(locale, format);
  }
  return format;
}

/**
 * "just now", "2 min ago", "3 h ago", "4 d ago", then a date ("12 Mar", "12 Mar 2024"); in
 * another language, as Intl.RelativeTimeFormat writes it there ("vor 2 Min.", "il y a 3 h").
 */
export function relativeTime(at: number, now: number): string {
  const ago = Math.max(0, now - at);
  const relative = relativeFormat();
  // English keeps the app's own short forms ("2 min ago"), which no other language is shown:
  // every other language has Intl's.
  // eslint-disable-next-line lingui/no-unlocalized-strings -- English alone, by design
  if (ago < MINUTE) return relative ? relative.format(0, 'second') : 'just now';
  if (ago < 7 * DAY) {
    const [amount, unit, short] =
      ago < HOUR
        ? [Math.floor(ago / MINUTE), 'minute' as const, 'min']
        : ago < DAY
          ? [Math.floor(ago / HOUR), 'hour' as const, 'h']
          : [Math.floor(ago / DAY), 'day' as const, 'd'];
    return relative ? relative.format(-amount, unit) : `${amount} ${short} ago`;
  }
  const date = new Date(at);
  const sameYear = date.getFullYear() === new Date(now).getFullYear();
  return date.toLocaleDateString(dateLocale(), {
    day: 'numeric',
    month: 'short',
    ...(sameYear ? {} : { year: 'numeric' }),
  });
}
