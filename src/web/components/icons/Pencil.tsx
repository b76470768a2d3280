import { icon } from './icon.js';

/** An edit (name, steps, settings) in the activity log. */
export const Pencil = icon('M16.5 3.5a2.1 2.1 0 0 1 3 3L7 19l-4 1 1-4z');
