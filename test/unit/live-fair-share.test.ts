/**
 * Each address's share of the live channel's taps: while the event loop is behind, an address
 * far above its equal part is refused and the others are not; a server that keeps up refuses
 * nobody; many addresses tapping alike are never refused.
 */
import { describe, expect, it } from 'vitest';
import { LiveFairShare } from '../../src/server/live/fair-share.js';

function shareAt(start = 1_000) {
  let now = start;
  const share = new LiveFairShare({ now: () => now, sample: false });
  return {
    share,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

/** Taps from `address`, `count` of them; how many were refused. */
function tap(share: LiveFairShare, address: string, count: number): number {
  let refused = 0;
  for (let i = 0; i < count; i++) if (share.overShare(address)) refused += 1;
  return refused;
}

describe('each address’s share of the live taps', () => {
  it('refuses nobody while the event loop keeps up, however much one address sends', () => {
    const { share } = shareAt();
    expect(tap(share, '10.0.0.66', 10_000)).toBe(0);
    expect(tap(share, '10.0.0.7', 5)).toBe(0);
  });

  it('while the loop is behind, refuses the flooding address and lets a member through', () => {
    const { share, advance } = shareAt();
    tap(share, '10.0.0.7', 3);
    tap(share, '10.0.0.66', 2_000);
    share.markBehind();
    advance(10);
    // Held: of what it sends now, at most a quarter of its recent taps gets through.
    const refused = tap(share, '10.0.0.66', 2_000);
    expect(refused).toBeGreaterThanOrEqual(1_500);
    expect(tap(share, '10.0.0.7', 3)).toBe(0);
  });

  it('lets a held address through less while the loop stays behind, and more once it keeps up', () => {
    const { share, advance } = shareAt();
    tap(share, '10.0.0.7', 3);
    tap(share, '10.0.0.66', 2_000);
    share.markBehind();
    const passedPerWindow: number[] = [];
    for (let window = 0; window < 6; window++) {
      if (window < 3) share.markBehind();
      passedPerWindow.push(2_000 - tap(share, '10.0.0.66', 2_000));
      advance(500);
    }
    expect(passedPerWindow[1]).toBeLessThan(passedPerWindow[0] ?? 0);
    expect(passedPerWindow[2]).toBeLessThan(passedPerWindow[1] ?? 0);
    expect(passedPerWindow[5]).toBeGreaterThan(passedPerWindow[3] ?? 0);
  });

  it('never refuses many addresses that tap alike, even while the loop is behind', () => {
    const { share, advance } = shareAt();
    share.markBehind();
    let refused = 0;
    for (let round = 0; round < 40; round++) {
      for (let address = 0; address < 50; address++) {
        refused += tap(share, `10.0.1.${String(address)}`, 5);
      }
      advance(20);
      share.markBehind();
    }
    expect(refused).toBe(0);
  });

  it('forgets a flood once the loop has caught up', () => {
    const { share, advance } = shareAt();
    tap(share, '10.0.0.7', 3);
    share.markBehind();
    expect(tap(share, '10.0.0.66', 2_000)).toBeGreaterThan(0);
    advance(600);
    expect(tap(share, '10.0.0.66', 100)).toBe(0);
  });
});
