import { icon } from './icon.js';

/** A counter's menu of less frequent actions (settings, focus mode, delete). */
export const MoreVertical = icon(
  'M11 5a1 1 0 1 0 2 0a1 1 0 1 0-2 0M11 12a1 1 0 1 0 2 0a1 1 0 1 0-2 0M11 19a1 1 0 1 0 2 0a1 1 0 1 0-2 0',
);
