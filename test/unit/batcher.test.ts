/**
 * The group-commit batcher on its own, with a fake store: a poisoned operation is isolated by
 * bisection (its neighbours commit, O(log n) extra commits), store-wide failures are not retried,
 * and the queue is bounded — past its target delay or its length limit an operation is refused
 * `busy` and never reaches the store.
 */
import { describe, expect, it, vi } from 'vitest';
import {
  Batcher,
  type AdmissionPolicy,
  type CommitObserver,
  type LingerPolicy,
} from '../../src/server/batcher.js';
import { MemoryBus } from '../../src/server/bus/memory.js';
import { CONTENDED_CLIENT_SHARE } from '../../src/server/fair-queue.js';
import { DomainError } from '../../src/server/errors.js';
import { restAnswerOf } from '../../src/server/routes/errors.js';
import {
  StorageUnavailableError,
  StoreBusyError,
  type Operation,
  type OperationOutcome,
  type Store,
} from '../../src/server/store/types.js';
import type { MutationResult } from '../../src/shared/api.js';

const POISON = 'poison';

/** A store whose commit fails whole when a poisoned operation is in the batch (as PostgreSQL does). */
class FakeStore {
  commits = 0;
  /** Operation ids in the order they were committed. */
  committed: string[] = [];
  /** When set, commit waits for it (a slow disk or a busy database). */
  gate: Promise<void> | null = null;
  failure: Error | null = null;

  async commit(operations: readonly Operation[]): Promise<OperationOutcome[]> {
    this.commits += 1;
    if (this.gate) await this.gate;
    if (this.failure) throw this.failure;
    if (operations.some((operation) => operation.opId?.startsWith(POISON))) {
      throw new Error('invalid byte sequence for encoding "UTF8": 0x00');
    }
    this.committed.push(...operations.map((operation) => operation.opId ?? ''));
    return operations.map(() => ({
      ok: true,
      result: {} as MutationResult,
      changes: [],
      replayed: false,
    }));
  }
}

function operation(opId: string): Operation {
  return {
    groupId: 'g',
    opId,
    mutation: { kind: 'adjustCounter', counterId: 'c', direction: 'increment', times: 1 },
  };
}

function batcherOn(
  store: FakeStore,
  admission?: AdmissionPolicy,
  observer?: CommitObserver,
): Batcher {
  return new Batcher({
    store: store as unknown as Store,
    bus: new MemoryBus(),
    admission,
    lanes: 1,
    observer,
  });
}

/** Writes down what the batcher tells its observer (the metrics). */
class RecordingObserver implements CommitObserver {
  /** Operation ids of each committed batch. */
  committedBatches: string[][] = [];
  durations: number[] = [];
  failedCommits: unknown[] = [];
  /** `opId: error code` of each operation answered without being applied. */
  notAppliedOperations: string[] = [];

  committed(operations: readonly Operation[], outcomes: readonly OperationOutcome[], ms: number) {
    expect(outcomes).toHaveLength(operations.length);
    this.committedBatches.push(operations.map((operation) => operation.opId ?? ''));
    this.durations.push(ms);
  }

  commitFailed(error: unknown) {
    this.failedCommits.push(error);
  }

  notApplied(operation: Operation, error: unknown) {
    const code = error instanceof DomainError ? error.code : 'other';
    this.notAppliedOperations.push(`${operation.opId ?? ''}: ${code}`);
  }
}

const settle = <T>(promise: Promise<T>) =>
  promise.then(
    () => 'ok' as const,
    (error: unknown) => error,
  );

describe('a batch with a poisoned operation', () => {
  it('commits every other operation, in order, with O(log n) extra commits', async () => {
    const store = new FakeStore();
    const batcher = batcherOn(store);
    const ids = Array.from({ length: 1024 }, (_, i) => (i === 700 ? `${POISON}-700` : `op-${i}`));
    const answers = await Promise.all(ids.map((id) => settle(batcher.submit(operation(id)))));

    expect(answers.filter((answer) => answer === 'ok')).toHaveLength(1023);
    expect(answers[700]).toBeInstanceOf(Error);
    expect(store.committed).toEqual(ids.filter((id) => !id.startsWith(POISON)));
    // One failed commit of all 1024, then two halves per level down to the single poison.
    expect(store.commits).toBeLessThanOrEqual(1 + 2 * Math.log2(1024));
  });

  it('isolates two poisoned operations and still commits the rest', async () => {
    const store = new FakeStore();
    const batcher = batcherOn(store);
    const ids = Array.from({ length: 256 }, (_, i) =>
      i === 3 || i === 200 ? `${POISON}-${i}` : `op-${i}`,
    );
    const answers = await Promise.all(ids.map((id) => settle(batcher.submit(operation(id)))));

    expect(answers.filter((answer) => answer !== 'ok')).toHaveLength(2);
    expect(store.committed).toEqual(ids.filter((id) => !id.startsWith(POISON)));
    expect(store.commits).toBeLessThanOrEqual(1 + 2 * 2 * Math.log2(256));
  });

  const storeWide: [string, Error][] = [
    ['busy (another process holds the write lock)', new StoreBusyError()],
    ['unavailable (the file was replaced)', new StorageUnavailableError('file replaced')],
  ];
  it.each(storeWide)('is not retried when the store says it is %s', async (_, failure) => {
    const store = new FakeStore();
    store.failure = failure;
    const batcher = batcherOn(store);
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, i) => settle(batcher.submit(operation(`op-${i}`)))),
    );

    expect(answers.every((answer) => answer === failure)).toBe(true);
    expect(store.commits).toBe(1);
  });
});

