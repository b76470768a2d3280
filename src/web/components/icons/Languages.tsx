import { icon } from './icon.js';

/** The language menu: a character and a letter A, as phones and browsers draw it. */
export const Languages = icon('m5 8 6 6m-7 0 6-6 2-3M2 5h12M7 2h1m14 20-5-10-5 10m2-4h6');
