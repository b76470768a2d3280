import { icon } from './icon.js';

/** Move a counter down (reorder mode). */
export const ArrowDown = icon('M12 5v14M19 12l-7 7-7-7');
