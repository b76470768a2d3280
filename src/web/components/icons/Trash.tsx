import { icon } from './icon.js';

/** Delete, and a deleted counter in the activity log. */
export const Trash = icon('M3 6h18M8 6V4h8v2m2 0-1 14H7L6 6m4 5v6m4-6v6');
