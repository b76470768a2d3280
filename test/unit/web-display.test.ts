import { describe, expect, it } from 'vitest';
import { displayLayout, MIN_VALUE_PX, widestValue } from '../../src/web/lib/display.js';
import { displayGroupOf, displayUrl } from '../../src/web/lib/router.js';

describe('displayLayout', () => {
  it('fills a TV with few counters: values at least 10 % of the height', () => {
    for (const count of [1, 2, 3, 4]) {
      const layout = displayLayout(count, 1920, 1080);
      expect(layout.valueSize).toBeGreaterThanOrEqual(108);
      expect(layout.columns * layout.rows).toBeGreaterThanOrEqual(count);
    }
  });

  it('keeps values at 48 px or more at 1280×720 with 12 counters', () => {
    const layout = displayLayout(12, 1280, 720);
    expect(layout.valueSize).toBeGreaterThanOrEqual(48);
    expect(layout.columns * layout.rows).toBeGreaterThanOrEqual(12);
    expect(layout.columns).toBeGreaterThan(1);
  });

  it('never goes below the minimum, even with many counters or a phone', () => {
    expect(displayLayout(200, 1280, 720).valueSize).toBe(MIN_VALUE_PX);
    expect(displayLayout(12, 360, 640).valueSize).toBeGreaterThanOrEqual(MIN_VALUE_PX);
  });

  it('prefers wide grids on wide screens and tall ones on phones', () => {
    expect(displayLayout(4, 1920, 1080).columns).toBeGreaterThanOrEqual(2);
    expect(displayLayout(4, 360, 800).columns).toBe(1);
  });

  it('shrinks the value for wider numbers', () => {
    expect(displayLayout(6, 1280, 720, 7).valueSize).toBeLessThan(
      displayLayout(6, 1280, 720, 1).valueSize,
    );
  });

  it('treats zero counters as one', () => {
    expect(displayLayout(0, 1280, 720)).toEqual(displayLayout(1, 1280, 720));
  });
});

describe('widestValue', () => {
  it('counts grouping and sign characters', () => {
    expect(widestValue([])).toBe(1);
    expect(widestValue([5, -1234, 99])).toBe(6);
  });
});

describe('display paths', () => {
  it('builds and reads /{group}/display', () => {
    expect(displayUrl('my team', 'k y')).toBe('/my%20team/display?key=k%20y');
    expect(displayGroupOf('/my%20team/display')).toBe('my team');
    expect(displayGroupOf('/team/display/')).toBe('team');
    expect(displayGroupOf('/team')).toBeNull();
    expect(displayGroupOf('/display')).toBeNull();
    expect(displayGroupOf('/a/b/display')).toBeNull();
  });
});
