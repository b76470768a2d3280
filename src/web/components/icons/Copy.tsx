import { icon } from './icon.js';

/** Copy a link. */
export const Copy = icon('M8 8h12v12H8zM16 8V4H4v12h4');
