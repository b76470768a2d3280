import { icon } from './icon.js';

/** The drag handle of a row in reorder mode. */
export const Grip = icon(
  'M9 5h.01M9 12h.01M9 19h.01M15 5h.01M15 12h.01M15 19h.01M8 5a1 1 0 1 0 2 0a1 1 0 1 0-2 0M8 12a1 1 0 1 0 2 0a1 1 0 1 0-2 0M8 19a1 1 0 1 0 2 0a1 1 0 1 0-2 0M14 5a1 1 0 1 0 2 0a1 1 0 1 0-2 0M14 12a1 1 0 1 0 2 0a1 1 0 1 0-2 0M14 19a1 1 0 1 0 2 0a1 1 0 1 0-2 0',
);
