import { icon } from './icon.js';

/** Move a counter up (reorder mode). */
export const ArrowUp = icon('M12 19V5M5 12l7-7 7 7');