describe('the commit queue under overload', () => {
  it('refuses busy, without applying, once the oldest waiting operation is past the target', async () => {
    const store = new FakeStore();
    let release: () => void = () => undefined;
    store.gate = new Promise((resolve) => {
      release = resolve;
    });
    const batcher = batcherOn(store, { targetMs: 20, maxQueued: 1_000, minQueued: 3 });
    const first = ['first-0', 'first-1', 'first-2'].map((id) => batcher.submit(operation(id)));
    await new Promise((resolve) => setTimeout(resolve, 60));

    expect(batcher.overloaded).toBe(true);
    const refused = await settle(batcher.submit(operation('refused')));
    expect(refused).toBeInstanceOf(DomainError);
    expect((refused as DomainError).code).toBe('busy');
    // Over REST: 503 with Retry-After, which clients retry.
    expect(restAnswerOf(refused as DomainError)).toMatchObject({
      status: 503,
      retryAfterSeconds: 1,
    });

    release();
    await Promise.all(first);
    await batcher.drain();
    expect(store.committed).toEqual(['first-0', 'first-1', 'first-2']);
    // Drained: the same operation, retried, is admitted and applied once.
    store.gate = null;
    await batcher.submit(operation('refused'));
    expect(store.committed).toEqual(['first-0', 'first-1', 'first-2', 'refused']);
  });

  it('past its target refuses the client holding more than its share, and admits the others', async () => {
    const store = new FakeStore();
    let release: () => void = () => undefined;
    store.gate = new Promise((resolve) => {
      release = resolve;
    });
    const batcher = batcherOn(store, { targetMs: 20, maxQueued: 10_000, minQueued: 3 });
    const onGroup = (groupId: string, opId: string): Operation => ({ ...operation(opId), groupId });
    // The greedy address's first tap is committing (held); the rest of its flood waits.
    const first = batcher.submit(onGroup('own', 'greedy-first'), '10.0.0.66');
    await new Promise((resolve) => setImmediate(resolve));
    const flood = Array.from({ length: 600 }, (_v, i) =>
      batcher.submit(onGroup('own', `greedy-${String(i)}`), '10.0.0.66'),
    );
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(batcher.overloaded).toBe(true);
    const refused = await settle(batcher.submit(onGroup('own', 'greedy-more'), '10.0.0.66'));
    expect((refused as DomainError).code).toBe('busy');
    expect(batcher.overloadedFor('10.0.0.7')).toBe(false);
    const member = batcher.submit(onGroup('other', 'member-tap'), '10.0.0.7');
    release();
    store.gate = null;
    await Promise.all([first, ...flood, member]);
    // The member's tap went with the next batch, not after the flood.
    const at = store.committed.indexOf('member-tap');
    expect(at).toBeGreaterThan(0);
    expect(at).toBeLessThanOrEqual(1 + CONTENDED_CLIENT_SHARE);
    expect(store.committed).toHaveLength(602);
  });

  it('does not refuse a few late operations: a descheduled process is not an overload', async () => {
    const store = new FakeStore();
    let release: () => void = () => undefined;
    store.gate = new Promise((resolve) => {
      release = resolve;
    });
    const batcher = batcherOn(store, { targetMs: 20, maxQueued: 1_000, minQueued: 3 });
    const first = batcher.submit(operation('first'));
    await new Promise((resolve) => setTimeout(resolve, 60));

    expect(batcher.overloaded).toBe(false);
    const second = batcher.submit(operation('second'));
    release();
    await Promise.all([first, second]);
    expect(store.committed).toEqual(['first', 'second']);
  });

  it('refuses busy past its length limit and commits everything it admitted', async () => {
    const store = new FakeStore();
    const batcher = batcherOn(store, { targetMs: 60_000, maxQueued: 10, minQueued: 1 });
    const answers = Array.from({ length: 15 }, (_, i) =>
      settle(batcher.submit(operation(`op-${i}`))),
    );
    const settled = await Promise.all(answers);

    expect(settled.slice(0, 10).every((answer) => answer === 'ok')).toBe(true);
    expect(
      settled.slice(10).every((answer) => answer instanceof DomainError && answer.code === 'busy'),
    ).toBe(true);
    expect(store.committed).toEqual(Array.from({ length: 10 }, (_, i) => `op-${i}`));
  });

  it('tells its listeners when a flush leaves it under the target', async () => {
    const store = new FakeStore();
    const batcher = batcherOn(store);
    let drained = 0;
    const stop = batcher.onDrained(() => {
      drained += 1;
    });
    await batcher.submit(operation('a'));
    await batcher.drain();
    expect(drained).toBe(1);
    stop();
    await batcher.submit(operation('b'));
    await batcher.drain();
    expect(drained).toBe(1);
  });
});

