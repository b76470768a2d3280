/** Business constants of SPEC §9 and the limits Tally adds where SPEC is silent. */

/** SPEC §9: group name lookup debounce. */
export const GROUP_LOOKUP_DEBOUNCE_MS = 300;
/** SPEC §9: key generation animation. */
export const KEY_GENERATION_MS = 300;
/** SPEC §9: "Copied!" confirmation. */
export const COPIED_MS = 2_000;
/** SPEC §9: copy error display. */
export const COPY_ERROR_MS = 3_000;
/** SPEC §9: default and minimum step. */
export const MIN_STEP = 1;
export const DEFAULT_STEP = 1;
/** SPEC §9: a generated key is 32 random bytes = 64 hex characters. */
export const GENERATED_KEY_BYTES = 32;
/** SPEC §5: key format, hex characters. */
export const KEY_MIN_LENGTH = 16;
export const KEY_MAX_LENGTH = 128;
/** SPEC §9: sanitised text cap, characters. */
export const TEXT_MAX_LENGTH = 1_000;
/** SPEC §9: guest names are Guest1..Guest9999. */
export const GUEST_NUMBER_MAX = 9_999;

/** Tally: slug length cap, characters (keeps URLs and indexes small). */
export const GROUP_NAME_MAX_LENGTH = 100;
/** Tally: URL length cap, characters. */
export const URL_MAX_LENGTH = 2_048;
/**
 * Tally: counter values stay within JavaScript's exact integer range so every client shows the
 * value the database holds (both SQLite INTEGER and PostgreSQL BIGINT hold more).
 */
export const MAX_VALUE = Number.MAX_SAFE_INTEGER;
export const MIN_VALUE = -Number.MAX_SAFE_INTEGER;
/** Tally: step cap; with MAX_TIMES keeps one operation's delta (≤ 1e15) exact in a double. */
export const MAX_STEP = 1_000_000_000;
/** Tally: most taps one increment call may carry. */
export const MAX_TIMES = 1_000_000;
/** Tally: API request body cap, bytes. */
export const BODY_LIMIT_BYTES = 16 * 1024;
/** Tally: client operation ids, characters. */
export const OPERATION_ID_MAX_LENGTH = 64;
/**
 * Tally (issue 19, ADR 24): numbered operation ids, `<session>.<n>`. The session part is 8 to 40
 * id characters, n a whole number from 1 with at most 15 digits (below 2^53, exact in a double).
 */
export const OPERATION_SESSION_MIN_LENGTH = 8;
export const OPERATION_SESSION_MAX_LENGTH = 40;
export const OPERATION_NUMBER_MAX_DIGITS = 15;
/**
 * Tally (ADR 24): how far behind its session's highest number a numbered tap may arrive and still
 * be told apart (applied or not): the server keeps one bit per number in this window, per group
 * and session. Older numbers are refused with operation_expired, never applied twice.
 */
export const OPERATION_SESSION_WINDOW = 512;
/** Tally: member names in the activity log, characters (a display label, cut, never refused). */
export const MEMBER_NAME_MAX_LENGTH = 100;
/** Tally: most activity entries one page may hold. */
export const ACTIVITY_PAGE_MAX = 200;
/** Tally: most points one history answer may hold. */
export const HISTORY_POINTS_MAX = 1_000;
/** Tally: points of a card's sparkline (the most recent values). */
export const SPARKLINE_POINTS = 30;

// ---- Issue 17: goals, limits, periods, order, sections, tallies ---------------------------------

/** Tally: a section's name, characters (a heading, like a group's display name but shorter). */
export const SECTION_NAME_MAX_LENGTH = 60;
/** Tally: most sections of one group that carry a maximum (a group's sectionLimits). */
export const SECTION_LIMITS_MAX = 100;
/** Tally: closed periods kept per counter (over a year of daily resets); older ones are dropped. */
export const PERIODS_KEPT_PER_COUNTER = 400;
/** Tally: most periods one answer may hold. */
export const PERIODS_PAGE_MAX = PERIODS_KEPT_PER_COUNTER;
/** Tally: most rows one tallies answer may hold (members × counters, largest net first). */
export const TALLIES_MAX_ROWS = 1_000;
/** Tally: most counter ids one reorder may carry (the counters-per-group ceiling). */
export const ORDER_MAX_COUNTERS = 100_000;
/** Tally: an IANA time zone name, characters. */
export const TIME_ZONE_MAX_LENGTH = 64;
/** Tally: a group's default time zone and first day of the week (ISO: 1 = Monday … 7 = Sunday). */
export const DEFAULT_TIME_ZONE = 'UTC';
export const DEFAULT_WEEK_START = 1;
/** Tally: a card reads as nearly full from this share of its maximum on (Headcounts: 90 %). */
export const NEAR_LIMIT_RATIO = 0.9;
