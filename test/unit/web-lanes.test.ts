/**
 * The web client's operation lanes (src/web/live/lanes.ts): per-counter FIFO with one request in
 * flight, taps coalesced while one is in flight, retries with backoff on the injected clock, and
 * refusals reported. `send` is a fake whose answers the tests give one by one.
 */
import { describe, expect, it } from 'vitest';
import type { Counter } from '../../src/shared/api.js';
import { ApiRequestError } from '../../src/web/lib/api.js';
import {
  Lanes,
  MAX_SERVER_RETRIES,
  RETRY_BASE_MS,
  type LaneClock,
  type LaneHandlers,
} from '../../src/web/live/lanes.js';
import type { Op, OpResult, StoredOp } from '../../src/web/live/ops.js';

/** Timers that run only when the test says so. */
class ManualClock implements LaneClock {
  readonly timers = new Map<number, { callback: () => void; ms: number }>();
  private next = 1;
  setTimeout(callback: () => void, ms: number): number {
    const handle = this.next++;
    this.timers.set(handle, { callback, ms });
    return handle;
  }
  clearTimeout(handle: number): void {
    this.timers.delete(handle);
  }
  random(): number {
    return 0.5;
  }
  /** The delays of the timers waiting now, ms. */
  delays(): number[] {
    return [...this.timers.values()].map((timer) => timer.ms);
  }
  fireAll(): void {
    const due = [...this.timers.values()];
    this.timers.clear();
    for (const timer of due) timer.callback();
  }
}

interface Request {
  /** A copy of the operation as it was sent (the lanes keep mutating their own until sent). */
  sent: Op;
  /** Answered or failed already. */
  settled: boolean;
  answer(result?: OpResult): Promise<void>;
  fail(error: Error): Promise<void>;
}

/** Lets the lanes react to an answer (promise callbacks run on the microtask queue). */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

function setup() {
  const clock = new ManualClock();
  const requests: Request[] = [];
  const events: string[] = [];
  /** The operations the store was asked to complete before their first send. */
  const prepared: string[] = [];
  let ids = 0;
  const handlers: LaneHandlers = {
    send: (op) =>
      new Promise<OpResult>((resolve, reject) => {
        const request: Request = {
          sent: structuredClone(op),
          settled: false,
          answer: async (result) => {
            request.settled = true;
            resolve(result);
            await settle();
          },
          fail: async (error) => {
            request.settled = true;
            reject(error);
            await settle();
          },
        };
        requests.push(request);
      }),
    newOpId: () => `op-${String(++ids)}`,
    answered: (op, _result, wasPending) => {
      events.push(`answered ${op.opId}${wasPending ? '' : ' (already confirmed)'}`);
    },
    failed: (op, error) => {
      events.push(`failed ${op.opId}: ${error instanceof Error ? error.message : String(error)}`);
    },
    halted: (op) => {
      events.push(`halted ${op.opId}`);
    },
    prepare: (op) => {
      prepared.push(op.opId);
    },
  };
  /** The requests waiting for their answer, oldest first. */
  const inFlight = () => requests.filter((request) => !request.settled);
  return {
    lanes: new Lanes(handlers, clock),
    clock,
    events,
    prepared,
    requests,
    inFlight,
    /** The oldest request still waiting for its answer. */
    next: (): Request => {
      const request = inFlight()[0];
      if (!request) throw new Error('no request in flight');
      return request;
    },
  };
}

const tap = (counterId: string, direction: 'increment' | 'decrement' = 'increment') =>
  ({
    kind: 'adjust',
    counterId,
    direction,
    times: 1,
    delta: direction === 'increment' ? 1 : -1,
    name: counterId,
  }) as const;
const rename = (counterId: string, name: string) =>
  ({ kind: 'patch', counterId, patch: { name } }) as const;
const offline = () => new ApiRequestError(0, { code: 'network_error', message: 'Failed to fetch' });
const busy = (retryAfterMs = 0) =>
  new ApiRequestError(503, { code: 'busy', message: 'Busy' }, retryAfterMs);

