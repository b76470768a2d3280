/**
 * The live hub's heartbeat (live/heartbeat.ts): every member is beaten once per interval, but
 * one tick beats only its slot, so thousands of sockets are never pinged in one turn.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SpreadHeartbeat } from '../../src/server/live/heartbeat.js';

const INTERVAL_MS = 30_000;
const SLICES = 30;

describe('the spread heartbeat', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('beats each member once per interval, and about 1/slices of them per tick', () => {
    const beats = new Map<number, number>();
    const perTick: number[] = [];
    let thisTick = 0;
    const heartbeat = new SpreadHeartbeat<number>(
      INTERVAL_MS,
      (member) => {
        beats.set(member, (beats.get(member) ?? 0) + 1);
        thisTick += 1;
      },
      SLICES,
    );
    for (let member = 0; member < 3_000; member += 1) heartbeat.add(member);
    for (let tick = 0; tick < SLICES * 2; tick += 1) {
      thisTick = 0;
      vi.advanceTimersByTime(INTERVAL_MS / SLICES);
      perTick.push(thisTick);
    }
    heartbeat.stop();
    expect(new Set(beats.values())).toEqual(new Set([2])); // two intervals, two beats each
    expect(beats.size).toBe(3_000);
    expect(Math.max(...perTick)).toBe(3_000 / SLICES);
  });

  it('stops beating a member once it is deleted, even from inside its own beat', () => {
    const beaten: string[] = [];
    const heartbeat = new SpreadHeartbeat<string>(
      INTERVAL_MS,
      (member) => {
        beaten.push(member);
        heartbeat.delete(member); // as the hub forgets a socket that missed its pong
      },
      SLICES,
    );
    heartbeat.add('a');
    heartbeat.add('b');
    heartbeat.add('a'); // already there: still one slot, one beat
    vi.advanceTimersByTime(INTERVAL_MS * 2);
    heartbeat.stop();
    expect(beaten.sort()).toEqual(['a', 'b']);
    expect(heartbeat.size).toBe(0);
  });

  it('beats nothing after stop', () => {
    const beat = vi.fn();
    const heartbeat = new SpreadHeartbeat<number>(INTERVAL_MS, beat, SLICES);
    heartbeat.add(1);
    heartbeat.stop();
    vi.advanceTimersByTime(INTERVAL_MS * 2);
    expect(beat).not.toHaveBeenCalled();
  });
});
