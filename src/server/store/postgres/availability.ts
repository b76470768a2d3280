/**
 * Whether a store can save changes right now. A connection failure makes it unavailable at once:
 * from then on changes are refused `storage_unavailable` without touching the database (no queue
 * grows, nobody waits on a connect timeout), and a probe (the health check's one-row write) runs
 * with a short backoff until one commits. Then changes are accepted again and listeners are told,
 * so the live channel can tell its members and send them fresh snapshots.
 */
import type { StoreAvailability } from '../types.js';

/**
 * The probe's first delay and its cap, ms (doubling). The cap bounds how long commits stay refused
 * after the database accepts connections again: at most one delay plus one probe.
 */
export const PROBE_MIN_MS = 100;
export const PROBE_MAX_MS = 500;

export class Availability implements StoreAvailability {
  private current = true;
  private readonly listeners = new Set<(saving: boolean) => void>();
  private timer: NodeJS.Timeout | undefined;
  private probing = false;
  private delayMs = PROBE_MIN_MS;
  private closed = false;

  /** `probe` resolves once a write committed, and rejects while it cannot. */
  constructor(private readonly probe: () => Promise<void>) {}

  get saving(): boolean {
    return this.current;
  }

  onChange(listener: (saving: boolean) => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /** A connection failed: unavailable until a probe commits. */
  lost(_reason: unknown): void {
    if (this.closed) return;
    if (this.current) {
      this.current = false;
      this.delayMs = PROBE_MIN_MS;
      this.tell(false);
    }
    this.schedule();
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.listeners.clear();
  }

  private schedule(): void {
    if (this.closed || this.current || this.probing || this.timer !== undefined) return;
    this.timer = setTimeout(this.tryProbe, this.delayMs);
    this.delayMs = Math.min(this.delayMs * 2, PROBE_MAX_MS);
  }

  private readonly tryProbe = (): void => {
    this.timer = undefined;
    this.probing = true;
    this.probe().then(
      () => {
        this.probing = false;
        if (this.closed || this.current) return;
        this.current = true;
        this.tell(true);
      },
      () => {
        this.probing = false;
        this.schedule();
      },
    );
  };

  private tell(saving: boolean): void {
    for (const listener of [...this.listeners]) listener(saving);
  }
}