describe('per-counter FIFO', () => {
  it('sends one request per counter at a time, in the order the changes were made', async () => {
    const { lanes, next, inFlight } = setup();
    lanes.enqueue(rename('c1', 'Teas'));
    lanes.enqueue(rename('c1', 'Coffees'));
    lanes.enqueue(rename('c2', 'Laps'));

    // c2's lane does not wait for c1's.
    expect(inFlight().map((request) => request.sent)).toMatchObject([
      { counterId: 'c1', patch: { name: 'Teas' } },
      { counterId: 'c2', patch: { name: 'Laps' } },
    ]);
    await next().answer();
    expect(inFlight().map((request) => request.sent)).toMatchObject([
      { counterId: 'c2' },
      { counterId: 'c1', patch: { name: 'Coffees' } },
    ]);
  });

  it('keeps a counter’s operations queued until answered, and reports each answer', async () => {
    const { lanes, next, events } = setup();
    lanes.enqueue(rename('c1', 'Teas'));
    lanes.enqueue({ kind: 'delete', counterId: 'c1', name: 'Teas' });
    expect(lanes.opsOf('c1').map((op) => op.kind)).toEqual(['patch', 'delete']);
    expect(lanes.pending()).toEqual({ count: 2, counters: new Set(['c1']) });

    await next().answer();
    expect(lanes.opsOf('c1').map((op) => op.kind)).toEqual(['delete']);
    await next().answer();
    expect(lanes.opsOf('c1')).toEqual([]);
    expect(events).toEqual(['answered op-1', 'answered op-2']);
    expect(lanes.pending().count).toBe(0);
  });

  it('gives the group’s changes and new counters lanes of their own', () => {
    const { lanes, inFlight } = setup();
    lanes.enqueue({ kind: 'create' });
    lanes.enqueue({ kind: 'group', patch: { displayName: 'Team' } });
    lanes.enqueue({ kind: 'create' });
    expect(inFlight().map((request) => request.sent.kind)).toEqual(['create', 'group']);
    expect(lanes.pending()).toEqual({ count: 3, counters: new Set() });
  });
});

describe('coalescing taps', () => {
  it('merges taps made while one is in flight into the next request', async () => {
    const { lanes, next, requests } = setup();
    lanes.enqueue(tap('c1'));
    lanes.enqueue(tap('c1'));
    lanes.enqueue(tap('c1'));
    lanes.enqueue(tap('c1'));
    expect(requests).toHaveLength(1);
    expect(lanes.pending().count).toBe(4);

    await next().answer();
    expect(requests).toHaveLength(2);
    expect(requests[1]?.sent).toMatchObject({ kind: 'adjust', times: 3, delta: 3, opId: 'op-2' });
  });

  it('does not merge taps in the other direction or across an edit', () => {
    const { lanes } = setup();
    lanes.enqueue(tap('c1'));
    lanes.enqueue(tap('c1'));
    lanes.enqueue(tap('c1', 'decrement'));
    lanes.enqueue(rename('c1', 'Teas'));
    lanes.enqueue(tap('c1'));
    expect(lanes.opsOf('c1').map((op) => [op.kind, op.kind === 'adjust' ? op.times : 0])).toEqual([
      ['adjust', 1],
      ['adjust', 1],
      ['adjust', 1],
      ['patch', 0],
      ['adjust', 1],
    ]);
  });

  it('never changes a request once sent, so a resend is the same request', async () => {
    const { lanes, next, clock, requests } = setup();
    lanes.enqueue(tap('c1'));
    await next().fail(offline());
    lanes.enqueue(tap('c1'));
    clock.fireAll();
    expect(requests[1]?.sent).toMatchObject({ opId: 'op-1', times: 1 });
    expect(lanes.opsOf('c1').map((op) => op.opId)).toEqual(['op-1', 'op-2']);
  });
});

