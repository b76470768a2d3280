/**
 * Per-address budgets for heavy reads (docs/api.md "Limits", ADR 34): exports, the activity
 * chain check, history and large activity pages each read up to a group's whole activity log,
 * much of it on the event loop's thread (SQLite reads are synchronous). One client reading them
 * in a loop took a member's taps in another group from a few ms to over 80 ms. Each address may
 * run only `atOnce` of them at a time and start them at a bounded rate (a token bucket); past
 * either it is answered 429 `too_many_reads` with Retry-After at once, before anything is read.
 * Another address's budget is its own, so a greedy reader never slows anyone else's reads.
 * Callers with no address (in-process) are not limited.
 */
import { MESSAGES } from '../../shared/messages.js';
import { RateLimitedError, retryAfterSeconds } from './key-guard.js';
import { DEFAULT_HEAVY_READ_POLICY, type HeavyReadPolicy } from './policy.js';
import { TokenBuckets } from './token-buckets.js';

/** Retry-After when an address has all its heavy reads running, seconds. */
const BUSY_RETRY_SECONDS = 1;

/** The end of a heavy read: frees its place (and charges it, when it was charged afterwards). */
export type HeavyReadEnd = (charge?: boolean) => void;

export class HeavyReads {
  private readonly running = new Map<string, number>();
  private readonly buckets: TokenBuckets;

  constructor(
    private readonly policy: HeavyReadPolicy = DEFAULT_HEAVY_READ_POLICY,
    now: () => number = Date.now,
  ) {
    this.buckets = new TokenBuckets(policy.rate, now);
  }

  /**
   * Starts a heavy read for `client`, or throws 429 too_many_reads. The read is charged one token
   * now, or with `chargeAtEnd` only if its end says so (an activity page asked for many entries
   * but found few, as a catch-up usually does); an address without a token left is refused either
   * way. Call the returned end exactly once, when the answer has been sent or abandoned.
   */
  begin(client: string | undefined, { chargeAtEnd = false } = {}): HeavyReadEnd {
    if (client === undefined) return () => undefined;
    const running = this.running.get(client) ?? 0;
    if (running >= this.policy.atOnce) throw tooManyReads(BUSY_RETRY_SECONDS);
    const waitMs = this.buckets.waitMs(client);
    if (waitMs > 0 || (!chargeAtEnd && !this.buckets.take(client))) {
      throw tooManyReads(retryAfterSeconds(waitMs));
    }
    this.running.set(client, running + 1);
    let ended = false;
    return (charge = false) => {
      if (ended) return;
      ended = true;
      if (chargeAtEnd && charge) this.buckets.spend(client);
      const left = (this.running.get(client) ?? 1) - 1;
      if (left > 0) this.running.set(client, left);
      else this.running.delete(client);
    };
  }

  /** Heavy reads of `client` running now (tests and diagnostics). */
  runningFor(client: string): number {
    return this.running.get(client) ?? 0;
  }
}

function tooManyReads(seconds: number): RateLimitedError {
  return new RateLimitedError(seconds, 'too_many_reads', MESSAGES.tooManyReads(seconds));
}
