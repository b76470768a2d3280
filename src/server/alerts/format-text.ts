/**
 * What an alert says, in one plain sentence, for the formats a person reads (Slack, Discord,
 * ntfy): "Visitors reached 200 in Game night (by Ada)". The sentence is built from user text
 * (counter, group and member names), which may hold anything, so it is made one clean line
 * first, and every format can ask for it with that text shortened until its body fits.
 */
import type { AlertEventBody } from '../../shared/alerts.js';
import type { NotificationWords } from '../../shared/notification-words-schema.js';
import {
  ENGLISH_NOTIFICATION_TEMPLATES,
  ENGLISH_NUMBERS,
  wordNotification,
  type NotificationSentence,
} from '../../shared/notification-words.js';

/** The user-supplied text of a sentence: each may be shortened to fit a body. */
export interface AlertTexts {
  /** The counter's name. */
  counter: string;
  /** The group's display name. */
  group: string;
  /** Who made the change; null when no member did. */
  by: string | null;
}

/** What a shortened text ends with, so a reader sees that it was cut. */
export const ELLIPSIS = '…';

const CONTROL_CHARACTERS = /[\p{Cc}\u2028\u2029]+/gu;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * Text as one clean line: control characters (newlines, tabs, NUL) become one space, a lone
 * surrogate (which no UTF-8 can carry) becomes U+FFFD, and the ends are trimmed.
 */
export function oneLine(text: string): string {
  return text.replace(LONE_SURROGATE, '\ufffd').replace(CONTROL_CHARACTERS, ' ').trim();
}

const graphemes = new Intl.Segmenter('en', { granularity: 'grapheme' });

/** The characters a reader sees (grapheme clusters): a cut between two never splits an emoji. */
export function characters(text: string): string[] {
  return Array.from(graphemes.segment(text), (part) => part.segment);
}

/**
 * The text cut to at most `max` characters (graphemes), with an ellipsis when it was cut: never
 * through a surrogate pair, nor through an emoji made of several code points.
 */
export function shorten(text: string, max: number): string {
  // No text has more characters than UTF-16 code units: a short one needs no splitting.
  if (text.length <= max) return text;
  return cut(text, characters(text), max);
}

/** `text`, whose characters are `all`, cut to at most `max` of them. */
function cut(text: string, all: readonly string[], max: number): string {
  if (all.length <= max) return text;
  return all.slice(0, Math.max(0, max)).join('').trimEnd() + ELLIPSIS;
}

/**
 * The text cut so that its length (UTF-16 code units, how JavaScript and most services count
 * characters) is at most `maxLength`, the ellipsis included.
 */
export function shortenToLength(text: string, maxLength: number): string {
  if (text.length <= maxLength) return text;
  let kept = '';
  for (const character of characters(text)) {
    if (kept.length + character.length + ELLIPSIS.length > maxLength) break;
    kept += character;
  }
  return kept.trimEnd() + ELLIPSIS;
}

/**
 * The texts, shortened as little as `fits` allows: each text is cut to the same number of
 * characters, the largest that fits, so a short name stays whole while a long one is cut. At
 * worst every text is an ellipsis alone, which fits any body a format writes.
 */
export function fitTexts(texts: AlertTexts, fits: (texts: AlertTexts) => boolean): AlertTexts {
  if (fits(texts)) return texts;
  // Each text is split into characters once; every candidate cut reuses the split.
  const counter = characters(texts.counter);
  const group = characters(texts.group);
  const by = texts.by === null ? [] : characters(texts.by);
  const shortenAll = (max: number): AlertTexts => ({
    counter: cut(texts.counter, counter, max),
    group: cut(texts.group, group, max),
    by: texts.by === null ? null : cut(texts.by, by, max),
  });
  // The largest cut that fits (an ellipsis can make a cut one byte longer than the text it
  // replaces, so the answer is checked and lowered until it fits).
  let low = 0;
  let high = Math.max(0, counter.length, group.length, by.length) - 1;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (fits(shortenAll(middle))) low = middle;
    else high = middle - 1;
  }
  while (low > 0 && !fits(shortenAll(low))) low -= 1;
  return shortenAll(low);
}

/** The sentence's user text for an event: clean single lines, the group's slug if unnamed. */
export function alertTexts(event: AlertEventBody, groupName: string): AlertTexts {
  const group = oneLine(groupName);
  return {
    counter: oneLine(event.counter.name),
    group: group === '' ? oneLine(event.group) : group,
    by: event.by === null ? null : oneLine(event.by),
  };
}

/**
 * Which ended period a period alert speaks of: a day, a week or a month by its length, else a
 * period.
 */
export function periodSentence(period: { start: string; end: string }): NotificationSentence {
  const hours = (Date.parse(period.end) - Date.parse(period.start)) / 3_600_000;
  if (!Number.isFinite(hours) || hours <= 0) return 'periodEnded';
  // A day is 23 to 25 hours across a change of clocks; a week 167 to 169; a month 28 to 31 days.
  if (hours <= 25) return 'dayEnded';
  if (hours >= 167 && hours <= 169) return 'weekEnded';
  if (hours >= 28 * 24 - 1 && hours <= 31 * 24 + 1) return 'monthEnded';
  return 'periodEnded';
}

/**
 * What the event says, as parts (src/shared/notification-words.ts): the sentence, and the names
 * and numbers that fill it. Thresholds come from the rule that fired, when it names them; the
 * value is the counter's as the change left it.
 */
export function notificationWords(event: AlertEventBody, texts: AlertTexts): NotificationWords {
  const value = event.counter.value;
  const { when } = event.rule;
  const parts = { counter: texts.counter, group: texts.group, by: texts.by };
  const framing = { test: event.test === true, folded: event.folded ?? null };
  const words = (
    sentence: NotificationSentence,
    numbers: NotificationWords['numbers'],
  ): NotificationWords => ({ sentence, ...parts, numbers, ...framing });
  switch (event.type) {
    case 'counter.reached': {
      const threshold = when.kind === 'reaches' ? when.value : value;
      return threshold === value
        ? words('reached', { threshold })
        : words('reachedNow', { threshold, value });
    }
    case 'counter.fell': {
      const threshold = when.kind === 'fallsTo' ? when.value : value;
      return threshold === value
        ? words('fell', { threshold })
        : words('fellNow', { threshold, value });
    }
    case 'counter.goal':
      return words('goal', { value });
    case 'counter.every':
      return when.kind === 'every'
        ? words('passedEvery', { multiple: event.multiple, every: when.value })
        : words('passed', { multiple: event.multiple });
    case 'counter.capacity': {
      const { state, change } = event.capacity;
      const entered = change === 'entered';
      if (state === 'full') return words(entered ? 'full' : 'noLongerFull', { value });
      return words(entered ? 'nearlyFull' : 'noLongerNearlyFull', { value });
    }
    case 'counter.period':
      return words(periodSentence(event.period), { total: event.period.total });
  }
}

/**
 * What the event says, one line of plain text in English (no markup: each format escapes it as
 * it needs): "Visitors reached 200 in Game night (by Ada)".
 */
export function alertSentence(event: AlertEventBody, texts: AlertTexts): string {
  return wordNotification(
    notificationWords(event, texts),
    ENGLISH_NOTIFICATION_TEMPLATES,
    ENGLISH_NUMBERS,
  ).body;
}
