import { icon } from './icon.js';

/** Work in progress; spun with `animate-spin`. */
export const Loader = icon('M21 12a9 9 0 1 1-6.2-8.6');
