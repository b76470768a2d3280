import { icon } from './icon.js';

/** Full: a counter or a section at its maximum. */
export const Ban = icon('M2 12a10 10 0 1 0 20 0a10 10 0 1 0-20 0M4.9 4.9l14.2 14.2');
