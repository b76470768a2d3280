import { icon } from './icon.js';

/** Share the group's link. */
export const Share = icon(
  'M15 5a3 3 0 1 0 6 0a3 3 0 1 0-6 0M3 12a3 3 0 1 0 6 0a3 3 0 1 0-6 0M15 19a3 3 0 1 0 6 0a3 3 0 1 0-6 0M8.6 13.5l6.8 4m0-11-6.8 4',
);
