import { icon } from './icon.js';

/** A counter nearly at its maximum. */
export const TriangleAlert = icon(
  'M10.3 3.9 1.8 18a2 2 0 0 0 1.7 3h17a2 2 0 0 0 1.7-3L13.7 3.9a2 2 0 0 0-3.4 0M12 9v4m0 4h.01',
);
