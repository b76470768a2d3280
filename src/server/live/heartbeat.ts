/**
 * Pings spread over the heartbeat interval. Pinging every socket in one event-loop turn is one
 * socket write per socket at once: with thousands of sockets that is a stall of tens of
 * milliseconds every interval, which every tap waiting behind it feels (the hot path's tail).
 *
 * Members are dealt round-robin into `slices` slots, and a tick every `intervalMs / slices` beats
 * one slot. Each member is still beaten once per interval, as before, while one turn beats about
 * 1/slices of them.
 */

/** Slots the interval is cut into: at the default 30 s interval, one tick a second. */
export const HEARTBEAT_SLICES = 30;

export class SpreadHeartbeat<T> {
  private readonly slots: Set<T>[];
  private readonly slotOf = new Map<T, number>();
  private nextSlot = 0;
  private tick = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(
    intervalMs: number,
    private readonly beat: (member: T) => void,
    slices = HEARTBEAT_SLICES,
  ) {
    if (!Number.isInteger(slices) || slices < 1) throw new RangeError('slices: a whole number ≥ 1');
    this.slots = Array.from({ length: slices }, () => new Set<T>());
    this.timer = setInterval(() => {
      this.beatSlot();
    }, intervalMs / slices);
    this.timer.unref();
  }

  /** Members beaten per interval (tests and diagnostics). */
  get size(): number {
    return this.slotOf.size;
  }

  add(member: T): void {
    if (this.slotOf.has(member)) return;
    const slot = this.nextSlot;
    this.nextSlot = (slot + 1) % this.slots.length;
    this.slots[slot]?.add(member);
    this.slotOf.set(member, slot);
  }

  delete(member: T): void {
    const slot = this.slotOf.get(member);
    if (slot === undefined) return;
    this.slots[slot]?.delete(member);
    this.slotOf.delete(member);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private beatSlot(): void {
    const slot = this.slots[this.tick];
    this.tick = (this.tick + 1) % this.slots.length;
    // A beat may delete its member (a dead socket is forgotten): a Set keeps iterating the rest.
    for (const member of slot ?? []) this.beat(member);
  }
}