describe('commit lanes (PostgreSQL)', () => {
  /** A store that records how many commits run at once and what each held. */
  class ConcurrentStore {
    running = 0;
    mostAtOnce = 0;
    batches: string[][] = [];
    private readonly waiting: (() => void)[] = [];

    async commit(operations: readonly Operation[]): Promise<OperationOutcome[]> {
      this.running += 1;
      this.mostAtOnce = Math.max(this.mostAtOnce, this.running);
      this.batches.push(operations.map((op) => `${op.groupId}:${op.opId ?? ''}`));
      await new Promise<void>((resolve) => this.waiting.push(resolve));
      this.running -= 1;
      return operations.map(() => ({
        ok: true,
        result: {} as MutationResult,
        changes: [],
        replayed: false,
      }));
    }

    /** Lets every commit under way finish. */
    release(): void {
      for (const resolve of this.waiting.splice(0)) resolve();
    }
  }

  const on = (groupId: string, opId: string): Operation => ({ ...operation(opId), groupId });

  it('commits groups of different lanes at once, and one group one batch at a time, in order', async () => {
    const store = new ConcurrentStore();
    const batcher = new Batcher({
      store: store as unknown as Store,
      bus: new MemoryBus(),
      lanes: 2,
    });
    // Group ids that fall in different lanes of two (FNV-1a of the id).
    const groups = ['group-a', 'group-b', 'group-c', 'group-d'];
    const results: Promise<unknown>[] = [];
    for (const groupId of groups) results.push(batcher.submit(on(groupId, `${groupId}-1`)));
    await new Promise((resolve) => setImmediate(resolve));
    for (const groupId of groups) results.push(batcher.submit(on(groupId, `${groupId}-2`)));
    while (store.running > 0 || results.length > 0) {
      await new Promise((resolve) => setImmediate(resolve));
      store.release();
      if (store.running === 0) {
        await Promise.all(results.splice(0));
      }
    }
    expect(store.mostAtOnce).toBe(2);
    for (const groupId of groups) {
      const order = store.batches.flat().filter((entry) => entry.startsWith(`${groupId}:`));
      expect(order).toEqual([`${groupId}:${groupId}-1`, `${groupId}:${groupId}-2`]);
      // A group's second operation never commits beside its first.
      for (const batch of store.batches) {
        expect(batch.filter((entry) => entry.startsWith(`${groupId}:`)).length).toBeLessThan(2);
      }
    }
  });
});

describe('what the batcher tells its observer (metrics)', () => {
  it('each committed batch once, with its operations, outcomes and a duration', async () => {
    const store = new FakeStore();
    const observer = new RecordingObserver();
    const batcher = batcherOn(store, undefined, observer);
    await Promise.all(['a', 'b', 'c'].map((id) => batcher.submit(operation(id))));
    await batcher.submit(operation('d'));

    expect(observer.committedBatches).toEqual([['a', 'b', 'c'], ['d']]);
    for (const ms of observer.durations) expect(ms).toBeGreaterThanOrEqual(0);
    expect(observer.failedCommits).toEqual([]);
    expect(observer.notAppliedOperations).toEqual([]);
  });

  it('every failed commit, and each operation answered without being applied', async () => {
    const store = new FakeStore();
    const observer = new RecordingObserver();
    const batcher = batcherOn(store, undefined, observer);
    const ids = ['op-0', 'op-1', `${POISON}-2`, 'op-3'];
    await Promise.all(ids.map((id) => settle(batcher.submit(operation(id)))));

    // All four fail, then [op-0, op-1] commits, [poison, op-3] fails, then each alone.
    expect(observer.failedCommits).toHaveLength(3);
    expect(observer.committedBatches).toEqual([['op-0', 'op-1'], ['op-3']]);
    expect(observer.notAppliedOperations).toEqual([`${POISON}-2: other`]);

    store.failure = new StorageUnavailableError('file replaced');
    await Promise.all(['x', 'y'].map((id) => settle(batcher.submit(operation(id)))));
    expect(observer.failedCommits.slice(3)).toEqual([store.failure]);
    expect(observer.notAppliedOperations.slice(1)).toEqual([
      'x: storage_unavailable',
      'y: storage_unavailable',
    ]);
  });

  it('operations refused busy at admission', async () => {
    const store = new FakeStore();
    const observer = new RecordingObserver();
    const batcher = batcherOn(store, { targetMs: 60_000, maxQueued: 2, minQueued: 1 }, observer);
    await Promise.all(['a', 'b', 'c'].map((id) => settle(batcher.submit(operation(id)))));

    expect(observer.notAppliedOperations).toEqual(['c: busy']);
    expect(observer.committedBatches).toEqual([['a', 'b']]);
  });
});

