import { icon } from './icon.js';

/** Undo, and an undo in the activity log. */
export const Undo = icon('M9 14 4 9l5-5M4 9h10.5a5.5 5.5 0 0 1 0 11H11');
