import { icon } from './icon.js';

/** At the minimum. */
export const ArrowDownToLine = icon('M12 3v12m-5-5 5 5 5-5M5 21h14');
