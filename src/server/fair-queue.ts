/**
 * The commit queue's order (ADR 32): operations are taken from clients in turn (by client
 * address), and within a client from its groups in turn, instead of first come, first served.
 * A client that sends more than its share waits behind its own operations, never behind
 * others': one address flooding its own group cannot delay a member tapping in another.
 *
 * Each client's operations of one group stay in arrival order (its taps, and an undo after the
 * tap it takes back). Operations of different clients or groups have no order between them: they
 * were concurrent. Pure and synchronous: unit-tested in test/unit/fair-queue.test.ts.
 */

/** What the queue needs of an item: when it arrived (performance.now(), ms). */
export interface Queued {
  at: number;
}

/**
 * Most operations of one client in one batch while other clients wait too: a batch (and so the
 * wait of everyone else's operation in the next one) stays short however much one client has
 * queued. Alone, a client fills whole batches.
 */
export const CONTENDED_CLIENT_SHARE = 256;

/** One client's waiting operations, by group, each group's in arrival order. */
interface Flow<T> {
  groups: Map<string, T[]>;
  size: number;
}

export class FairQueue<T extends Queued> {
  /** Clients with something waiting, in the order they are served next (a Map keeps order). */
  private readonly clients = new Map<string, Flow<T>>();
  private count = 0;
  /** The oldest waiting item's arrival, ms; undefined while empty. */
  private oldest: number | undefined;

  get size(): number {
    return this.count;
  }

  /** Clients with something waiting. */
  get clientCount(): number {
    return this.clients.size;
  }

  /** The oldest waiting item's arrival (performance.now(), ms), or undefined. */
  get oldestAt(): number | undefined {
    return this.oldest;
  }

  /** How many items `client` has waiting. */
  queuedOf(client: string): number {
    return this.clients.get(client)?.size ?? 0;
  }

  push(client: string, group: string, item: T): void {
    let flow = this.clients.get(client);
    if (!flow) {
      flow = { groups: new Map(), size: 0 };
      this.clients.set(client, flow);
    }
    const items = flow.groups.get(group);
    if (items) items.push(item);
    else flow.groups.set(group, [item]);
    flow.size += 1;
    this.count += 1;
    if (this.oldest === undefined || item.at < this.oldest) this.oldest = item.at;
  }

  /**
   * Up to `max` items, clients served in turn: each round gives every waiting client an equal
   * part of the room left, and while several clients wait no client gives more than
   * CONTENDED_CLIENT_SHARE to one batch. A client that still has items after its turn goes to
   * the back, so the next batch starts with the others.
   */
  take(max: number): T[] {
    const batch: T[] = [];
    const only = this.clients.size === 1 ? this.clients.entries().next().value : undefined;
    if (only && only[1].groups.size === 1) {
      // One client, one group (a quiet server, a bench): arrival order, as a plain queue.
      this.takeFrom(only[0], max, batch);
    } else {
      const cap = this.clients.size > 1 ? CONTENDED_CLIENT_SHARE : max;
      const given = new Map<string, number>();
      while (batch.length < max && this.count > 0) {
        const before = batch.length;
        const round = Math.max(1, Math.ceil((max - batch.length) / this.clients.size));
        for (const client of [...this.clients.keys()]) {
          const want = Math.min(round, cap - (given.get(client) ?? 0), max - batch.length);
          if (want <= 0) continue;
          given.set(client, (given.get(client) ?? 0) + this.takeFrom(client, want, batch));
          if (batch.length >= max) break;
        }
        // Every client left has given its share to this batch.
        if (batch.length === before) break;
      }
    }
    this.oldest = this.findOldest();
    return batch;
  }

  /** Up to `want` items of one client into `batch`, its groups in turn; returns how many. */
  private takeFrom(client: string, want: number, batch: T[]): number {
    const flow = this.clients.get(client);
    if (!flow) return 0;
    let taken = 0;
    while (taken < want && flow.size > 0) {
      const per = Math.max(1, Math.ceil((want - taken) / flow.groups.size));
      for (const [group, items] of [...flow.groups]) {
        const n = Math.min(per, want - taken, items.length);
        for (const item of items.splice(0, n)) batch.push(item);
        taken += n;
        flow.size -= n;
        if (items.length === 0) flow.groups.delete(group);
        else {
          // Served: to the back of this client's groups.
          flow.groups.delete(group);
          flow.groups.set(group, items);
        }
        if (taken >= want) break;
      }
    }
    this.count -= taken;
    this.clients.delete(client);
    if (flow.size > 0) this.clients.set(client, flow);
    return taken;
  }

  private findOldest(): number | undefined {
    let oldest: number | undefined;
    for (const flow of this.clients.values()) {
      for (const items of flow.groups.values()) {
        const at = items[0]?.at;
        if (at !== undefined && (oldest === undefined || at < oldest)) oldest = at;
      }
    }
    return oldest;
  }
}
