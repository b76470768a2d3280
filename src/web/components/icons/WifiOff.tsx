import { icon } from './icon.js';

/** Offline: the connection is down. */
export const WifiOff = icon(
  'm2 2 20 20M12 20h.01M8.5 16.4a5 5 0 0 1 7 0M5 12.9a10 10 0 0 1 5-2.8m9 2.8a10 10 0 0 0-2.4-1.7M2 8.8a15 15 0 0 1 4.3-2.7M22 8.8A15 15 0 0 0 11 5',
);
