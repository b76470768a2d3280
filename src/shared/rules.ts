/**
 * The product's rules (docs/product.md#rules), one implementation used by the web app (to guide
 * the user) and the server (to enforce them). Pure functions, no I/O.
 */
import {
  GROUP_NAME_MAX_LENGTH,
  KEY_MAX_LENGTH,
  KEY_MIN_LENGTH,
  TEXT_MAX_LENGTH,
  URL_MAX_LENGTH,
} from './limits.js';
import { MESSAGES } from './messages.js';
import { ianaZoneName } from './time-zones.js';

/**
 * Group names (docs/product.md#group-names): lowercase; every character outside a-z, 0-9,
 * underscore and hyphen becomes a hyphen; repeated hyphens collapse. Surrounding whitespace is
 * dropped first so " team " and "team" are the same group.
 */
export function normaliseGroupName(input: string): string {
  return input
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9_-]/g, '-')
    .replace(/-{2,}/g, '-');
}

export type Result<T> = { ok: true; value: T } | { ok: false; message: string };

/**
 * A check's outcome without its words: a refusal names the key of its message in MESSAGES. The
 * web app says it in the member's language and leaves MESSAGES (the server's English) out of the
 * browser; the server words it with the functions below.
 */
export type Checked<T, Problem extends PlainMessage> =
  { ok: true; value: T } | { ok: false; problem: Problem };

/** The keys of MESSAGES whose message has no value in it. */
type PlainMessage = {
  [K in keyof typeof MESSAGES]: (typeof MESSAGES)[K] extends string ? K : never;
}[keyof typeof MESSAGES];

export type GroupNameProblem = 'emptyGroupName' | 'groupNameNeedsAlnum' | 'groupNameTooLong';

/** Validates a typed or URL group name and returns its slug, or why not. */
export function checkGroupName(
  input: string | undefined | null,
): Checked<string, GroupNameProblem> {
  if (input === undefined || input === null || input.trim() === '') {
    return { ok: false, problem: 'emptyGroupName' };
  }
  const slug = normaliseGroupName(input);
  if (slug === '' || slug === '-') return { ok: false, problem: 'groupNameNeedsAlnum' };
  if (slug.length > GROUP_NAME_MAX_LENGTH) return { ok: false, problem: 'groupNameTooLong' };
  return { ok: true, value: slug };
}

/** checkGroupName, with a refusal in the product's English message. */
export function parseGroupName(input: string | undefined | null): Result<string> {
  return worded(checkGroupName(input));
}

function worded<T>(checked: Checked<T, PlainMessage>): Result<T> {
  return checked.ok ? checked : { ok: false, message: MESSAGES[checked.problem] };
}

const KEY_PATTERN = new RegExp(`^[0-9a-fA-F]{${KEY_MIN_LENGTH},${KEY_MAX_LENGTH}}$`);

/**
 * A key is valid only if it is hexadecimal and 16 to 128 characters long
 * (docs/product.md#access-keys).
 */
export function isValidKeyFormat(key: unknown): key is string {
  return typeof key === 'string' && KEY_PATTERN.test(key);
}

const SCRIPT_BLOCK = /<script\b[^>]*>[\s\S]*?<\/script\s*>/gi;
const SCRIPT_TAG = /<\/?script\b[^>]*>/gi;
const JAVASCRIPT_SCHEME = /j\s*a\s*v\s*a\s*s\s*c\s*r\s*i\s*p\s*t\s*:/gi;
const EVENT_HANDLER = /\bon[a-z]+\s*=\s*(?:"[^"]*"|'[^']*'|[^\s>]*)/gi;

/**
 * Text (docs/product.md#text): removes script blocks, the javascript: scheme and inline
 * event-handler attributes, trims, and truncates to 1000 characters. Repeats until nothing
 * changes, so nested payloads such as `<scr<script></script>ipt>` cannot reassemble after one
 * pass. The UI renders all text as text anyway; this keeps stored data clean for every other
 * consumer (exports, other clients).
 */
export function sanitizeText(input: string): string {
  let current = input;
  for (;;) {
    const next = current
      .replace(SCRIPT_BLOCK, '')
      .replace(SCRIPT_TAG, '')
      .replace(JAVASCRIPT_SCHEME, '')
      .replace(EVENT_HANDLER, '');
    if (next === current) break;
    current = next;
  }
  return truncateCharacters(current.trim(), TEXT_MAX_LENGTH);
}

/** A high surrogate without its low half, or a low one without its high half. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * A label as the activity log keeps it (a member name, a note): sanitised like every text, cut to
 * `max` UTF-16 units and trimmed. NUL never reaches a database, the bus or a screen (PostgreSQL
 * refuses it in text); a lone surrogate (also one left by the cut) becomes U+FFFD, as both stores
 * then keep it alike.
 */