describe('adaptive batching (linger, ADR 20)', () => {
  const LINGER = { maxMs: 2, minExpected: 4 };
  const FAKE_CLOCKS: Parameters<typeof vi.useFakeTimers>[0] = {
    toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'performance'],
  };

  function lingering(store: FakeStore, linger?: LingerPolicy, observer?: CommitObserver): Batcher {
    return new Batcher({
      store: store as unknown as Store,
      bus: new MemoryBus(),
      lanes: 1,
      observer,
      linger,
    });
  }

  /** Submits `perStep` operations every `stepMs` for `steps` steps on fake clocks. */
  async function steadyLoad(
    linger: LingerPolicy | undefined,
    perStep: number,
    stepMs: number,
    steps: number,
  ): Promise<{ batches: string[][]; waits: number[] }> {
    vi.useFakeTimers(FAKE_CLOCKS);
    try {
      const store = new FakeStore();
      const observer = new RecordingObserver();
      const batcher = lingering(store, linger, observer);
      const submittedAt = new Map<string, number>();
      const waits: number[] = [];
      const answers: Promise<unknown>[] = [];
      for (let step = 0; step < steps; step += 1) {
        for (let i = 0; i < perStep; i += 1) {
          const id = `op-${step}-${i}`;
          submittedAt.set(id, performance.now());
          answers.push(
            batcher.submit(operation(id)).then(() => {
              waits.push(performance.now() - (submittedAt.get(id) ?? 0));
            }),
          );
        }
        await vi.advanceTimersByTimeAsync(stepMs);
      }
      await vi.advanceTimersByTimeAsync(10);
      await Promise.all(answers);
      expect(store.committed).toHaveLength(perStep * steps);
      return { batches: observer.committedBatches, waits };
    } finally {
      vi.useRealTimers();
    }
  }

  const mean = (batches: string[][]) =>
    batches.reduce((sum, batch) => sum + batch.length, 0) / batches.length;

  it('gathers a steady stream into larger batches, no operation waiting past the bound', async () => {
    // 4 operations per ms: about 8 are expected within 2 ms.
    const without = await steadyLoad(undefined, 2, 0.5, 400);
    const withLinger = await steadyLoad(LINGER, 2, 0.5, 400);
    expect(mean(without.batches)).toBeLessThanOrEqual(2);
    expect(mean(withLinger.batches)).toBeGreaterThanOrEqual(6);
    expect(withLinger.batches.length).toBeLessThan(without.batches.length / 3);
    expect(Math.max(...withLinger.waits)).toBeLessThanOrEqual(LINGER.maxMs + 1);
  });

  it('commits at once when the stream is too thin to fill a batch in time', async () => {
    // One operation every 2 ms: fewer than 4 expected within 2 ms, so nothing waits.
    const thin = await steadyLoad(LINGER, 1, 2, 100);
    expect(mean(thin.batches)).toBe(1);
    expect(Math.max(...thin.waits)).toBeLessThan(1);
  });

  it('after a silence, the first operation commits at once', async () => {
    vi.useFakeTimers(FAKE_CLOCKS);
    try {
      const store = new FakeStore();
      const batcher = lingering(store, LINGER);
      // A busy spell: 8 operations a ms for 100 ms.
      for (let step = 0; step < 200; step += 1) {
        for (let i = 0; i < 4; i += 1) void batcher.submit(operation(`busy-${step}-${i}`));
        await vi.advanceTimersByTimeAsync(0.5);
      }
      await vi.advanceTimersByTimeAsync(1_000);
      const before = store.commits;
      let answered = false;
      void batcher.submit(operation('after')).then(() => {
        answered = true;
      });
      await vi.advanceTimersByTimeAsync(0);
      expect(answered).toBe(true);
      expect(store.commits).toBe(before + 1);
    } finally {
      vi.useRealTimers();
    }
  });
});
