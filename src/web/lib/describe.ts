/**
 * Words for the activity log and the undo toast: every entry readable at a glance, "Ada +5 on
 * Coffees", "Ada renamed Coffees → Teas", "Bob undid Ada +5 on Coffees". Pure functions, no DOM:
 * unit-tested in test/unit/web-describe.test.ts.
 */
import type { ActivityEntry, FieldChange } from '../../shared/activity.js';
import type { Op } from '../live/ops.js';
import { ApiRequestError } from './api.js';
import { periodKind } from './periods.js';
import { dateLocale, formatNumber } from '../i18n/format.js';

/** "+5" or "−3" (a real minus sign, read as "minus" by screen readers). */
export function signed(delta: number): string {
  return delta < 0 ? `\u2212${-delta}` : `+${delta}`;
}

const WEEKDAY_NAMES = [
  'Monday',
  'Tuesday',
  'Wednesday',
  'Thursday',
  'Friday',
  'Saturday',
  'Sunday',
];

const PERIOD_WORD = { day: 'day', week: 'week', month: 'month' } as const;

/** A section's name as a change carries it (from may be '' in this tab's own patches). */
const sectionOf = (value: FieldChange['from']) =>
  value === null || value === '' ? null : String(value);

const fieldPhrase = (change: FieldChange, name: string): string => {
  const { field, from, to } = change;
  switch (field) {
    case 'name':
      return `renamed ${String(from)} → ${String(to)}`;
    case 'value':
      return `set ${name} to ${String(to)}`;
    case 'description':
      return to === ''
        ? `cleared the description of ${name}`
        : `changed the description of ${name}`;
    case 'incrementStep':
      return `set the increment step of ${name} to ${String(to)}`;
    case 'decrementStep':
      return `set the decrement step of ${name} to ${String(to)}`;
    case 'thumbnailUrl':
      if (to === null) return `removed the thumbnail of ${name}`;
      return from === null ? `added a thumbnail to ${name}` : `changed the thumbnail of ${name}`;
    case 'goal':
      return to === null
        ? `removed the goal of ${name}`
        : `set the goal of ${name} to ${String(to)}`;
    case 'min':
      return to === null
        ? `removed the minimum of ${name}`
        : `set the minimum of ${name} to ${String(to)}`;
    case 'max':
      return to === null
        ? `removed the maximum of ${name}`
        : `set the maximum of ${name} to ${String(to)}`;
    case 'reset':
      return to === null
        ? `stopped the automatic reset of ${name}`
        : `set ${name} to reset ${String(to)}`;
    case 'startValue':
      return `set the start value of ${name} to ${String(to)}`;
    case 'section': {
      const left = sectionOf(from);
      const joined = sectionOf(to);
      if (joined !== null) return `moved ${name} to section ${joined}`;
      return left === null
        ? `took ${name} out of its section`
        : `took ${name} out of section ${left}`;
    }
    case 'displayName':
      return `changed the group name to ${String(to)}`;
    case 'profileImageUrl':
      return to === null ? 'removed the group picture' : 'changed the group picture';
    case 'timeZone':
      return `set the group's time zone to ${String(to)}`;
    case 'weekStart': {
      const day = WEEKDAY_NAMES[Number(to) - 1];
      return day === undefined ? 'changed the first day of the week' : `made weeks start on ${day}`;
    }
    case 'sectionMax': {
      const section = change.section ?? '';
      return to === null
        ? `removed the maximum of section ${section}`
        : `set the maximum of section ${section} to ${String(to)}`;
    }
  }
};

/** "the day", "the week", "the month", "the period" (a period cut short). */
function periodWord(start: string, end: string): string {
  const kind = periodKind(start, end);
  return `the ${kind === null ? 'period' : PERIOD_WORD[kind]}`;
}

/**
 * What an entry did, without who: "+5 on Coffees", "renamed Coffees → Teas", "deleted Coffees".
 * Undo entries read as what they did too (an undone +5 is "−5 on Coffees"); see `describeEntry`.
 */
export function action(entry: ActivityEntry): string {
  switch (entry.kind) {
    case 'counter.adjusted': {
      const tap = `${signed(entry.delta)} on ${entry.counterName}`;
      return entry.reachedGoal === null ? tap : `${tap} — reached the goal of ${entry.reachedGoal}`;
    }
    case 'counter.created':
      return `created ${entry.counterName}`;
    case 'counter.deleted':
      return `deleted ${entry.counterName}`;
    case 'counter.updated':
    case 'group.updated':
      if (entry.changes.length === 0) {
        return entry.kind === 'group.updated'
          ? 'changed the group'
          : `changed ${entry.counterName}`;
      }
      return entry.changes.map((change) => fieldPhrase(change, entry.counterName ?? '')).join(', ');
    case 'counters.reordered':
      return 'reordered the counters';
    case 'counter.reset': {
      const to = entry.value === null || entry.value === 0 ? '' : ` to ${entry.value}`;
      return `reset ${entry.counterName}${to}: ${periodWord(entry.periodStart, entry.periodEnd)} ended at ${entry.final}`;
    }
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
  return entry.link === undefined ? entry.actor : `${entry.actor} · ${entry.link.label}`;
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
      ? `undid ${actorOf(original)} ${action(original)}`
      : `undid ${action(originalOf(entry))}`,
  };
}

/** The whole sentence, e.g. for an accessible name or a test. */
export function entrySentence(entry: ActivityEntry, byId: ReadonlyMap<number, ActivityEntry>) {
  const { actor, text } = describeEntry(entry, byId);
  return `${actor} ${text}`;
}

const capitalise = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** This tab's own change, for the undo toast: "+1 on Coffees", "Renamed Coffees → Teas". */
export function describeOp(op: Op): string {
  const name = ('name' in op ? op.name : undefined) ?? 'the counter';
  switch (op.kind) {
    case 'adjust':
      return `${signed(op.delta)} on ${name}`;
    case 'create':
      return 'Added a counter';
    case 'delete':
      return `Deleted ${name}`;
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
      return 'Reordered the counters';
    case 'section':
      return op.max === null
        ? `Removed the maximum of ${op.section}`
        : `Set the maximum of ${op.section} to ${formatNumber(op.max)}`;
    default:
      // An op of a kind a newer version stored (the outbox outlives deploys): still a sentence.
      return 'Changed the group';
  }
}

/** Why an undo did not happen, in words (409, 404 and 422 answers; docs/product.md#undo). */
export function undoErrorMessage(error: unknown): string {
  if (error instanceof ApiRequestError) {
    switch (error.code) {
      case 'already_undone':
        return 'This change was already undone.';
      case 'activity_not_found':
        return 'This change can no longer be undone.';
      case 'counter_not_found':
        return 'Cannot undo: the counter no longer exists.';
      case 'value_out_of_range':
        return 'Cannot undo: the value would go out of range.';
      // The server's sentence says which limit, or why (an automatic reset, an ended period): it is
      // shown whole.
      case 'limit_reached':
        return error.serverMessage
          ? `Cannot undo. ${error.serverMessage}`
          : 'Cannot undo: a limit would be crossed.';
      case 'cannot_undo':
        return error.serverMessage ?? 'This change cannot be undone.';
      case 'network_error':
        return 'Cannot undo while offline. Please try again.';
      default:
        return error.serverMessage ? `Cannot undo: ${error.serverMessage}` : 'Undo failed.';
    }
  }
  return 'Undo failed.';
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
