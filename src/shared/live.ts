/**
 * Live channel constants, apart from the zod schemas in protocol.ts so the web app can import
 * them without shipping zod to the browser.
 */
export const PROTOCOL_VERSION = 1;

/**
 * Most members a `presence` message lists; past this it carries their number (`count`) and the
 * first ones by name, so its size does not grow with the crowd.
 */
export const PRESENCE_LIST_MAX = 50;

/** Application close codes (4000–4999 are free for applications, RFC 6455 §7.4.2). */
export const CLOSE_CODES = {
  /** Server shutting down or restarting: reconnect. */
  goingAway: 1001,
  /** A message that is not valid JSON or not in the protocol. */
  badMessage: 4400,
  /** No `auth` message in time, or another message before it. */
  unauthorized: 4401,
  /** The key is not the group's key, or its format is invalid. */
  forbidden: 4403,
  /** The group does not exist. */
  groupNotFound: 4404,
  /** The client speaks a protocol version this server does not. */
  unsupportedProtocol: 4426,
  /** The group's access key was replaced (or its view-only link turned off): this key is gone. */
  keyChanged: 4410,
  /** Too many messages: the client should slow down before reconnecting. */
  tooManyMessages: 4429,
} as const;

/** The live channel's path under a group. */
export const livePath = (groupName: string) => `/api/groups/${encodeURIComponent(groupName)}/live`;
