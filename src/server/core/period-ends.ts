/**
 * Ends counters' periods at their midnights when nobody touches them then, so every
 * member sees the reset live. Any batch ends a due period of a counter it touches
 * (domain/periods.ts), so this is only the clock's half: once a minute, on the minute (every
 * midnight of every time zone falls on a whole minute), it asks the store which counters are due
 * and commits one `resetPeriods` operation per group through the batcher.
 *
 * Several instances may do it at once: the commit ends a period only while it is still due (it
 * reads the counter under the group's lock), so the second finds nothing to do. A restart loses
 * nothing: what is due is in the database, not in a timer.
 */
import type { Operation, OperationOutcome, Store } from '../store/types.js';

/** How often due periods are looked for, ms: midnights are whole minutes. */
export const PERIOD_CHECK_EVERY_MS = 60_000;
/** Counters read per query, and ended per operation: bounds one commit's size. */
export const PERIOD_ENDS_PER_QUERY = 500;

export interface PeriodEndsOptions {
  store: Pick<Store, 'duePeriods'>;
  submit: (operation: Operation) => Promise<OperationOutcome>;
  onError: (error: unknown) => void;
  clock?: () => number;
  everyMs?: number;
}

export class PeriodEnds {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<number> | undefined;
  private stopped = false;
  private readonly clock: () => number;
  private readonly everyMs: number;

  constructor(private readonly options: PeriodEndsOptions) {
    this.clock = options.clock ?? Date.now;
    this.everyMs = options.everyMs ?? PERIOD_CHECK_EVERY_MS;
  }

  /** Checks now (a restart after a midnight), then on every whole interval. */
  start(): void {
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running?.catch(() => undefined);
  }

  /** Ends every period due now; resolves with how many counters were asked to end one. */
  async endDue(): Promise<number> {
    let ended = 0;
    for (;;) {
      const due = await this.options.store.duePeriods(this.clock(), PERIOD_ENDS_PER_QUERY);
      const byGroup = new Map<string, string[]>();
      for (const { groupId, counterId } of due) {
        const list = byGroup.get(groupId) ?? [];
        list.push(counterId);
        byGroup.set(groupId, list);
      }
      await Promise.all(
        [...byGroup].map(([groupId, counterIds]) =>
          this.options.submit({ groupId, mutation: { kind: 'resetPeriods', counterIds } }),
        ),
      );
      ended += due.length;
      // A full page: more may be due (a restart after a busy midnight). Each commit ended the
      // periods it was given, so the next page holds the next ones.
      if (due.length < PERIOD_ENDS_PER_QUERY || this.stopped) return ended;
    }
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.endDue();
      this.running
        .catch((error: unknown) => {
          this.options.onError(error);
        })
        .finally(() => {
          // On the next whole interval (plus a little: the clock may read just before it).
          const now = this.clock();
          this.schedule(this.everyMs - (now % this.everyMs) + 50);
        });
    }, delayMs);
    this.timer.unref();
  }
}