describe('retries', () => {
  it('sends the same operation again after a lost answer, on the injected clock', async () => {
    const { lanes, next, clock, requests, events } = setup();
    lanes.enqueue(rename('c1', 'Teas'));
    await next().fail(offline());

    expect(events).toEqual([]);
    expect(requests).toHaveLength(1);
    // First retry: half the base delay plus up to half again (random() is 0.5 here).
    expect(clock.delays()).toEqual([RETRY_BASE_MS * 0.75]);

    clock.fireAll();
    expect(requests).toHaveLength(2);
    expect(requests[1]?.sent.opId).toBe(requests[0]?.sent.opId);
    await next().answer();
    expect(events).toEqual(['answered op-1']);
  });

  it('doubles the delay after each failure', async () => {
    const { lanes, next, clock } = setup();
    lanes.enqueue(rename('c1', 'Teas'));
    const delays: number[] = [];
    for (let attempt = 0; attempt < 3; attempt += 1) {
      await next().fail(offline());
      delays.push(...clock.delays());
      clock.fireAll();
    }
    expect(delays).toEqual([375, 750, 1500]);
  });

  it('waits at least as long as a busy server’s Retry-After', async () => {
    const { lanes, next, clock } = setup();
    lanes.enqueue(rename('c1', 'Teas'));
    await next().fail(busy(4_000));
    expect(clock.delays()).toEqual([5_000]);
  });

  it('retries at once when told the server is reachable again', async () => {
    const { lanes, next, clock, requests } = setup();
    lanes.enqueue(rename('c1', 'Teas'));
    await next().fail(offline());
    lanes.retryNow();
    expect(clock.timers.size).toBe(0);
    expect(requests).toHaveLength(2);
  });

  it('gives up on a busy server after its retries and reports the failure', async () => {
    const { lanes, next, clock, events } = setup();
    lanes.enqueue(rename('c1', 'Teas'));
    for (let attempt = 0; attempt < MAX_SERVER_RETRIES; attempt += 1) {
      await next().fail(busy());
      clock.fireAll();
    }
    expect(events).toEqual([]);
    await next().fail(busy());
    expect(events).toEqual(['failed op-1: Busy']);
    expect(lanes.pending().count).toBe(0);
  });

  it('keeps retrying, and keeps the change, while the server cannot save', async () => {
    const { lanes, next, clock, events } = setup();
    lanes.enqueue(rename('c1', 'Teas'));
    const unavailable = new ApiRequestError(503, {
      code: 'storage_unavailable',
      message: 'Cannot save',
    });
    for (let attempt = 0; attempt < 3 * MAX_SERVER_RETRIES; attempt += 1) {
      await next().fail(unavailable);
      clock.fireAll();
    }
    expect(events).toEqual([]);
    expect(lanes.pending().count).toBe(1);
  });
});

describe('failures', () => {
  it('reports a refused operation as an error, drops it, and sends the next one', async () => {
    const { lanes, next, events, requests, clock } = setup();
    lanes.enqueue(rename('c1', 'Teas'));
    lanes.enqueue(rename('c1', 'Coffees'));
    await next().fail(
      new ApiRequestError(400, { code: 'validation_failed', message: 'Name too long' }),
    );

    expect(events).toEqual(['failed op-1: Name too long']);
    expect(clock.timers.size).toBe(0);
    expect(lanes.opsOf('c1').map((op) => op.opId)).toEqual(['op-2']);
    expect(requests[1]?.sent).toMatchObject({ patch: { name: 'Coffees' } });
  });

  it('stops a lane, keeping its operations, when the group’s key was replaced', async () => {
    const { lanes, next, events, requests, clock } = setup();
    lanes.enqueue(rename('c1', 'Teas'));
    lanes.enqueue(rename('c1', 'Coffees'));
    await next().fail(new ApiRequestError(403, { code: 'wrong_key', message: 'Wrong key' }));

    expect(events).toEqual(['halted op-1']);
    expect(requests).toHaveLength(1);
    expect(clock.timers.size).toBe(0);
    expect(lanes.pendingOps().map((op) => op.opId)).toEqual(['op-1', 'op-2']);
  });

  it('drops a failure quietly when a live change confirmed the operation meanwhile', async () => {
    const { lanes, next, events, clock } = setup();
    lanes.enqueue(rename('c1', 'Teas'));
    expect(lanes.retire('op-1')).toBe(true);
    await next().fail(offline());
    expect(events).toEqual([]);
    expect(clock.timers.size).toBe(0);
  });
});

