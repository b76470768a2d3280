import { icon } from './icon.js';

/** Settings (a counter's goal and limits, the group's time zone and week). */
export const Sliders = icon('M4 6h9m4 0h3M4 12h3m4 0h9M4 18h11m4 0h1M13 4v4M7 10v4M15 16v4');
