import { icon } from './icon.js';

/** Add a thumbnail. */
export const ImagePlus = icon(
  'M21 12v7a2 2 0 0 1-2 2H5a2 2 0 0 1-2-2V5a2 2 0 0 1 2-2h7m4 2h6m-3-3v6M3 17l5-5 8 8M7.5 8a1.5 1.5 0 1 0 3 0a1.5 1.5 0 1 0-3 0',
);
