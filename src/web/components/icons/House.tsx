import { icon } from './icon.js';

/** Back to the landing page. */
export const House = icon('M3 10.5 12 3l9 7.5V20a1 1 0 0 1-1 1h-5v-6H9v6H4a1 1 0 0 1-1-1z');
