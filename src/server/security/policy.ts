/**
 * Tally's abuse limits (docs/decisions/0005-rate-limits.md, docs/api.md "Rate limits").
 * Only failed key checks are limited on the API, and a right key always passes: a member with
 * the key is never slowed by how much they use the group, nor by what strangers send. The live channel additionally limits messages per socket.
 */
import type { BucketPolicy } from './token-buckets.js';

export interface KeyFailurePolicy {
  /** Failed key checks per client address: 10 at once, then one per 6 s (600 an hour). */
  perClient: BucketPolicy;
  /** Failed key checks per group, from all addresses together: 30 at once, then one per 2 s. */
  perGroup: BucketPolicy;
}

export const DEFAULT_KEY_FAILURE_POLICY: KeyFailurePolicy = {
  perClient: { burst: 10, refillMs: 6_000 },
  perGroup: { burst: 30, refillMs: 2_000 },
};

/**
 * Messages one live socket may send: 500 at once, then 100 per second. The web app coalesces taps
 * on a counter while one is in flight, so a person never comes near this, and a script may
 * pipeline a few hundred taps; a socket beyond it is closed with 4429 and the web app reconnects
 * after a back-off.
 */
export const DEFAULT_LIVE_MESSAGE_POLICY: BucketPolicy = { burst: 500, refillMs: 10 };

/** Heavy reads one client address may make (security/heavy-reads.ts, ADR 34). */
export interface HeavyReadPolicy {
  /** Heavy reads of one address running at the same time. */
  atOnce: number;
  /** Heavy reads one address may start, as a token bucket. */
  rate: BucketPolicy;
}

/**
 * 3 at once; 30 at once, then 4 a second. A member opening a group makes one (its sparklines),
 * opening a chart one, an export one: a few a minute, so tens of members behind one address
 * still fit, while a script reading exports and histories in a loop gets a tenth of what it
 * got before (docs/benchmarks.md#abuse).
 */
export const DEFAULT_HEAVY_READ_POLICY: HeavyReadPolicy = {
  atOnce: 3,
  rate: { burst: 30, refillMs: 250 },
};

export interface SecurityPolicy {
  keyFailures: KeyFailurePolicy;
  liveMessages: BucketPolicy;
  heavyReads: HeavyReadPolicy;
}

export const DEFAULT_SECURITY_POLICY: SecurityPolicy = {
  keyFailures: DEFAULT_KEY_FAILURE_POLICY,
  liveMessages: DEFAULT_LIVE_MESSAGE_POLICY,
  heavyReads: DEFAULT_HEAVY_READ_POLICY,
};