export function labelText(raw: string, max: number): string {
  return sanitizeText(raw.replaceAll('\u0000', ''))
    .slice(0, max)
    .replace(LONE_SURROGATE, '\uFFFD')
    .trim();
}

/** Cuts to a number of characters (code points), never through the middle of an emoji. */
function truncateCharacters(text: string, max: number): string {
  if (text.length <= max) return text;
  return Array.from(text).slice(0, max).join('');
}

/**
 * Inline numeric fields (docs/product.md#numbers): parsed as an integer; a non-numeric entry
 * falls back to the current value (or 0); the result is clamped to the minimum when one is given.
 */
export function parseIntegerInput(input: string, current?: number, min?: number): number {
  const trimmed = input.trim();
  const parsed = /^[+-]?\d+/.test(trimmed) ? Number.parseInt(trimmed, 10) : Number.NaN;
  let result = Number.isSafeInteger(parsed) ? parsed : (current ?? 0);
  if (min !== undefined && result < min) result = min;
  return result;
}

/**
 * URLs (thumbnails, profile pictures): blank clears (null); a missing scheme gets https://;
 * anything that is not a well-formed http(s) URL is refused with the product's message
 * (javascript:, data: and the like never reach an src or href).
 *
 * A path on this site ("/icons/icon-192.png") is resolved against `base`, the page's origin, when
 * one is given (the web app gives it, so the stored URL is a full one every member and export can
 * use). Without a base (the server: it does not know which address its users see) a path is
 * refused rather than read as a host name ("https://icons/icon-192.png").
 */
export function checkUrl(
  input: string | null | undefined,
  base?: string,
): Checked<string | null, 'invalidUrl'> {
  const trimmed = (input ?? '').trim();
  if (trimmed === '') return { ok: true, value: null };
  const isSitePath = trimmed.startsWith('/') && !trimmed.startsWith('//');
  if (isSitePath && base === undefined) return { ok: false, problem: 'invalidUrl' };
  const hasScheme = /^[a-z][a-z0-9+.-]*:/i.test(trimmed);
  // "localhost:8080/x" looks like a scheme to the regex above; a port number after the colon
  // means it is a host, so it gets https:// like any other scheme-less address.
  const looksLikeHostPort = /^[a-z0-9.-]+:\d+(?:[/?#]|$)/i.test(trimmed);
  const candidate =
    isSitePath || (hasScheme && !looksLikeHostPort) ? trimmed : `https://${trimmed}`;
  if (candidate.length > URL_MAX_LENGTH || /\s/.test(candidate)) {
    return { ok: false, problem: 'invalidUrl' };
  }
  let url: URL;
  try {
    url = isSitePath ? new URL(candidate, base) : new URL(candidate);
  } catch {
    return { ok: false, problem: 'invalidUrl' };
  }
  if (
    (url.protocol !== 'http:' && url.protocol !== 'https:') ||
    url.hostname === '' ||
    // The base adds to a path's length: the full URL is what gets stored.
    (isSitePath && url.href.length > URL_MAX_LENGTH)
  ) {
    return { ok: false, problem: 'invalidUrl' };
  }
  return { ok: true, value: url.href };
}

/** checkUrl, with a refusal in the product's English message. */
export function normaliseUrl(
  input: string | null | undefined,
  base?: string,
): Result<string | null> {
  return worded(checkUrl(input, base));
}

/** A guest name: Guest plus a random number from 1 to 9999 (docs/product.md#member-names). */
export function makeGuestName(random: () => number = Math.random): string {
  return `Guest${1 + Math.floor(random() * 9_999)}`;
}

/**
 * An IANA time zone name as the runtime's Intl knows it, canonical ('utc' → 'UTC',
 * 'europe/berlin' → 'Europe/Berlin') under its current IANA name ('Asia/Calcutta' →
 * 'Asia/Kolkata', time-zones.ts), or null when it names no zone. Offsets such as '+01:00'
 * are refused: a group's midnights follow a place, with its daylight saving time.
 */
export function canonicalTimeZone(input: string): string | null {
  if (input.trim() === '' || /^[+-]/.test(input.trim())) return null;
  try {
    return ianaZoneName(
      new Intl.DateTimeFormat('en-US', { timeZone: input.trim() }).resolvedOptions().timeZone,
    );
  } catch {
    return null;
  }
}

/**
 * A section's maximum in a group's `sectionLimits`, or null. Section names are members' text:
 * "toString" or "__proto__" must read as a section without a maximum, not as the object's own
 * machinery, so only own properties count.
 */
export function sectionMaxOf(limits: Record<string, number>, section: string): number | null {
  return Object.hasOwn(limits, section) ? (limits[section] ?? null) : null;
}

/** `limits` with `section`'s maximum set (a data property, whatever the section's name). */
export function withSectionMax(
  limits: Record<string, number>,
  section: string,
  max: number,
): Record<string, number> {
  return Object.fromEntries([
    ...Object.entries(limits).filter(([name]) => name !== section),
    [section, max],
  ]);
}
