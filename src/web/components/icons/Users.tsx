import { icon } from './icon.js';

/** A group that already exists (others are in it). */
export const Users = icon(
  'M2 21v-2a4 4 0 0 1 4-4h6a4 4 0 0 1 4 4v2M5 7a4 4 0 1 0 8 0a4 4 0 1 0-8 0M22 21v-2a4 4 0 0 0-3-3.9M16 3.1a4 4 0 0 1 0 7.8',
);
