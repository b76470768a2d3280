import { icon } from './icon.js';

/** A counter's history chart. */
export const ChartLine = icon('M3 3v18h18M7 15l4-4 3 3 6-6');
