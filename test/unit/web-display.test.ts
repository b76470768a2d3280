import { describe, expect, it } from 'vitest';
import {
  CELL_PADDING_PX,
  DETAIL_LINE,
  detailLines,
  displayLayout,
  GAP_PX,
  HEADER_PX,
  MIN_VALUE_PX,
  NAME_LINE,
  VALUE_LINE,
  widestValue,
} from '../../src/web/lib/display.js';
import { displayGroupOf, displayUrl } from '../../src/web/lib/router.js';
import {
  REOPEN_BASE_MS,
  REOPEN_MAX_MS,
  reopenDelay,
} from '../../src/web/routes/group/useGroupAccess.js';

/** Viewports: a TV or projector (1080p) and a smaller screen (720p). */
const FULL_HD = { width: 1920, height: 1080 };
const HD = { width: 1280, height: 720 };

describe('displayLayout', () => {
  it('fills a TV with few counters: values at least 10 % of the height', () => {
    for (const count of [1, 2, 3, 4]) {
      const layout = displayLayout(FULL_HD, { count });
      expect(layout.valueSize).toBeGreaterThanOrEqual(108);
      expect(layout.columns * layout.rows).toBeGreaterThanOrEqual(count);
    }
  });

  it('keeps values at 48 px or more at 1280×720 with 12 counters', () => {
    const layout = displayLayout(HD, { count: 12 });
    expect(layout.valueSize).toBeGreaterThanOrEqual(48);
    expect(layout.columns * layout.rows).toBeGreaterThanOrEqual(12);
    expect(layout.columns).toBeGreaterThan(1);
  });

  it('never goes below the minimum, even with many counters or a phone', () => {
    expect(displayLayout(HD, { count: 200 }).valueSize).toBe(MIN_VALUE_PX);
    expect(
      displayLayout({ width: 360, height: 640 }, { count: 12 }).valueSize,
    ).toBeGreaterThanOrEqual(MIN_VALUE_PX);
  });

  it('prefers wide grids on wide screens and tall ones on phones', () => {
    expect(displayLayout(FULL_HD, { count: 4 }).columns).toBeGreaterThanOrEqual(2);
    expect(displayLayout({ width: 360, height: 800 }, { count: 4 }).columns).toBe(1);
  });

  it('shrinks the value for wider numbers', () => {
    expect(displayLayout(HD, { count: 6, digits: 7 }).valueSize).toBeLessThan(
      displayLayout(HD, { count: 6, digits: 1 }).valueSize,
    );
  });

  it('fits the name, the value and every detail line in the cell, at each size', () => {
    for (const [width, height] of [
      [1920, 1080],
      [1280, 720],
      [390, 844],
    ] as const) {
      for (const count of [1, 3, 6, 12]) {
        for (const lines of [1, 3, 4.5]) {
          const layout = displayLayout({ width, height }, { count, digits: 3, lines });
          if (layout.valueSize === MIN_VALUE_PX) continue; // the page scrolls instead
          const cellHeight = (height - HEADER_PX - GAP_PX) / layout.rows - GAP_PX - CELL_PADDING_PX;
          const used =
            layout.valueSize * VALUE_LINE +
            layout.nameSize * NAME_LINE +
            lines * layout.detailSize * DETAIL_LINE;
          expect(used, `${count} counters, ${lines} lines at ${width}×${height}`).toBeLessThan(
            cellHeight + 1,
          );
          // A detail line of 38 characters fits the cell's width at 13 px or more (the smallest size may not, on
          // a phone with one column: nothing narrower is possible there).
          const cellWidth = (width - GAP_PX) / layout.columns - GAP_PX - CELL_PADDING_PX;
          expect(layout.detailSize).toBeLessThanOrEqual(Math.max(13, cellWidth / (38 * 0.55)));
          if (lines > 1 && layout.columns > 1) {
            expect(13 * 38 * 0.55).toBeLessThanOrEqual(cellWidth);
          }
        }
      }
    }
  });

  it('uses one column on a phone when cells have details, so they are never cut short', () => {
    expect(
      displayLayout({ width: 390, height: 844 }, { count: 6, digits: 3, lines: 3 }).columns,
    ).toBe(1);
    expect(
      displayLayout({ width: 390, height: 844 }, { count: 6, digits: 3, lines: 1 }).columns,
    ).toBe(2);
  });

  it('gives the value less room when a cell has more detail lines', () => {
    expect(displayLayout(FULL_HD, { count: 6, digits: 3, lines: 4.5 }).valueSize).toBeLessThan(
      displayLayout(FULL_HD, { count: 6, digits: 3, lines: 1 }).valueSize,
    );
  });

  it('keeps names and details readable when the page must scroll, on a phone and on a TV', () => {
    // Seven counters with goals and limits in sections on a phone: no grid fits the height.
    const phone = displayLayout(
      { width: 390, height: 780 },
      { count: 7, lines: 3.5, blocks: [2, 2, 1, 2], headings: 2, nameChars: 17 },
    );
    expect(phone.columns).toBe(1);
    expect(phone.valueSize).toBe(MIN_VALUE_PX);
    expect(phone.nameSize).toBeGreaterThanOrEqual(18);
    expect(phone.detailSize).toBeGreaterThanOrEqual(13);
    // Hundreds on a TV: as many columns as hold a value at the minimum, names still shown.
    const tv = displayLayout(FULL_HD, { count: 400, lines: 3.5, nameChars: 12 });
    expect(tv.columns).toBeGreaterThan(1);
    expect(tv.nameSize).toBeGreaterThanOrEqual(18);
    expect(tv.columns * tv.rows).toBeGreaterThanOrEqual(400);
  });

  it('treats zero counters as one', () => {
    expect(displayLayout(HD, { count: 0 })).toEqual(displayLayout(HD, { count: 1 }));
  });
});

describe('detailLines', () => {
  it('counts the goal with its bar, the capacity and the pace (two lines with a target)', () => {
    expect(detailLines({ goal: null, min: null, max: null })).toBe(1);
    expect(detailLines({ goal: 10, min: null, max: null })).toBe(3.5);
    expect(detailLines({ goal: null, min: 0, max: null })).toBe(2);
    expect(detailLines({ goal: null, min: null, max: 200 })).toBe(3);
    expect(detailLines({ goal: 10, min: 0, max: 20 })).toBe(4.5);
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

  it("carries the sharer's language when one is given", () => {
    expect(displayUrl('team', 'k', 'de')).toBe('/team/display?key=k&lang=de');
    expect(displayUrl('team', 'k', 'zh-Hans')).toBe('/team/display?key=k&lang=zh-Hans');
  });
});

describe('reopening a screen while offline (group screen and display)', () => {
  it('waits twice as long after each failed try, up to the cap', () => {
    expect([0, 1, 2, 3].map(reopenDelay)).toEqual([1_000, 2_000, 4_000, 8_000]);
    expect(reopenDelay(0)).toBe(REOPEN_BASE_MS);
    expect(reopenDelay(4)).toBe(REOPEN_MAX_MS);
    expect(reopenDelay(40)).toBe(REOPEN_MAX_MS);
  });
});
