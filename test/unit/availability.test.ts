/**
 * The store's availability (store/postgres/availability.ts): a lost connection makes it unavailable at
 * once and tells its listeners; a probe then runs with a short, capped backoff until one commits,
 * and only then is it available again.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  Availability,
  PROBE_MAX_MS,
  PROBE_MIN_MS,
} from '../../src/server/store/postgres/availability.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('store availability', () => {
  it('is lost at once, probed with a capped backoff, and back only once a probe commits', async () => {
    let failures = 5;
    const probe = vi.fn(() =>
      failures-- > 0 ? Promise.reject(new Error('down')) : Promise.resolve(),
    );
    const availability = new Availability(probe);
    const told: boolean[] = [];
    availability.onChange((saving) => told.push(saving));
    expect(availability.saving).toBe(true);

    availability.lost(new Error('connection terminated'));
    availability.lost(new Error('another statement failed alike'));
    expect(availability.saving).toBe(false);
    expect(told).toEqual([false]);

    // 100, 200, 400, then capped at 500 ms between probes.
    const delays = [PROBE_MIN_MS, 200, 400, PROBE_MAX_MS, PROBE_MAX_MS, PROBE_MAX_MS];
    for (const [index, delay] of delays.entries()) {
      await vi.advanceTimersByTimeAsync(delay - 1);
      expect(probe).toHaveBeenCalledTimes(index);
      await vi.advanceTimersByTimeAsync(1);
      expect(probe).toHaveBeenCalledTimes(index + 1);
    }
    expect(availability.saving).toBe(true);
    expect(told).toEqual([false, true]);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(probe).toHaveBeenCalledTimes(6);
  });

  it('stops probing when closed', async () => {
    const probe = vi.fn(() => Promise.reject(new Error('down')));
    const availability = new Availability(probe);
    availability.lost(new Error('gone'));
    availability.close();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(probe).not.toHaveBeenCalled();
  });
});
