/**
 * The parts of an alert a push message carries (notification-words.ts words them): their schema,
 * apart from the composition so that neither the web app's first load nor the service worker
 * takes zod with them.
 */
import { z } from 'zod';
import { MEMBER_NAME_MAX_LENGTH, TEXT_MAX_LENGTH } from './limits.js';
import { NOTIFICATION_NUMBERS, NOTIFICATION_SENTENCE_NAMES } from './notification-words.js';

/**
 * An alert's parts, as a push message carries them for the browser to word in its member's
 * language (notification-words.ts).
 */
export const NotificationWordsSchema = z.strictObject({
  sentence: z.enum(NOTIFICATION_SENTENCE_NAMES),
  counter: z.string().max(TEXT_MAX_LENGTH),
  /** The group's display name (its slug when it has none). */
  group: z.string().max(TEXT_MAX_LENGTH),
  /** Who made the change; null when no member did. */
  by: z.string().max(MEMBER_NAME_MAX_LENGTH).nullable(),
  numbers: z.partialRecord(z.enum(NOTIFICATION_NUMBERS), z.number()),
  test: z.boolean(),
  /** How many more alerts of the group this one stands for; null when none. */
  folded: z.number().int().positive().nullable(),
});
export type NotificationWords = z.infer<typeof NotificationWordsSchema>;
