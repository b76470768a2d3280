/**
 * Display mode (issue 18): every counter on one screen, read from across a room. Pure layout
 * arithmetic so it can be tested without a browser: the grid's columns and rows and the value's
 * font size follow from how many counters there are and the size of the viewport.
 */

export interface DisplayLayout {
  columns: number;
  rows: number;
  /** Font size of each counter's value, px. */
  valueSize: number;
  /** Font size of each counter's name, px. */
  nameSize: number;
}

/** Values are never set smaller than this, px (readable across a room even with many counters). */
export const MIN_VALUE_PX = 48;
/** Nor larger than this share of the viewport's height (one counter on a TV). */
const MAX_VALUE_SHARE = 0.4;
/** Space taken by the header line above the grid, px. */
export const HEADER_PX = 72;
/** Gap between cells and around the grid, px. */
export const GAP_PX = 16;
/** Padding inside each cell, both sides together, px. */
export const CELL_PADDING_PX = 24;
/** Width of one digit of a tabular value as a share of its font size (a little generous). */
const DIGIT_WIDTH = 0.62;

/**
 * The grid for `count` counters in a `width`×`height` viewport: the columns that give the largest
 * value font (each cell's value fits its width with `digits` characters and takes about half its
 * height), never below MIN_VALUE_PX — with many counters the page scrolls instead.
 */
export function displayLayout(
  count: number,
  width: number,
  height: number,
  digits = 3,
): DisplayLayout {
  const n = Math.max(1, Math.floor(count));
  const chars = Math.max(1, digits);
  const usableWidth = Math.max(1, width - GAP_PX);
  const usableHeight = Math.max(1, height - HEADER_PX - GAP_PX);
  let best = { columns: 1, rows: n, size: 0 };
  for (let columns = 1; columns <= n; columns++) {
    const rows = Math.ceil(n / columns);
    const cellWidth = usableWidth / columns - GAP_PX - CELL_PADDING_PX;
    const cellHeight = usableHeight / rows - GAP_PX - CELL_PADDING_PX;
    if (cellWidth <= 0 || cellHeight <= 0) continue;
    const size = Math.min(cellHeight * 0.5, (cellWidth * 0.9) / (chars * DIGIT_WIDTH));
    if (size > best.size) best = { columns, rows, size };
  }
  const valueSize = Math.floor(
    Math.max(MIN_VALUE_PX, Math.min(best.size, height * MAX_VALUE_SHARE)),
  );
  return {
    columns: best.columns,
    rows: best.rows,
    valueSize,
    nameSize: Math.max(18, Math.round(valueSize * 0.3)),
  };
}

/** The characters the widest value takes ("-1,234" is 6), at least 1. */
export function widestValue(values: readonly number[]): number {
  let widest = 1;
  for (const value of values) widest = Math.max(widest, value.toLocaleString('en-US').length);
  return widest;
}
