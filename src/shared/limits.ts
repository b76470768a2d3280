/**
 * The product's timings and bounds, defined once for the web app and the server: see
 * docs/product.md#timings and docs/product.md#limits.
 */

/** Group name lookup once typing has paused (docs/product.md#landing). */
export const GROUP_LOOKUP_DEBOUNCE_MS = 300;
/** How long the key button reads "Generating...". */
export const KEY_GENERATION_MS = 300;
/** How long the share button reads "Copied!". */
export const COPIED_MS = 2_000;
/** How long a refused copy's error shows. */
export const COPY_ERROR_MS = 3_000;
/** Default and minimum step (docs/product.md#numbers). */
export const MIN_STEP = 1;
export const DEFAULT_STEP = 1;
/** A generated key is 32 random bytes = 64 hex characters (docs/product.md#access-keys). */
export const GENERATED_KEY_BYTES = 32;
/** Key length, hex characters (docs/product.md#access-keys). */
export const KEY_MIN_LENGTH = 16;
export const KEY_MAX_LENGTH = 128;
/** Sanitised text cap, characters (docs/product.md#text). */
export const TEXT_MAX_LENGTH = 1_000;
/** Guest names are Guest1..Guest9999 (docs/product.md#member-names). */
export const GUEST_NUMBER_MAX = 9_999;

/** Slug length cap, characters (keeps URLs and indexes small). */
export const GROUP_NAME_MAX_LENGTH = 100;
/** URL length cap, characters. */
export const URL_MAX_LENGTH = 2_048;
/**
 * Counter values stay within JavaScript's exact integer range so every client shows the
 * value the database holds (both SQLite INTEGER and PostgreSQL BIGINT hold more).
 */
export const MAX_VALUE = Number.MAX_SAFE_INTEGER;
export const MIN_VALUE = -Number.MAX_SAFE_INTEGER;
/** Step cap; with MAX_TIMES keeps one operation's delta (≤ 1e15) exact in a double. */
export const MAX_STEP = 1_000_000_000;
/** Most taps one increment call may carry. */
export const MAX_TIMES = 1_000_000;
/** API request body cap, bytes. */
export const BODY_LIMIT_BYTES = 16 * 1024;
/** Client operation ids, characters. */
export const OPERATION_ID_MAX_LENGTH = 64;
/**
 * ADR 24: numbered operation ids, `<session>.<n>`. The session part is 8 to 40
 * id characters, n a whole number from 1 with at most 15 digits (below 2^53, exact in a double).
 */
export const OPERATION_SESSION_MIN_LENGTH = 8;
export const OPERATION_SESSION_MAX_LENGTH = 40;
export const OPERATION_NUMBER_MAX_DIGITS = 15;
/**
 * ADR 24: how far behind its session's highest number a numbered tap may arrive and still
 * be told apart (applied or not): the server keeps one bit per number in this window, per group
 * and session. Older numbers are refused with operation_expired, never applied twice.
 */
export const OPERATION_SESSION_WINDOW = 512;
/** Member names in the activity log, characters (a display label, cut, never refused). */
export const MEMBER_NAME_MAX_LENGTH = 100;
/** A note on a change, characters (code points) after cleaning (docs/api.md "Limits"). */
export const NOTE_MAX_LENGTH = 280;
/** How long after a change its own member may add or change its note, ms (24 h). */
export const NOTE_EDIT_WINDOW_MS = 24 * 3_600_000;
/**
 * ACTIVITY_RETENTION_DAYS default: a year of history (ADR 7 has the sizes). A count may be for an
 * earlier time back to what the log keeps: that many days (this default when the log is kept
 * forever, ACTIVITY_RETENTION_DAYS=0).
 */
export const DEFAULT_ACTIVITY_RETENTION_DAYS = 365;
/** Most activity entries one page may hold. */
export const ACTIVITY_PAGE_MAX = 200;
/**
 * Most noted entries (a note or an earlier time) one page of the log filtered by member looks
 * through: a member with few notes among many others' gets a shorter page whose `next` goes on.
 */
export const ACTIVITY_MEMBER_SCAN_MAX = 1_000;
/**
 * An activity page that returns more entries than this is a heavy read, within its address's
 * budget (docs/api.md "Limits", ADR 34); a catch-up that finds a few new entries is not.
 */
export const ACTIVITY_LIGHT_PAGE_MAX = 50;
/** Most points one history answer may hold. */
export const HISTORY_POINTS_MAX = 1_000;
/** Points of a card's sparkline (the most recent values). */
export const SPARKLINE_POINTS = 30;

// ---- Goals, limits, periods, order, sections, tallies (ADR 19) --------------------------------

/** A section's name, characters (a heading, like a group's display name but shorter). */
export const SECTION_NAME_MAX_LENGTH = 60;
/** Most sections of one group that carry a maximum (a group's sectionLimits). */
export const SECTION_LIMITS_MAX = 100;
/** Closed periods kept per counter (over a year of daily resets); older ones are dropped. */
export const PERIODS_KEPT_PER_COUNTER = 400;
/** Most periods one answer may hold. */
export const PERIODS_PAGE_MAX = PERIODS_KEPT_PER_COUNTER;
/** Most rows one tallies answer may hold (members × counters, largest net first). */
export const TALLIES_MAX_ROWS = 1_000;
/** Most counter ids one reorder may carry (the counters-per-group ceiling). */
export const ORDER_MAX_COUNTERS = 100_000;
/** An IANA time zone name, characters. */
export const TIME_ZONE_MAX_LENGTH = 64;
/** A group's default time zone and first day of the week (ISO: 1 = Monday … 7 = Sunday). */
export const DEFAULT_TIME_ZONE = 'UTC';
export const DEFAULT_WEEK_START = 1;
/** A card reads as nearly full from this share of its maximum on (docs/product.md#counter-card). */
export const NEAR_LIMIT_RATIO = 0.9;

/** Who made a change, when the client did not say: the name the log stores for them. */
export const UNKNOWN_MEMBER = 'Someone';
