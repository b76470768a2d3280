/**
 * Token buckets keyed by a string (a client address, a group name, a socket). A bucket holds at
 * most `burst` tokens and gains one every `refillMs`; taking from an empty bucket is refused and
 * says how long until the next token. Buckets are filled lazily on access, so an idle key costs
 * nothing but its map entry, and full buckets (the same as no bucket) are dropped when the map
 * grows, which keeps memory bounded however many addresses or names a client invents.
 */

export interface BucketPolicy {
  /** Tokens a fresh bucket holds: how many events pass in a burst. */
  burst: number;
  /** One token comes back every this many ms (the sustained rate is 1000 / refillMs per s). */
  refillMs: number;
}

interface Bucket {
  tokens: number;
  /** When `tokens` was last brought up to date, ms since the epoch. */
  at: number;
}

/** More keys than this and full buckets are swept; still more and the oldest go. */
const DEFAULT_MAX_KEYS = 100_000;

export class TokenBuckets {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly policy: BucketPolicy,
    private readonly now: () => number = Date.now,
    private readonly maxKeys = DEFAULT_MAX_KEYS,
  ) {}

  /** ms until `key` has a token again; 0 when it has one now. */
  waitMs(key: string): number {
    const bucket = this.current(key);
    if (bucket === undefined || bucket.tokens >= 1) return 0;
    return Math.ceil((1 - bucket.tokens) * this.policy.refillMs);
  }

  /** Takes one token if there is one; false (and nothing taken) when the bucket is empty. */
  take(key: string): boolean {
    const bucket = this.current(key) ?? { tokens: this.policy.burst, at: this.now() };
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    this.buckets.set(key, bucket);
    this.bound();
    return true;
  }

  /** Takes one token whether or not there is one (a failure that already happened counts). */
  spend(key: string): void {
    const bucket = this.current(key) ?? { tokens: this.policy.burst, at: this.now() };
    bucket.tokens = Math.max(0, bucket.tokens - 1);
    this.buckets.set(key, bucket);
    this.bound();
  }

  /** Gives back a token taken for something that did not happen after all. */
  refund(key: string): void {
    const bucket = this.current(key);
    if (bucket !== undefined) bucket.tokens = Math.min(this.policy.burst, bucket.tokens + 1);
  }

  get size(): number {
    return this.buckets.size;
  }

  private current(key: string): Bucket | undefined {
    const bucket = this.buckets.get(key);
    if (bucket === undefined) return undefined;
    const now = this.now();
    const refilled = bucket.tokens + (now - bucket.at) / this.policy.refillMs;
    bucket.tokens = Math.min(this.policy.burst, refilled);
    bucket.at = now;
    return bucket;
  }

  private bound(): void {
    if (this.buckets.size <= this.maxKeys) return;
    for (const key of [...this.buckets.keys()]) {
      const bucket = this.current(key);
      if (bucket !== undefined && bucket.tokens >= this.policy.burst) this.buckets.delete(key);
    }
    // Still too many: forget the oldest (Map keeps insertion order). Forgetting a bucket only
    // ever lets a client through sooner, never locks one out.
    for (const key of this.buckets.keys()) {
      if (this.buckets.size <= this.maxKeys) break;
      this.buckets.delete(key);
    }
  }
}
