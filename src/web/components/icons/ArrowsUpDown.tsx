import { icon } from './icon.js';

/** Reorder mode, and a new order in the activity log. */
export const ArrowsUpDown = icon('M7 20V4M3 8l4-4 4 4M17 4v16M21 16l-4 4-4-4');
