/**
 * Refusals at the edge (too many connections, a request too slow or malformed) are logged once
 * per address and reason per minute: enough for an operator to see who is refused
 * and why, without one hostile client writing a log line per attempt. Only the address and the
 * reason are logged: never a URL, a header or a body, which could carry the key.
 */
import type { FastifyBaseLogger } from 'fastify';

/** An address and reason are logged again after this long, ms. */
export const REFUSAL_LOG_EVERY_MS = 60_000;
/** At most this many (address, reason) pairs are remembered; the oldest go first. */
export const REFUSAL_LOG_MAX_ENTRIES = 10_000;

export class RefusalLog {
  /** "reason address" → when it was last logged, ms; in insertion (= logging) order. */
  private readonly lastLogged = new Map<string, number>();
  private log: FastifyBaseLogger | undefined;

  constructor(
    private readonly everyMs = REFUSAL_LOG_EVERY_MS,
    private readonly maxEntries = REFUSAL_LOG_MAX_ENTRIES,
    private readonly now: () => number = Date.now,
  ) {}

  /** Where the lines go (the app's logger exists only after the server is built). */
  useLogger(log: FastifyBaseLogger): void {
    this.log = log;
  }

  /** Records a refusal; logs it unless this address was logged for this reason within a minute. */
  note(address: string | undefined, reason: string): void {
    const entry = `${reason} ${address ?? 'unknown'}`;
    const now = this.now();
    const last = this.lastLogged.get(entry);
    if (last !== undefined && now - last < this.everyMs) return;
    // Re-inserted at the end, so the map stays ordered oldest first.
    this.lastLogged.delete(entry);
    this.lastLogged.set(entry, now);
    this.forgetOldest(now);
    this.log?.warn({ address: address ?? 'unknown', reason }, 'refused a client');
  }

  /** Entries remembered now (for tests). */
  get size(): number {
    return this.lastLogged.size;
  }

  private forgetOldest(now: number): void {
    for (const [entry, at] of this.lastLogged) {
      if (this.lastLogged.size <= this.maxEntries && now - at < this.everyMs) return;
      this.lastLogged.delete(entry);
    }
  }
}
