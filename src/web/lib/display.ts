/**
 * Display mode: every counter on one screen, read from across a room. Pure layout
 * arithmetic so it can be tested without a browser: the grid's columns and rows and the value's
 * font size follow from how many counters there are and the size of the viewport.
 */
import { formatNumber } from '../i18n/format.js';

export interface DisplayLayout {
  columns: number;
  rows: number;
  /** Font size of each counter's value, px. */
  valueSize: number;
  /** Font size of each counter's name, px. */
  nameSize: number;
  /** Font size of the lines under the value (goal, capacity, pace), px. */
  detailSize: number;
}

/** Values are never set smaller than this, px (readable across a room even with many counters). */
export const MIN_VALUE_PX = 48;
/** Nor larger than this share of the viewport's height (one counter on a TV). */
const MAX_VALUE_SHARE = 0.4;
/**
 * Space taken above the grid, px: the top bar (3.5 rem and its 1 px border) and the grid's top
 * padding (half a gap), with a pixel to spare so rounding never makes the page scroll.
 */
export const HEADER_PX = 66;
/** The top bar's height with its bottom border, px (styles.css .top-bar h-14, .app-bar border). */
export const BAR_PX = 57;
/** A section's heading above its tiles, px: one line of 24 px text and its 12 px margin. */
export const SECTION_PX = 44;
/** A section's heading's font size, px. */
export const SECTION_FONT_PX = 24;
/** Gap between cells and around the grid, px. */
export const GAP_PX = 16;
/** Padding inside each cell, both sides together, px. */
export const CELL_PADDING_PX = 24;
/** Width of one digit of a tabular value as a share of its font size (a little generous). */
const DIGIT_WIDTH = 0.62;
/** The name's and the details' font sizes as shares of the value's. */
const NAME_SHARE = 0.3;
const DETAIL_SHARE = 0.21;
/** Line heights, as multiples of the font size: the value's, the name's, the details'. */
export const VALUE_LINE = 1.05;
export const NAME_LINE = 1.2;
export const DETAIL_LINE = 1.3;
/**
 * The longest detail line ("at this pace: reached in about 12 min", "Nearly full · 8 left ·
 * 192 / 200") in characters, and a character's width as a share of the font size: details are
 * made small enough to fit their cell's width on one line.
 */
const DETAIL_CHARS = 38;
const TEXT_CHAR_WIDTH = 0.55;
/** 13 px: at 1280 px, four columns of tiles with details, so 12 counters fit a 1280×720 screen. */
const MIN_DETAIL_PX = 13;
const MIN_NAME_PX = 18;
/**
 * A name's average character width as a share of its font size, semibold (generous: "Push-ups"
 * and "Temporary workers" measure 0.50–0.58 in the fonts a TV browser has). Names are sized so
 * the longest fits its tile on one line; DisplayView measures and shrinks them further if a font
 * runs wider.
 */
export const NAME_CHAR_WIDTH = 0.62;
/** Names up to this many characters always fit on one line; longer ones are cut with "…". */
export const NAME_FIT_CHARS = 24;
/** Sized for at least this many characters, so one short name does not make every name huge. */
const NAME_MIN_CHARS = 10;

/** What the layout shows. */
export interface DisplayContent {
  /** How many counters. */
  count: number;
  /** The characters of the widest value (3 unless given). */
  digits?: number;
  /** The most detail lines any cell has (1 unless given). */
  lines?: number;
  /** Counters per block in the grid's order (a section, or a run of counters without one). */
  blocks?: readonly number[];
  /** How many of the blocks are sections, each with a heading above its tiles. */
  headings?: number;
  /** The longest name, characters. */
  nameChars?: number;
}

/**
 * What a display cell shows under its value, in detail lines: the pace always has its line (two
 * when a forecast can follow it), so that nothing moves when it appears.
 */
export function detailLines(counter: {
  goal: number | null;
  min: number | null;
  max: number | null;
}): number {
  const goal = counter.goal === null ? 0 : 1.5; // its text and its bar
  const capacity = counter.min === null && counter.max === null ? 0 : 1;
  const pace = counter.goal === null && counter.max === null ? 1 : 2;
  return goal + capacity + pace;
}

/**
 * The grid for `content.count` counters in a `width`×`height` viewport: the columns that give the
 * largest value font. Each cell's value fits its width with `content.digits` characters, and its
 * name, value and `content.lines` detail lines (the most any cell has) fit its height; with
 * details, a cell is never too narrow for them at MIN_DETAIL_PX, nor, with more than one column,
 * for the longest name at MIN_NAME_PX. Sections (`content.blocks`, `content.headings`) start on a
 * row of their own under their heading, as on the group screen. Never below MIN_VALUE_PX: with
 * many counters the page scrolls instead.
 */