describe('limits', () => {
  const limit = () =>
    new ApiRequestError(409, {
      code: 'limit_reached',
      message: 'Limit reached: this counter cannot go above 10.',
    });

  it('drops taps the server refused at a limit at once, without a retry, and keeps nothing', async () => {
    const { lanes, next, events, clock, requests } = setup();
    lanes.enqueue(tap('c1'));
    lanes.enqueue(tap('c1'));
    lanes.enqueue(tap('c1'));
    await next().answer();
    // The two taps coalesced while the first was in flight are refused whole.
    expect(requests[1]?.sent).toMatchObject({ times: 2 });
    await next().fail(limit());
    expect(events).toEqual([
      'answered op-1',
      'failed op-2: Limit reached: this counter cannot go above 10.',
    ]);
    expect(clock.timers.size).toBe(0);
    expect(lanes.pending().count).toBe(0);
    expect(lanes.pendingOps()).toEqual([]);
    expect(requests).toHaveLength(2);
  });

  it('does not retry an undo the server cannot apply either', async () => {
    const { lanes, next, events, clock } = setup();
    lanes.enqueue(rename('c1', 'Teas'));
    await next().fail(
      new ApiRequestError(409, {
        code: 'cannot_undo',
        message: 'An automatic reset cannot be undone.',
      }),
    );
    expect(events.at(-1)).toBe('failed op-1: An automatic reset cannot be undone.');
    expect(clock.timers.size).toBe(0);
  });
});

describe('reorders and sections', () => {
  it('gives reorders a lane of their own and sends section maximums in the group’s lane', () => {
    const { lanes, inFlight } = setup();
    lanes.enqueue({ kind: 'group', patch: { displayName: 'Team' } });
    lanes.enqueue({ kind: 'section', section: 'Hall', max: 250 });
    lanes.enqueue({ kind: 'reorder', counterIds: ['b', 'a'] });
    expect(inFlight().map((request) => request.sent.kind)).toEqual(['group', 'reorder']);
    expect(lanes.opsOf('#group').map((op) => op.kind)).toEqual(['group', 'section']);
    expect(lanes.pending()).toEqual({ count: 3, counters: new Set() });
  });

  it('keeps only the latest of the reorders made while one is in flight', async () => {
    const { lanes, next, requests } = setup();
    expect(lanes.enqueue({ kind: 'reorder', counterIds: ['b', 'a', 'c'] })).toBe('op-1');
    expect(lanes.enqueue({ kind: 'reorder', counterIds: ['c', 'b', 'a'] })).toBe('op-2');
    expect(lanes.enqueue({ kind: 'reorder', counterIds: ['a', 'c', 'b'] })).toBe('op-2');
    expect(lanes.pending().count).toBe(2);
    await next().answer({ counterIds: ['b', 'a', 'c'] });
    expect(requests).toHaveLength(2);
    expect(requests[1]?.sent).toMatchObject({ kind: 'reorder', counterIds: ['a', 'c', 'b'] });
  });

  it('lets the store complete an operation right before its first send, never before a resend', async () => {
    const { lanes, next, clock, prepared } = setup();
    lanes.enqueue({ kind: 'reorder', counterIds: ['b', 'a'] });
    await next().fail(offline());
    clock.fireAll();
    expect(prepared).toEqual(['op-1']);
    // Kept from before: it may have reached the server, so it goes as it is.
    lanes.restore([{ kind: 'reorder', opId: 'kept', counterIds: ['a', 'b'] }]);
    await next().answer();
    await next().answer();
    expect(prepared).toEqual(['op-1']);
  });
});

