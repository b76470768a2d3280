import { icon } from './icon.js';

/** A picture that failed to load. */
export const ImageOff = icon(
  'm2 2 20 20M9 3h10a2 2 0 0 1 2 2v10M19 21H5a2 2 0 0 1-2-2V5m0 12 5-5 4 4',
);
