import { icon } from './icon.js';

/** The activity log: who changed what, newest first. */
export const History = icon('M3 12a9 9 0 1 0 3-6.7L3 8m0-5v5h5m4-1v5l3 2');
