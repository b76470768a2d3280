import { icon } from './icon.js';

/** A step down: a decrement, and a change that lowered a counter in the activity log. */
export const Minus = icon('M5 12h14');
