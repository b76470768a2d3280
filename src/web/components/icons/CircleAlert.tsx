import { icon } from './icon.js';

/** An error or a warning. */
export const CircleAlert = icon('M2 12a10 10 0 1 0 20 0a10 10 0 1 0-20 0M12 7v6m0 4h.01');
