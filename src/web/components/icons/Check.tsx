import { icon } from './icon.js';

/** Done or chosen: save, copied, the chosen option. */
export const Check = icon('M20 6 9 17l-5-5');
