import { icon } from './icon.js';

/** Alerts: messages sent out when a counter crosses a line. */
export const Bell = icon('M6 8a6 6 0 0 1 12 0c0 7 3 9 3 9H3s3-2 3-9m4.3 13a1.94 1.94 0 0 0 3.4 0');
