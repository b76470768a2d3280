/**
 * Limits failed access-key checks per client address and per group (policy.ts). A request over
 * either limit is refused with 429 before its key is looked at, so a guesser learns nothing from
 * it; only a request whose address recently proved the group's key is checked anyway.
 */
import type { ErrorCode } from '../../shared/api.js';
import { MESSAGES } from '../../shared/messages.js';
import { HttpError } from '../errors.js';
import { DEFAULT_KEY_FAILURE_POLICY, type KeyFailurePolicy } from './policy.js';
import { TokenBuckets } from './token-buckets.js';

/** Answers that mean "this key does not open this group". */
const KEY_FAILURES: ReadonlySet<ErrorCode> = new Set([
  'missing_key',
  'invalid_key_format',
  'wrong_key',
]);

/** Most remembered (address, group) pairs; the oldest are forgotten first. */
const MAX_TRUSTED_PAIRS = 100_000;

export class RateLimitedError extends HttpError {
  constructor(readonly retryAfterSeconds: number) {
    super('rate_limited', MESSAGES.rateLimited(retryAfterSeconds));
  }
}

export class KeyGuard {
  private readonly perClient: TokenBuckets;
  private readonly perGroup: TokenBuckets;
  /** `address \n group` → trusted until, ms since the epoch. */
  private readonly trusted = new Map<string, number>();

  constructor(
    private readonly policy: KeyFailurePolicy = DEFAULT_KEY_FAILURE_POLICY,
    private readonly now: () => number = Date.now,
  ) {
    this.perClient = new TokenBuckets(policy.perClient, now);
    this.perGroup = new TokenBuckets(policy.perGroup, now);
  }

  /**
   * Runs one key check for `group` (a slug) from `client` (an address; undefined when there is
   * none, e.g. in-process callers): refused with RateLimitedError when over a limit, counted
   * when it fails with a key error, remembered when it succeeds.
   */
  async check<T>(client: string | undefined, group: string, run: () => Promise<T>): Promise<T> {
    this.admit(client, group);
    try {
      const result = await run();
      if (client !== undefined) this.trust(client, group);
      return result;
    } catch (error) {
      if (error instanceof HttpError && KEY_FAILURES.has(error.code)) {
        if (client !== undefined) this.perClient.spend(client);
        this.perGroup.spend(group);
      }
      throw error;
    }
  }

  private admit(client: string | undefined, group: string): void {
    if (client !== undefined && this.isTrusted(client, group)) return;
    const waitMs = Math.max(
      client === undefined ? 0 : this.perClient.waitMs(client),
      this.perGroup.waitMs(group),
    );
    if (waitMs > 0) throw new RateLimitedError(Math.max(1, Math.ceil(waitMs / 1000)));
  }

  private isTrusted(client: string, group: string): boolean {
    const until = this.trusted.get(pairKey(client, group));
    return until !== undefined && until > this.now();
  }

  private trust(client: string, group: string): void {
    const pair = pairKey(client, group);
    // Re-inserted so the Map's order stays oldest-first.
    this.trusted.delete(pair);
    this.trusted.set(pair, this.now() + this.policy.trustMs);
    for (const oldest of this.trusted.keys()) {
      if (this.trusted.size <= MAX_TRUSTED_PAIRS) break;
      this.trusted.delete(oldest);
    }
  }
}

const pairKey = (client: string, group: string) => `${client}\n${group}`;
