/**
 * The live channel protocol (WebSocket at /api/groups/{name}/live), both directions, defined once.
 *
 * 1. The client connects (no key in the URL) and sends `auth` with the key and its protocol version.
 * 2. The server answers `ready` with a full snapshot, then streams `changes` in commit order.
 *    A `ready` may arrive again at any time (after a missed change): it replaces the client's state.
 * 3. Either side may ping; the client may also send `mutate` and gets `ack` or `error` back.
 * Garbage, a wrong key or a too-old protocol closes the socket with one of CLOSE_CODES (live.ts).
 */
import { z } from 'zod';
import { TapGrantSchema } from './links.js';
import {
  AccessLevelSchema,
  CounterSchema,
  ErrorCodeSchema,
  GroupSchema,
  MutationResultSchema,
  MutationSchema,
  OperationIdSchema,
} from './api.js';
import { TEXT_MAX_LENGTH } from './limits.js';
export { CLOSE_CODES, PRESENCE_LIST_MAX, PROTOCOL_VERSION, livePath } from './live.js';

// ---- Client → server -------------------------------------------------------------------------

/**
 * Who is here (presence): a browser's own random id (one per person, shared by their tabs) and
 * display name. Known only while sockets are open; never stored.
 */
export const PresenceMemberSchema = z.object({
  id: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/),
  name: z.string().max(TEXT_MAX_LENGTH),
});
export type PresenceMember = z.infer<typeof PresenceMemberSchema>;

export const ClientMessageSchema = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('auth'),
    protocol: z.number().int(),
    key: z.string().max(256),
    /** Announces this member to the others (presence); a socket without it is not listed. */
    member: PresenceMemberSchema.strict().optional(),
  }),
  /** The member renamed themself ('Signed in as …'). */
  z.strictObject({ type: z.literal('member'), name: z.string().max(TEXT_MAX_LENGTH) }),
  z.strictObject({ type: z.literal('ping'), t: z.number().optional() }),
  z.strictObject({
    type: z.literal('mutate'),
    opId: OperationIdSchema,
    mutation: MutationSchema,
    /** The member's display name, for the activity log (cut to 100 characters). */
    actor: z.string().max(TEXT_MAX_LENGTH).optional(),
  }),
]);
export type ClientMessage = z.input<typeof ClientMessageSchema>;
export type ParsedClientMessage = z.output<typeof ClientMessageSchema>;

// ---- Server → client -------------------------------------------------------------------------

/**
 * `seq` orders a group's changes. `opIds` are the client operation ids of the mutations that made
 * the change, when clients gave them (taps on one counter committed together make one change):
 * a client recognises its own change and drops its optimistic copy in the same step; everybody
 * else ignores them.
 */
const changeBase = { seq: z.number().int(), opIds: z.array(z.string()).optional() };
export const ChangeSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('counter.created'), ...changeBase, counter: CounterSchema }),
  z.object({
    type: z.literal('counter.updated'),
    ...changeBase,
    counter: CounterSchema,
    /**
     * This change took the counter to its goal (from below or above): the member whose change
     * reached it, as the activity log names them. Once per crossing, not on later changes.
     */
    goalReachedBy: z.string().optional(),
  }),
  z.object({ type: z.literal('counter.deleted'), ...changeBase, counterId: z.string() }),
  z.object({ type: z.literal('group.updated'), ...changeBase, group: GroupSchema }),
  /** The group's counters in their new order (every counter, each once). */
  z.object({
    type: z.literal('counters.reordered'),
    ...changeBase,
    counterIds: z.array(z.string()),
  }),
  /**
   * The access key or the view-only link changed. Nothing to apply: sockets whose key no longer
   * opens the group are closed with CLOSE_CODES.keyChanged right after it.
   */
  z.object({ type: z.literal('group.accessChanged'), ...changeBase }),
]);
export type Change = z.infer<typeof ChangeSchema>;

export const ServerMessageSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('ready'),
    protocol: z.number().int(),
    group: GroupSchema,
    counters: z.array(CounterSchema),
    seq: z.number().int(),
    access: AccessLevelSchema,
    /** With a tap link's key: the link; `counters` and every later change are its scope's. */
    link: TapGrantSchema.optional(),
  }),
  z.object({
    type: z.literal('changes'),
    changes: z.array(ChangeSchema),
    /**
     * Sent by a large group (docs/api.md, Live channel): the frame covers every change numbered
     * from `from` to its last change's `seq`; those not in it were folded into a later change of
     * the same counter, in it or in the next frames of the same window, sent right after (the
     * counter as it is after them; `opIds` of what it folds while they are few, none past that:
     * each member's own operations are answered by their `ack` or HTTP answer). Absent: nothing
     * folded, the frame starts at its first change.
     */
    from: z.number().int().optional(),
  }),
  /** The outcome of a `mutate`, like the REST answer; sent after the change itself. */
  z.object({ type: z.literal('ack'), opId: z.string(), result: MutationResultSchema }),
  z.object({
    type: z.literal('error'),
    opId: z.string().optional(),
    error: z.object({ code: ErrorCodeSchema, message: z.string() }),
  }),
  z.object({ type: z.literal('pong'), t: z.number().optional() }),
  /**
   * Who is here now, one entry per member id, sent after `ready` and on every change. Up to
   * PRESENCE_LIST_MAX members, every one of them; past that, `count` says how many there are and
   * `members` lists the first PRESENCE_LIST_MAX by name. `count` is also there whenever fewer are
   * listed than counted: other instances announce their members cut to one notification beside
   * how many they have (ADR 33).
   */
  z.object({
    type: z.literal('presence'),
    members: z.array(PresenceMemberSchema),
    count: z.number().int().optional(),
  }),
  /**
   * Whether the server can save changes right now. `false` while its database is away: changes
   * are answered `storage_unavailable` and the member's device keeps them. `true` once it is
   * back, followed by a fresh `ready`. Sent only when it changes, and `false` after a `ready`
   * while still away; a `ready` without it means saving.
   */
  z.object({ type: z.literal('storage'), saving: z.boolean() }),
]);
export type ServerMessage = z.infer<typeof ServerMessageSchema>;
