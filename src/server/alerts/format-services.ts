/**
 * An alert as each chat or notification service takes it: a Slack incoming webhook, a Discord
 * execute-webhook, an ntfy topic. Each writes the event's sentence (format-text.ts) in the
 * service's own markup, escaped so that user text (a counter named `<!channel>`, `@everyone` or
 * `Café ☕`) can neither break the body or the headers nor ping anyone, and shortened so that
 * the body stays within ALERT_BODY_MAX_BYTES.
 */
import { ALERT_BODY_MAX_BYTES, type AlertEventBody } from '../../shared/alerts.js';
import {
  type AlertTexts,
  alertSentence,
  alertTexts,
  fitTexts,
  oneLine,
  shorten,
  shortenToLength,
} from './format-text.js';
import type { OutboundRequest } from './outbound.js';

/** One alert to write for a person: the event, and the group it happened in. */
export interface AlertMessage {
  event: AlertEventBody;
  /** The group's display name, as its members see it. */
  groupName: string;
  /** A link to the group without its key (`https://host/game-night`). */
  groupUrl: string;
}

/** Where the message goes: the webhook's or the topic's URL, a secret (it carries the token). */
export interface MessageTarget {
  url: string;
}

const JSON_HEADERS = { 'content-type': 'application/json' } as const;

/** UTF-8 bytes of a body as sent. */
export function byteLength(body: string): number {
  return Buffer.byteLength(body, 'utf8');
}

/**
 * The body written from the texts `fitTexts` leaves: the longest whose size is within
 * ALERT_BODY_MAX_BYTES and which `fits` the service's own bounds.
 */
function fittedBody(
  message: AlertMessage,
  write: (texts: AlertTexts) => { body: string; fits: boolean },
): string {
  const texts = fitTexts(alertTexts(message.event, message.groupName), (candidate) => {
    const written = write(candidate);
    return written.fits && byteLength(written.body) <= ALERT_BODY_MAX_BYTES;
  });
  return write(texts).body;
}

/** The group's link as an ASCII URL (a host in punycode, a path percent-encoded). */
function asciiUrl(url: string): string {
  return new URL(url).href;
}

// ---- Slack -------------------------------------------------------------------------------------

/** Slack's most characters in a section block's text. */
export const SLACK_SECTION_MAX_LENGTH = 3_000;

/**
 * Text for Slack's markup: `&`, `<` and `>` are its control characters (`<!channel>` pings a
 * channel, `<url|label>` is a link), written as the HTML entities Slack asks for.
 */
export function escapeSlack(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * A Slack incoming-webhook message: `text`, the plain sentence that notifications and old
 * clients show, and one section block whose mrkdwn adds a link to the group. Both are escaped;
 * `verbatim` keeps Slack from turning names in the text into links or mentions.
 */
export function slackRequest(message: AlertMessage, target: MessageTarget): OutboundRequest {
  const link = escapeSlack(asciiUrl(message.groupUrl));
  const body = fittedBody(message, (texts) => {
    const text = escapeSlack(alertSentence(message.event, texts));
    const section = `${text}\n<${link}|Open the group in Tally>`;
    return {
      body: JSON.stringify({
        text,
        blocks: [{ type: 'section', text: { type: 'mrkdwn', text: section, verbatim: true } }],
      }),
      fits: section.length <= SLACK_SECTION_MAX_LENGTH,
    };
  });
  return { url: target.url, body, headers: JSON_HEADERS };
}

// ---- Discord -----------------------------------------------------------------------------------

/** Discord's most characters in a message's content. */
export const DISCORD_CONTENT_MAX_LENGTH = 2_000;
/** Discord's most characters in an embed's title. */
export const DISCORD_EMBED_TITLE_MAX_LENGTH = 256;

/**
 * Text for Discord's markdown: each markup character is escaped with a backslash (Discord shows
 * any escaped punctuation as itself), so a name cannot bold, quote, head, link or mention.
 */
export function escapeDiscord(text: string): string {
  return text.replace(/[\\*_~`|<>#\-[\]().:@]/g, '\\$&');
}

/**
 * A Discord execute-webhook body: the sentence as `content`, an embed that links to the group,
 * and `allowed_mentions` that parses nothing, so no name pings a user, a role or everyone.
 */
export function discordRequest(message: AlertMessage, target: MessageTarget): OutboundRequest {
  const embed = {
    title: shortenToLength(oneLine(message.groupName), DISCORD_EMBED_TITLE_MAX_LENGTH),
    url: asciiUrl(message.groupUrl),
    timestamp: message.event.at,
  };
  const body = fittedBody(message, (texts) => {
    const content = escapeDiscord(alertSentence(message.event, texts));
    return {
      body: JSON.stringify({ content, allowed_mentions: { parse: [] }, embeds: [embed] }),
      fits: content.length <= DISCORD_CONTENT_MAX_LENGTH,
    };
  });
  return { url: target.url, body, headers: JSON_HEADERS };
}

// ---- ntfy --------------------------------------------------------------------------------------

/** The most characters of an ntfy title: a notification's heading, not its message. */
export const NTFY_TITLE_MAX_CHARACTERS = 100;

/** ntfy's tags are emoji short codes: one per kind of event, shown before the title. */
function ntfyTag(event: AlertEventBody): string {
  switch (event.type) {
    case 'counter.reached':
      return 'chart_with_upwards_trend';
    case 'counter.fell':
      return 'chart_with_downwards_trend';
    case 'counter.goal':
      return 'trophy';
    case 'counter.every':
      return 'tada';
    case 'counter.capacity':
      if (event.capacity.change === 'left') return 'white_check_mark';
      return event.capacity.state === 'full' ? 'no_entry' : 'warning';
    case 'counter.period':
      return 'calendar';
  }
}

/** Bytes of text in one RFC 2047 encoded-word: 60 base64 characters, 75 with its frame. */
const ENCODED_WORD_BYTES = 45;

/**
 * A header value any HTTP client can send: printable ASCII as it is; anything else (an accent,
 * an emoji, or a `=?` that would read as an encoded-word) as RFC 2047 encoded-words
 * (`=?UTF-8?B?…?=`, at most 75 characters each, never splitting a character), which ntfy decodes.
 */
export function headerValue(text: string): string {
  const line = oneLine(text);
  if (/^[\x20-\x7e]*$/.test(line) && !line.includes('=?')) return line;
  const words: string[] = [];
  let chunk = '';
  for (const character of line) {
    if (chunk !== '' && byteLength(chunk + character) > ENCODED_WORD_BYTES) {
      words.push(chunk);
      chunk = '';
    }
    chunk += character;
  }
  if (chunk !== '') words.push(chunk);
  return words
    .map((word) => `=?UTF-8?B?${Buffer.from(word, 'utf8').toString('base64')}?=`)
    .join(' ');
}

/**
 * An ntfy publish: a POST to the topic's URL with the sentence as its plain-text body, the group
 * as the title, an emoji tag for the kind of event and a click that opens the group.
 */
export function ntfyRequest(message: AlertMessage, target: MessageTarget): OutboundRequest {
  const body = fittedBody(message, (texts) => ({
    body: alertSentence(message.event, texts),
    fits: true,
  }));
  const title = shorten(
    alertTexts(message.event, message.groupName).group,
    NTFY_TITLE_MAX_CHARACTERS,
  );
  return {
    url: target.url,
    body,
    headers: {
      'content-type': 'text/plain; charset=utf-8',
      Title: headerValue(title),
      Tags: ntfyTag(message.event),
      Click: asciiUrl(message.groupUrl),
    },
  };
}
