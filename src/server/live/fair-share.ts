/**
 * Each client address's share of the live channel's work (ADR 32). The event loop reads every
 * socket in turn, so one address with hundreds of sockets tapping at their limit takes the
 * server's time from everyone: a member's tap waits behind thousands of the flood's. While the
 * event loop is running late, an address sending more than 1.5 times its equal part of the
 * recent taps is held: from then on it is let through a number of taps per window that halves
 * while the loop stays late and grows by a step while it keeps up (AIMD, as TCP shares a link),
 * and the rest is refused `busy` (the client retries them) with its socket paused, before any of
 * it is validated or committed. It is let go 2 s after it last sent more than that. The others go
 * on as usual. Until the loop is late, nobody is limited, however much one address sends.
 */

/** How often the event loop's lateness is sampled, ms. */
const SAMPLE_MS = 20;
/** A sample this late (beyond SAMPLE_MS) means the loop is behind, ms. */
const LATE_MS = 25;
/** The loop counts as behind for this long after a late sample, ms. */
const BEHIND_FOR_MS = 500;
/** Taps are counted per address over windows this long, ms. */
const WINDOW_MS = 500;
/** An address below this many taps per window is never refused (a member, a small event). */
const MIN_REFUSED_PER_WINDOW = 50;
/**
 * How far past its equal part of the recent taps an address may go before it is refused: many
 * addresses tapping alike are never refused (none is far above the mean), one flooding beside a
 * few members always is.
 */
const SHARE_FACTOR = 1.5;
/** Most addresses counted per window: past it, new ones are not counted (bounded memory). */
const MAX_ADDRESSES = 50_000;

/**
 * An address found over its share stays held for at least this long after it last went past
 * what it is let through, ms: without it, the flood came back whole each time the loop caught up,
 * and blocked it again.
 */
const HELD_FOR_MS = 2_000;

/** What a held address is let through per window: halved while the loop is behind, else grown. */
interface Held {
  allowance: number;
  /** Taps let through in the current window. */
  passed: number;
  /** Whether it sent more than its allowance in the current window. */
  over: boolean;
  until: number;
}

export interface FairShareOptions {
  /** Milliseconds on a monotonic clock (tests pass their own). */
  now?: () => number;
  /** Whether to sample the event loop itself (tests drive `behind` instead). */
  sample?: boolean;
}

export class LiveFairShare {
  private readonly now: () => number;
  /** Taps per address in the current window and the one before it. */
  private current = new Map<string, number>();
  private previous = new Map<string, number>();
  private windowStart: number;
  private previousTotal = 0;
  private currentTotal = 0;
  /** Until when the loop counts as behind, ms. */
  private behindUntil = -Infinity;
  /** Addresses found over their share, and what each is let through (AIMD per window). */
  private readonly held = new Map<string, Held>();
  private readonly timer: NodeJS.Timeout | undefined;

  constructor({ now = () => performance.now(), sample = true }: FairShareOptions = {}) {
    this.now = now;
    this.windowStart = now();
    if (!sample) return;
    let expected = now() + SAMPLE_MS;
    this.timer = setInterval(() => {
      const at = now();
      if (at - expected > LATE_MS) this.markBehind(at);
      expected = at + SAMPLE_MS;
    }, SAMPLE_MS);
    this.timer.unref();
  }

  /** The event loop was found late now (tests call this instead of waiting for a late sample). */
  markBehind(at = this.now()): void {
    this.behindUntil = at + BEHIND_FOR_MS;
  }

  /**
   * Counts one tap from `address`; true when it is over its share and should be refused now.
   */
  overShare(address: string): boolean {
    const now = this.now();
    this.roll(now);
    const mine = (this.current.get(address) ?? 0) + 1;
    if (mine > 1 || this.current.size < MAX_ADDRESSES) this.current.set(address, mine);
    this.currentTotal += 1;
    const held = this.held.get(address);
    if (held) {
      if (held.passed < held.allowance) {
        held.passed += 1;
        return false;
      }
      held.over = true;
      held.until = now + HELD_FOR_MS;
      return true;
    }
    if (now >= this.behindUntil) return false;
    // The recent window (the last full one and this one so far) by address.
    const recent = mine + (this.previous.get(address) ?? 0);
    if (recent < MIN_REFUSED_PER_WINDOW) return false;
    const addresses = Math.max(1, this.previous.size, this.current.size);
    const total = this.previousTotal + this.currentTotal;
    const over = recent > (SHARE_FACTOR * total) / addresses;
    if (over && this.held.size < MAX_ADDRESSES) {
      // Held from now on: let through half of what it sent in the last window, then adjusted.
      const allowance = Math.max(MIN_REFUSED_PER_WINDOW, Math.floor(recent / 4));
      this.held.set(address, { allowance, passed: 0, over: true, until: now + HELD_FOR_MS });
    }
    return over;
  }

  close(): void {
    clearInterval(this.timer);
  }

  private roll(now: number): void {
    if (now - this.windowStart < WINDOW_MS) return;
    // A silence of more than a window leaves nothing recent.
    const stale = now - this.windowStart >= 2 * WINDOW_MS;
    this.previous = stale ? new Map<string, number>() : this.current;
    this.previousTotal = stale ? 0 : this.currentTotal;
    this.current = new Map();
    this.currentTotal = 0;
    this.windowStart = now;
    const behind = now < this.behindUntil;
    for (const [address, held] of this.held) {
      if (!held.over && now >= held.until) {
        this.held.delete(address);
        continue;
      }
      // Additive increase while the loop keeps up, multiplicative decrease while it does not.
      held.allowance = behind
        ? Math.max(MIN_REFUSED_PER_WINDOW, Math.floor(held.allowance / 2))
        : held.allowance + MIN_REFUSED_PER_WINDOW;
      held.passed = 0;
      held.over = false;
    }
  }
}
