/**
 * Limits failed access-key checks per client address and per group (policy.ts, ADR 0005).
 *
 * The key is always checked (SHA-256 and a constant-time compare: microseconds), and a right key
 * always opens the group, whatever the buckets say: however many wrong keys other addresses send,
 * a member holding the key gets in, and nothing a stranger does can push a member out. Only key
 * failures are counted; a failure over either limit is answered 429 instead of 403, so a guesser
 * gets no more than the limit's worth of answers, and a right key among them would still pass.
 */
import type { ErrorCode } from '../../shared/api.js';
import { MESSAGES } from '../../shared/messages.js';
import { DomainError } from '../errors.js';
import { DEFAULT_KEY_FAILURE_POLICY, type KeyFailurePolicy } from './policy.js';
import { TokenBuckets } from './token-buckets.js';

/**
 * Answers that count as a failed guess: a well-formed key that does not open the group. A
 * missing or malformed key guesses nothing (its answer is the same for every group), so it is
 * never counted, and a member whose app sent one by mistake is never limited for it.
 */
const KEY_FAILURES: ReadonlySet<ErrorCode> = new Set(['wrong_key']);

/** rate_limited with a wait (the REST edge, routes/errors.ts, sends it as Retry-After). */
export class RateLimitedError extends DomainError {
  constructor(
    readonly retryAfterSeconds: number,
    code: ErrorCode = 'rate_limited',
    message: string = MESSAGES.rateLimited(retryAfterSeconds),
  ) {
    super(code, message);
  }
}

/** Whole seconds to wait, at least 1, from ms. */
export const retryAfterSeconds = (waitMs: number): number => Math.max(1, Math.ceil(waitMs / 1000));

export class KeyGuard {
  private readonly perClient: TokenBuckets;
  private readonly perGroup: TokenBuckets;

  constructor(policy: KeyFailurePolicy = DEFAULT_KEY_FAILURE_POLICY, now: () => number = Date.now) {
    this.perClient = new TokenBuckets(policy.perClient, now);
    this.perGroup = new TokenBuckets(policy.perGroup, now);
  }

  /**
   * Runs one key check for `group` (a slug) from `client` (an address; undefined when there is
   * none, e.g. in-process callers). A success passes untouched; a key failure is counted, and
   * answered with RateLimitedError instead when the address or the group was already over its
   * limit.
   */
  async check<T>(client: string | undefined, group: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      if (error instanceof DomainError && KEY_FAILURES.has(error.code)) {
        this.countFailure(client, group);
      }
      throw error;
    }
  }

  /** Counts a failure; throws RateLimitedError if the caller was already over a limit. */
  private countFailure(client: string | undefined, group: string): void {
    const waitMs = Math.max(
      client === undefined ? 0 : this.perClient.waitMs(client),
      this.perGroup.waitMs(group),
    );
    if (client !== undefined) this.perClient.spend(client);
    this.perGroup.spend(group);
    if (waitMs > 0) throw new RateLimitedError(retryAfterSeconds(waitMs));
  }
}
