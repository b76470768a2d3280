/**
 * Every user-facing string the web app and the server share, defined once and imported by both.
 * docs/product.md quotes them word for word (docs/product.md#messages): change both together.
 */
export const MESSAGES = {
  tagline: 'Create or join a group with counters for anything imaginable! Secure and in real-time!',

  // Landing (docs/product.md#landing)
  emptyGroupName: 'Please enter a group name.',
  landingInvalidKey: 'Access key not valid. Generate a new one.',
  groupNameNeedsAlnum: 'Group name must contain at least one letter or number',
  groupExistsWrongKey:
    'This group already exists and the access key is incorrect. Please use the correct key or choose a different group name.',
  groupExists: 'This group already exists',
  groupExistsNote: 'This group already exists. Enter the correct access key to join.',

  // Group screen: Access Denied (docs/product.md#group-screen)
  missingNameOrKey: 'Missing group name or access key',
  invalidKeyFormat: 'Invalid access key format',
  wrongKey: 'Invalid access key for this group',
  accessDenied: 'Access denied',

  // Image URLs (docs/product.md#images)
  invalidUrl: 'Please enter a valid URL',
  counterImageFailed: 'Failed to load image - URL may be invalid or image may not exist',
  profileImageFailed: 'Could not load image from this URL. Please check the link and try again.',
  thumbnailHint: 'Supports JPG, PNG, GIF, WebP, SVG',

  // Errors (docs/product.md#landing, docs/product.md#body) and the share button
  // (docs/product.md#header)
  errorCheckingGroup: (message: string) => `Error checking group: ${message}`,
  errorValidatingAccess: (message: string) => `Error validating group access: ${message}`,
  failedToLoadCounters: 'Failed to load counters',
  failedToCreateCounter: 'Failed to create counter',
  failedToUpdateCounter: 'Failed to update counter',
  failedToDeleteCounter: 'Failed to delete counter',
  copyFailed: 'Failed to copy URL to clipboard. Please copy manually.',
  copied: 'Copied!',

  // Loading, the empty group and counter cards (docs/product.md#group-screen)
  loadingGroup: 'Loading group...',
  loadingCounters: 'Loading counters...',
  noCountersTitle: 'No counters yet',
  noCountersBody: 'Create your first counter to get started!',
  deleteConfirm: 'Are you sure you want to delete this counter?',
  newCounterName: 'New Counter',

  // Rules the server enforces (docs/api.md#rules-the-server-enforces)
  groupNameTooLong: 'Group name must be at most 100 characters',
  displayNameEmpty: 'Group name cannot be empty',
  groupNotFound: 'Group not found',
  counterNotFound: 'Counter not found',
  valueOutOfRange: 'Counter value out of range',
  notAnInteger: 'Value must be a whole number',
  stepTooSmall: 'Step must be at least 1',
  invalidBody: 'Invalid request body',
  bodyTooLarge: 'Request body is too large',
  invalidOperationId:
    'Operation id must be 1 to 64 letters, digits, hyphens or underscores, or a numbered id: 8 to 40 of them, a dot and a whole number from 1 (at most 15 digits)',
  operationExpired:
    'This numbered operation id is too far behind the newest of its session to tell whether it was applied; nothing was changed',
  undoNumberedTap:
    'A tap sent with a numbered operation id is undone from the activity log, by its entry',
  operationIdReused: 'This operation id was already used for a different change',
  internalError: 'Something went wrong on our side. Please try again.',
  rateLimited: (seconds: number) =>
    `Too many attempts with a wrong access key. Please try again in ${seconds} s.`,
  notFound: 'Not found',
  activityNotFound: 'Change not found',
  alreadyUndone: 'This change was already undone',
  readOnly: 'This is a view-only link: it can see the group but not change it',
  keyChanged: 'The access key of this group was changed. Ask a member for the new link.',
  viewLinkChanged: 'This view-only link no longer works. Ask a member for a new one.',
  sameKey: 'The new access key must differ from the current one',
  invalidMemberName: 'Tally-Member must be a percent-encoded name of at most 1000 characters',

  // Quotas, overload and storage health (docs/api.md#limits, ADR 13)
  tooManyCounters: (max: number) =>
    `This group has reached its limit of ${max.toLocaleString('en-US')} counters. Delete one to add another.`,
  tooManyGroups: (seconds: number) =>
    `Too many new groups from this address. Please try again in ${seconds} s.`,
  tooManyConnections: 'Too many connections from this address. Close some tabs and try again.',
  tooManyReads: (seconds: number) =>
    `Too many exports, histories and long activity pages from this address at once. Please try again in ${seconds} s.`,
  busy: 'Tally is busy right now. Please try again in a moment.',
  storageUnavailable: 'Tally cannot save changes right now. Please try again later.',
  textHasNul: 'Text must not contain NUL characters',
  memberNameHasNul: 'The member name must not contain NUL characters',
  requestTimeout: 'The request took too long to arrive',
  headersTooLarge: 'Request headers are too large',
  malformedRequest: 'Malformed request',

  // Operators (docs/api.md#metrics)
  invalidMetricsToken: "Metrics need the operator's token: Authorization: Bearer <METRICS_TOKEN>",

  // Goals, limits, periods, order and sections (ADR 19)
  limitAbove: (max: number) =>
    `Limit reached: this counter cannot go above ${max.toLocaleString('en-US')}.`,
  limitBelow: (min: number) =>
    `Limit reached: this counter cannot go below ${min.toLocaleString('en-US')}.`,
  sectionFull: (section: string, max: number) =>
    `Limit reached: ${section} cannot hold more than ${max.toLocaleString('en-US')} in total.`,
  minAboveMax: 'The minimum cannot be greater than the maximum.',
  limitsExcludeValue: 'The value must stay between the minimum and the maximum.',
  startValueOutsideLimits: 'The start value must be between the minimum and the maximum.',
  sectionLimitBelowTotal: (section: string, total: number) =>
    `The maximum of ${section} cannot be less than its current total of ${total.toLocaleString('en-US')}.`,
  goalReached: (member: string, counter: string, goal: number) =>
    `${member} reached the goal of ${goal.toLocaleString('en-US')} on ${counter}!`,
  invalidTimeZone: 'Please choose a valid time zone.',
  invalidWeekStart: 'The week must start on a day from 1 (Monday) to 7 (Sunday).',
  invalidOrder: "The new order must list every one of the group's counters exactly once.",
  sectionNameEmpty: 'Please enter a section name.',
  tooManySections: (max: number) =>
    `This group has reached its limit of ${max.toLocaleString('en-US')} sections with a maximum.`,
  cannotUndoReset: 'An automatic reset cannot be undone.',
  periodEnded: 'This change belongs to a period that has ended, so it cannot be undone.',

  // Offline (docs/product.md#offline-queue, ADR 11)
  changesWaiting: (count: number) =>
    count === 1 ? '1 change waiting' : `${count.toLocaleString('en-US')} changes waiting`,
  notSentYet: 'Not sent yet: it goes out when the connection is back',
  offlineOpening: "You're offline. This group opens as soon as the connection is back.",

  // The server's database is away (a restart, a failover)
  savingPaused:
    'Changes are not being saved right now. Your taps are kept on this device and sent as soon as saving resumes.',

  // A counting key pressed on a view-only link, shown on screen (an outlined card that
  // does not count would look broken)
  viewOnlyKeys:
    'This is a view-only link: it shows the counters but cannot count. Open the group with its full link to count.',
} as const;
