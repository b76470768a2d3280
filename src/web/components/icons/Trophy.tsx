import { icon } from './icon.js';

/** A goal reached. */
export const Trophy = icon(
  'M8 21h8M12 17v4M7 4h10v5a5 5 0 0 1-10 0zM7 6H4v1a3 3 0 0 0 3 3M17 6h3v1a3 3 0 0 1-3 3',
);
