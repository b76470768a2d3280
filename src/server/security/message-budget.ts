/** Flood control for one live socket: a token bucket of messages (policy.ts). */
import { DEFAULT_LIVE_MESSAGE_POLICY } from './policy.js';
import type { BucketPolicy } from './token-buckets.js';

export class MessageBudget {
  private tokens: number;
  private at: number;

  constructor(
    private readonly policy: BucketPolicy = DEFAULT_LIVE_MESSAGE_POLICY,
    private readonly now: () => number = Date.now,
  ) {
    this.tokens = policy.burst;
    this.at = now();
  }

  /** Spends one message; false when the socket is over its budget. */
  take(): boolean {
    const now = this.now();
    this.tokens = Math.min(this.policy.burst, this.tokens + (now - this.at) / this.policy.refillMs);
    this.at = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}
