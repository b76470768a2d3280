import { icon } from './icon.js';

/** A change that reached a goal, in the activity log. */
export const Flag = icon('M4 22V4m0 0h13l-2 4 2 4H4');
