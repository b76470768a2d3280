/**
 * Groups one client address may create (docs/api.md "Limits"): MAX_GROUPS_PER_ADDRESS_PER_HOUR, as a token
 * bucket per address holding an hour's worth and refilling evenly over the hour. Only actual
 * creations count; joining an existing group costs nothing. Callers with no address (in-process)
 * are not limited. The map of buckets is bounded (token-buckets.ts).
 */
import { MESSAGES } from '../../shared/messages.js';
import { RateLimitedError, retryAfterSeconds } from './key-guard.js';
import { TokenBuckets } from './token-buckets.js';

const HOUR_MS = 60 * 60 * 1000;

/** Groups one address may create per hour unless MAX_GROUPS_PER_ADDRESS_PER_HOUR says otherwise. */
export const DEFAULT_GROUPS_PER_ADDRESS_PER_HOUR = 100;

export class GroupCreationQuota {
  private readonly buckets: TokenBuckets;

  constructor(perHour: number = DEFAULT_GROUPS_PER_ADDRESS_PER_HOUR, now: () => number = Date.now) {
    this.buckets = new TokenBuckets({ burst: perHour, refillMs: HOUR_MS / perHour }, now);
  }

  /**
   * Runs `create` if `client` may create one more group, and charges it only when a group was
   * created (`created` true); otherwise throws 429 too_many_groups with Retry-After.
   */
  async create<T extends { created: boolean }>(
    client: string | undefined,
    create: () => Promise<T>,
  ): Promise<T> {
    if (client === undefined) return create();
    if (!this.buckets.take(client)) {
      const seconds = retryAfterSeconds(this.buckets.waitMs(client));
      throw new RateLimitedError(seconds, 'too_many_groups', MESSAGES.tooManyGroups(seconds));
    }
    let created = false;
    try {
      const result = await create();
      created = result.created;
      return result;
    } finally {
      if (!created) this.buckets.refund(client);
    }
  }
}
