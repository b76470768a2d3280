/**
 * Group commit. Mutations that arrive within one turn of the event loop are applied in one
 * transaction, and their changes are announced as one message per group. Under load this turns
 * thousands of taps per second into a few hundred commits (DESIGN.md: per-statement commits cap
 * durable throughput at a few thousand per second). A caller is answered only after its batch
 * has committed, so an answered change is a durable change.
 */
import type { Change } from '../shared/protocol.js';
import type { Bus } from './bus/types.js';
import type { Operation, OperationOutcome, Store } from './store/types.js';

/** Most operations in one transaction: bounds the time one commit holds the write lock. */
const MAX_BATCH = 2_000;

interface Pending {
  operation: Operation;
  resolve: (outcome: OperationOutcome) => void;
  reject: (error: unknown) => void;
}

export class Batcher {
  private queue: Pending[] = [];
  private flushing: Promise<void> | null = null;
  private scheduled = false;

  constructor(
    private readonly store: Store,
    private readonly bus: Bus,
  ) {}

  submit(operation: Operation): Promise<OperationOutcome> {
    return new Promise((resolve, reject) => {
      this.queue.push({ operation, resolve, reject });
      this.schedule();
    });
  }

  /** Resolves once everything submitted so far has committed (used on graceful stop). */
  async drain(): Promise<void> {
    while (this.queue.length > 0 || this.flushing || this.scheduled) {
      await (this.flushing ?? new Promise((resolve) => setImmediate(resolve)));
    }
  }

  private schedule(): void {
    if (this.scheduled || this.flushing) return;
    this.scheduled = true;
    // setImmediate runs after the I/O callbacks of this turn: every request already read from
    // the sockets joins the batch.
    setImmediate(() => {
      this.scheduled = false;
      this.flushing = this.flushAll().finally(() => {
        this.flushing = null;
        if (this.queue.length > 0) this.schedule();
      });
    });
  }

  private async flushAll(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, MAX_BATCH);
      await this.commitBatch(batch);
    }
  }

  private async commitBatch(batch: Pending[]): Promise<void> {
    let outcomes: OperationOutcome[];
    try {
      outcomes = await this.store.commit(batch.map((pending) => pending.operation));
    } catch (error) {
      if (batch.length === 1) {
        batch[0]?.reject(error);
        return;
      }
      // One poisoned operation must not fail its neighbours: retry each on its own.
      for (const pending of batch) await this.commitBatch([pending]);
      return;
    }
    this.announce(batch, outcomes);
    batch.forEach((pending, index) => {
      const outcome = outcomes[index];
      if (outcome) pending.resolve(outcome);
      else pending.reject(new Error('store returned fewer outcomes than operations'));
    });
  }

  /** One bus message per group per batch, changes in commit order. */
  private announce(batch: readonly Pending[], outcomes: readonly OperationOutcome[]): void {
    const byGroup = new Map<string, Change[]>();
    for (const [index, outcome] of outcomes.entries()) {
      const groupId = batch[index]?.operation.groupId;
      if (!outcome.ok || outcome.changes.length === 0 || groupId === undefined) continue;
      const list = byGroup.get(groupId) ?? [];
      list.push(...outcome.changes);
      byGroup.set(groupId, list);
    }
    // Coalesced steps take their change number when they are flushed, so a batch's changes are
    // put back in change-number order here.
    for (const [groupId, changes] of byGroup) {
      changes.sort((a, b) => a.seq - b.seq);
      this.bus.publish(groupId, changes);
    }
  }
}
