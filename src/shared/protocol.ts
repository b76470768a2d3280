/**
 * The live channel protocol (WebSocket at /api/groups/{name}/live), both directions, defined once.
 *
 * 1. The client connects (no key in the URL) and sends `auth` with the key and its protocol version.
 * 2. The server answers `ready` with a full snapshot, then streams `changes` in commit order.
 *    A `ready` may arrive again at any time (after a missed change): it replaces the client's state.
 * 3. Either side may ping; the client may also send `mutate` and gets `ack` or `error` back.
 * Garbage, a wrong key or a too-old protocol closes the socket with one of CLOSE_CODES.
 */
import { z } from 'zod';
import {
  CounterSchema,
  ErrorCodeSchema,
  GroupSchema,
  MutationSchema,
  OperationIdSchema,
} from './api.js';

export const PROTOCOL_VERSION = 1;

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
  /** Too many messages: the client should slow down before reconnecting. */
  tooManyMessages: 4429,
} as const;

/** The live channel's path under a group. */
export const livePath = (groupName: string) =>
  `/api/groups/${encodeURIComponent(groupName)}/live`;

// ---- Client → server -------------------------------------------------------------------------

export const ClientMessageSchema = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('auth'),
    protocol: z.number().int(),
    key: z.string().max(256),
  }),
  z.strictObject({ type: z.literal('ping'), t: z.number().optional() }),
  z.strictObject({ type: z.literal('mutate'), opId: OperationIdSchema, mutation: MutationSchema }),
]);
export type ClientMessage = z.input<typeof ClientMessageSchema>;
export type ParsedClientMessage = z.output<typeof ClientMessageSchema>;

// ---- Server → client -------------------------------------------------------------------------

export const ChangeSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('counter.created'), seq: z.number().int(), counter: CounterSchema }),
  z.object({ type: z.literal('counter.updated'), seq: z.number().int(), counter: CounterSchema }),
  z.object({ type: z.literal('counter.deleted'), seq: z.number().int(), counterId: z.string() }),
  z.object({ type: z.literal('group.updated'), seq: z.number().int(), group: GroupSchema }),
]);
export type Change = z.infer<typeof ChangeSchema>;

export const ServerMessageSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('ready'),
    protocol: z.number().int(),
    group: GroupSchema,
    counters: z.array(CounterSchema),
    seq: z.number().int(),
  }),
  z.object({ type: z.literal('changes'), changes: z.array(ChangeSchema) }),
  z.object({ type: z.literal('ack'), opId: z.string() }),
  z.object({
    type: z.literal('error'),
    opId: z.string().optional(),
    error: z.object({ code: ErrorCodeSchema, message: z.string() }),
  }),
  z.object({ type: z.literal('pong'), t: z.number().optional() }),
]);
export type ServerMessage = z.infer<typeof ServerMessageSchema>;
