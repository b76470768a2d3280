import { icon } from './icon.js';

/** Something is only to be looked at here (a view-only link). */
export const Eye = icon(
  'M2 12s3.6-7 10-7 10 7 10 7-3.6 7-10 7S2 12 2 12M9 12a3 3 0 1 0 6 0a3 3 0 1 0-6 0',
);
