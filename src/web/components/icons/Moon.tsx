import { icon } from './icon.js';

/** Switch to dark mode. */
export const Moon = icon('M12 3a6 6 0 0 0 9 9 9 9 0 1 1-9-9z');
