import { icon } from './icon.js';

/** Capacity with room left (a counter or a section below its maximum). */
export const Gauge = icon('M12 14l4-4M3.3 19a10 10 0 1 1 17.4 0');
