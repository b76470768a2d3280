/**
 * How full a counter with a maximum is (docs/product.md#limits): room left, nearly full from
 * NEAR_LIMIT_RATIO of the way from its floor (the minimum, or 0) to the maximum, full at it. The
 * card's capacity line and the capacity alerts read the same rule. The share is a division, not
 * `ratio × span`: 63 of 70 is exactly 0.9, 0.9 × 70 is not 63.
 */
import { NEAR_LIMIT_RATIO } from './limits.js';

export type CapacityState = 'room' | 'nearlyFull' | 'full';

/** The state of a counter at `value`; null when it has no maximum. */
export function capacityState(counter: {
  value: number;
  min: number | null;
  max: number | null;
}): CapacityState | null {
  const { value, min, max } = counter;
  if (max === null) return null;
  if (value >= max) return 'full';
  const floor = min ?? 0;
  const span = max - floor;
  return span > 0 && (value - floor) / span >= NEAR_LIMIT_RATIO ? 'nearlyFull' : 'room';
}
