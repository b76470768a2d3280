import { icon } from './icon.js';

/** Go on: create or join the group. */
export const ArrowRight = icon('M5 12h14m-6-6 6 6-6 6');
