/**
 * At most one flush per key per window, trailing (ADR 4): the first change of a quiet key is
 * flushed at once, changes during the following window are folded into one flush at its end. So
 * however often a key changes, it is flushed at most 1000 / windowMs times a second (plus the
 * first), and the last change is always flushed: whatever a flush sends is read at flush time.
 */
export class Coalescer {
  /** key → its window's timer, and whether a change came during that window. */
  private readonly windows = new Map<string, { timer: NodeJS.Timeout; dirty: boolean }>();

  constructor(
    private readonly windowMs: number,
    private readonly flush: (key: string) => void,
  ) {}

  /** A change to `key`: flushed now if the key is quiet, else at the end of its window. */
  schedule(key: string): void {
    const window = this.windows.get(key);
    if (window) {
      window.dirty = true;
      return;
    }
    this.flush(key);
    this.open(key);
  }

  /** Pending changes are dropped: for shutting down. */
  close(): void {
    for (const window of this.windows.values()) clearTimeout(window.timer);
    this.windows.clear();
  }

  private open(key: string): void {
    const timer = setTimeout(() => {
      this.end(key);
    }, this.windowMs);
    timer.unref();
    this.windows.set(key, { timer, dirty: false });
  }

  private end(key: string): void {
    const window = this.windows.get(key);
    this.windows.delete(key);
    // A quiet window forgets the key (memory stays bounded by the keys changing now); a busy one
    // flushes its changes and opens the next window.
    if (window?.dirty !== true) return;
    this.flush(key);
    this.open(key);
  }
}
