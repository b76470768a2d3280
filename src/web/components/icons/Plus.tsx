import { icon } from './icon.js';

/** Add: a counter, a step up; in the activity log a new counter or a change that raised one. */
export const Plus = icon('M12 5v14M5 12h14');
