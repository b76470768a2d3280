/**
 * The messages of notes and counts for an earlier time (docs/product.md#notes-and-earlier-times),
 * shared by the server and the web app like shared/messages.ts. A module of their own: the group
 * screen's first load carries shared/messages.ts, and these are only needed once a note or an
 * earlier time is given (the server's answers, the lazily loaded note dialog).
 */
export const NOTE_MESSAGES = {
  noteTooLong: (max: number) => `A note is at most ${max.toLocaleString('en-US')} characters.`,
  invalidCountedAt:
    'The time must be an ISO 8601 date and time with its zone, like 2026-11-26T18:00:00Z.',
  countedAtInFuture: 'A count cannot be for a time later than now.',
  countedAtTooOld: (days: number) =>
    `A count can be for a time at most ${days.toLocaleString('en-US')} days ago.`,
  countedAtBeforeCounter: 'A count cannot be for a time before the counter was created.',
  notYourEntry: 'Only the member who made this change can change its note.',
  noteEditExpired: (hours: number) =>
    `A note can be changed for ${hours.toLocaleString('en-US')} hours after the change.`,
  cannotNoteReset: 'An automatic reset cannot carry a note.',
} as const;