describe('confirmation by the live channel', () => {
  it('retires an operation by its id, and says so when its own answer comes after', async () => {
    const { lanes, next, events } = setup();
    lanes.enqueue(tap('c1'));
    expect(lanes.retire('op-1')).toBe(true);
    expect(lanes.pending().count).toBe(0);
    expect(lanes.retire('op-1')).toBe(false);
    await next().answer({ id: 'c1' } as Counter);
    expect(events).toEqual(['answered op-1 (already confirmed)']);
  });

  it('is settled only once a change confirmed by the live channel also has its answer', async () => {
    const { lanes, next } = setup();
    expect(lanes.settled()).toBe(true);
    lanes.enqueue(tap('c1'));
    expect(lanes.settled()).toBe(false);
    lanes.retire('op-1'); // its change arrived first: nothing is pending any more
    expect(lanes.pending().count).toBe(0);
    expect(lanes.settled()).toBe(false); // but the answer is still due
    await next().answer({ id: 'c1' } as Counter);
    expect(lanes.settled()).toBe(true);
  });

  it('forgets a dropped counter’s operations', async () => {
    const { lanes, next, clock } = setup();
    lanes.enqueue(rename('c1', 'Teas'));
    await next().fail(offline());
    lanes.enqueue(tap('c1'));
    lanes.drop('c1');
    expect(lanes.pendingOps()).toEqual([]);
    expect(clock.timers.size).toBe(0);
    expect(lanes.counterIds()).toEqual([]);
  });

  it('changes a counter’s revision whenever its queue changes, and the outbox revision too', () => {
    const { lanes } = setup();
    const counter = lanes.revisionOf('c1');
    const outbox = lanes.revision;
    lanes.enqueue(tap('c1'));
    expect(lanes.revisionOf('c1')).toBeGreaterThan(counter);
    expect(lanes.revision).toBeGreaterThan(outbox);
    const afterTap = lanes.revisionOf('c1');
    lanes.retire('op-1');
    expect(lanes.revisionOf('c1')).toBeGreaterThan(afterTap);
  });
});

describe('operations kept from before (the outbox)', () => {
  const kept: StoredOp[] = [
    { kind: 'adjust', opId: 'old-1', counterId: 'c1', direction: 'increment', times: 2, delta: 2 },
    { kind: 'create', opId: 'old-2' },
  ];

  it('sends them first, as they were, and never merges new taps into them', () => {
    const { lanes, requests } = setup();
    lanes.restore(kept);
    lanes.enqueue(tap('c1'));
    expect(requests.map((request) => request.sent.opId)).toEqual(['old-1', 'old-2']);
    expect(lanes.opsOf('c1').map((op) => [op.opId, op.kind === 'adjust' && op.times])).toEqual([
      ['old-1', 2],
      ['op-1', 1],
    ]);
  });

  it('queues them behind the request in flight, ahead of everything else', () => {
    const { lanes } = setup();
    lanes.enqueue(rename('c1', 'Teas'));
    lanes.enqueue(rename('c1', 'Coffees'));
    lanes.restore(kept);
    expect(lanes.opsOf('c1').map((op) => op.opId)).toEqual(['op-1', 'old-1', 'op-2']);
  });

  it('skips the ones already queued', () => {
    const { lanes } = setup();
    lanes.restore(kept);
    lanes.restore(kept);
    expect(lanes.pendingOps().map((op) => op.opId)).toEqual(['old-1', 'old-2']);
  });

  it('keeps them for the outbox without the in-memory flag', () => {
    const { lanes } = setup();
    lanes.restore(kept);
    for (const op of lanes.pendingOps()) expect(op).not.toHaveProperty('sent');
    expect(lanes.pending().count).toBe(3);
  });
});

describe('after dispose', () => {
  it('ignores answers and sends nothing more', async () => {
    const { lanes, next, events, requests } = setup();
    lanes.enqueue(rename('c1', 'Teas'));
    lanes.enqueue(rename('c1', 'Coffees'));
    lanes.dispose();
    await next().answer();
    expect(events).toEqual([]);
    expect(requests).toHaveLength(1);
  });
});
