import { icon } from './icon.js';

/** Focus mode: one counter full screen. */
export const Maximize = icon('M4 9V4h5M20 9V4h-5M4 15v5h5M20 15v5h-5');
