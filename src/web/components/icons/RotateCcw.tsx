import { icon } from './icon.js';

/** A counter that resets each day, week or month, and a reset in the activity log. */
export const RotateCcw = icon('M3 12a9 9 0 1 0 3-6.7L3 8m0-5v5h5');
