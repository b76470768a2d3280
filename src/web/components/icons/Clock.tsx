import { icon } from './icon.js';

/** A change that is waiting to be sent. */
export const Clock = icon('M2 12a10 10 0 1 0 20 0a10 10 0 1 0-20 0M12 6v6l4 2');
