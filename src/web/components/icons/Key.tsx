import { icon } from './icon.js';

/** Generate an access key. */
export const Key = icon(
  'M3 15.5a4.5 4.5 0 1 0 9 0a4.5 4.5 0 1 0-9 0M10.7 12.3 20 3m-4 4 3 3m-1-5 2 2',
);