export function displayLayout(
  { width, height }: { width: number; height: number },
  content: DisplayContent,
): DisplayLayout {
  const { count, digits = 3, lines = 1 } = content;
  const n = Math.max(1, Math.floor(count));
  const blocks = content.blocks?.length ? content.blocks.map((b) => Math.max(1, b)) : [n];
  const nameChars = nameCharsOf(content.nameChars);
  const chars = Math.max(1, digits);
  const usableWidth = Math.max(1, width - GAP_PX);
  const usableHeight = Math.max(
    1,
    height -
      HEADER_PX -
      GAP_PX -
      (content.headings ?? 0) * SECTION_PX -
      (blocks.length - 1) * GAP_PX,
  );
  const oneColumn = {
    columns: 1,
    rows: n,
    size: 0,
    cellWidth: usableWidth - GAP_PX - CELL_PADDING_PX,
  };
  let best = oneColumn;
  // When no grid fits the screen's height the page scrolls: then the most columns whose tiles
  // still hold a value at MIN_VALUE_PX, so that the scroll is as short as it can be.
  let scrolling = oneColumn;
  for (let columns = 1; columns <= Math.max(...blocks); columns++) {
    const rows = blocks.reduce((sum, size) => sum + Math.ceil(size / columns), 0);
    const cellWidth = usableWidth / columns - GAP_PX - CELL_PADDING_PX;
    const cellHeight = usableHeight / rows - GAP_PX - CELL_PADDING_PX;
    if (cellWidth <= 0) continue;
    // Details (a forecast, a capacity) read whole at the smallest size, or fewer columns.
    if (columns > 1 && lines > 1 && cellWidth < DETAIL_CHARS * TEXT_CHAR_WIDTH * MIN_DETAIL_PX) {
      continue;
    }
    // So do names: a name cut short ("Push-…") is a counter nobody can tell from the next.
    if (columns > 1 && cellWidth < nameChars * NAME_CHAR_WIDTH * MIN_NAME_PX) continue;
    const widthSize = (cellWidth * 0.9) / (chars * DIGIT_WIDTH);
    if (widthSize >= MIN_VALUE_PX) scrolling = { columns, rows, size: 0, cellWidth };
    if (cellHeight <= 0) continue;
    const size = Math.min(
      tallestValue({ width: cellWidth, height: cellHeight }, lines, nameChars),
      widthSize,
    );
    if (size > best.size) best = { columns, rows, size, cellWidth };
  }
  // Not even the smallest text fits a tile's share of the height with any number of columns.
  if (best.size <= 0) best = scrolling;
  const valueSize = Math.floor(
    Math.max(MIN_VALUE_PX, Math.min(best.size, height * MAX_VALUE_SHARE)),
  );
  return {
    columns: best.columns,
    rows: best.rows,
    valueSize,
    ...textSizes(valueSize, best.cellWidth, nameChars),
  };
}

function nameCharsOf(longest: number | undefined): number {
  return Math.min(NAME_FIT_CHARS, Math.max(NAME_MIN_CHARS, longest ?? NAME_MIN_CHARS));
}

/**
 * The name's and the details' font sizes for a value of `valueSize` in a cell `cellWidth` wide:
 * a name of `nameChars` characters and a detail line fit its width.
 */
function textSizes(
  valueSize: number,
  cellWidth: number,
  nameChars: number,
): { nameSize: number; detailSize: number } {
  const fitsWidth = cellWidth / (DETAIL_CHARS * TEXT_CHAR_WIDTH);
  const nameFits = cellWidth / (nameChars * NAME_CHAR_WIDTH);
  return {
    nameSize: Math.floor(Math.min(Math.max(MIN_NAME_PX, valueSize * NAME_SHARE), nameFits)),
    detailSize: Math.max(MIN_DETAIL_PX, Math.floor(Math.min(valueSize * DETAIL_SHARE, fitsWidth))),
  };
}

/**
 * The largest value font whose cell's content (the value, a name of `nameChars` characters and
 * `lines` detail lines, at their sizes and minimums) fits the cell, px: bisection, the height
 * grows with the value.
 */
function tallestValue(
  cell: { width: number; height: number },
  lines: number,
  nameChars: number,
): number {
  const heightOf = (valueSize: number) => {
    const { nameSize, detailSize } = textSizes(valueSize, cell.width, nameChars);
    return valueSize * VALUE_LINE + nameSize * NAME_LINE + lines * detailSize * DETAIL_LINE;
  };
  let low = 0;
  let high = cell.height;
  for (let step = 0; step < 24; step++) {
    const middle = (low + high) / 2;
    if (heightOf(middle) <= cell.height) low = middle;
    else high = middle;
  }
  return low;
}

/** The characters the widest value takes ("-1,234" is 6), at least 1. */
export function widestValue(values: readonly number[]): number {
  let widest = 1;
  for (const value of values) widest = Math.max(widest, formatNumber(value).length);
  return widest;
}

/**
 * Every tile's height, px: the block layout of `grid.rows` rows of tiles in all and
 * `grid.headings` section headings, with the gaps between them, fills the `height` under the top
 * bar; never less than a tile's own content (name, value, `grid.lines` detail lines and padding),
 * where the page scrolls.
 */
export function tileHeight(
  layout: DisplayLayout,
  height: number,
  { rows, headings, lines }: { rows: number; headings: number; lines: number },
): number {
  const content =
    layout.valueSize * VALUE_LINE +
    layout.nameSize * NAME_LINE +
    lines * layout.detailSize * DETAIL_LINE +
    CELL_PADDING_PX +
    2; // the tile's 1 px border, top and bottom
  const r = Math.max(1, rows);
  const fill = (height - BAR_PX - GAP_PX - headings * SECTION_PX - (r - 1) * GAP_PX) / r;
  return Math.floor(Math.max(content, fill));
}
