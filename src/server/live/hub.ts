/**
 * The live channel: one WebSocket per browser tab, authenticated by its first message, fed with
 * every committed change of its group. Each change batch is serialised once per group and the
 * same frame is written to every socket of the group.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { RawData, WebSocket } from 'ws';
import type { AccessLevel, GroupView, MutationResult } from '../../shared/api.js';
import { OPERATION_ID_PATTERN } from '../../shared/operation-ids.js';
import { MESSAGES } from '../../shared/messages.js';
import {
  CLOSE_CODES,
  ClientMessageSchema,
  PRESENCE_LIST_MAX,
  PROTOCOL_VERSION,
  type ParsedClientMessage,
  type ServerMessage,
} from '../../shared/protocol.js';
import type { Bus } from '../bus/types.js';
import type { StoreAvailability } from '../store/types.js';
import { memberName } from '../../shared/activity.js';
import { hashKey } from '../core/access.js';
import type { TallyService } from '../core/service.js';
import { viewWith } from '../core/snapshots.js';
import { DomainError } from '../errors.js';
import { MessageBudget } from '../security/message-budget.js';
import { DEFAULT_LIVE_MESSAGE_POLICY } from '../security/policy.js';
import type { BucketPolicy } from '../security/token-buckets.js';
import { ScopedFeed } from '../core/scope.js';
import { LINK_MESSAGES, type TapGrant } from '../../shared/links.js';
import { GAP_TIMEOUT_MS, GroupChannel, changesFrame, type ChannelMember } from './channel.js';
import { sendCorked, shareFrameOf, trackSocket } from './corked.js';
import { CLOSE_CODE_OF, liveErrorOf, type LiveError } from './errors.js';
import { SpreadHeartbeat } from './heartbeat.js';
import { LiveFairShare } from './fair-share.js';
import { TurnShares } from './turn-shares.js';
import { PresenceBoard, type Presence } from './presence.js';

/** A socket that has not authenticated by then is closed, ms. */
export const AUTH_TIMEOUT_MS = 10_000;
/** Server ping interval; a socket that missed the previous pong is dropped, ms. */
export const HEARTBEAT_MS = 30_000;
/** How long a peer that sent an invalid frame has to complete the close handshake, ms. */
const CLOSE_GRACE_MS = 1_000;
/** Messages a client may send while its authentication is still being checked. */
const MAX_EARLY_MESSAGES = 100;
/**
 * Longest a socket stays unread after one of its mutations was refused `busy`, ms: while the
 * commit queue is over its target the kernel holds the socket's data and TCP slows the sender;
 * the bound keeps a paused sender's own waiting (and its pongs) short.
 */
export const MAX_PAUSE_MS = 250;
/** An overload is logged at most this often, ms. */
const OVERLOAD_LOG_EVERY_MS = 60_000;
/** The `error` payload of a refused mutation, serialised once. */
const BUSY_ERROR_JSON = JSON.stringify({ code: 'busy', message: MESSAGES.busy });

/**
 * The commit queue's admission state (the Batcher): whether a mutation would be refused now,
 * and a signal when the queue is back under its target.
 */
export interface OverloadGate {
  readonly overloaded: boolean;
  /** Whether a mutation from this client address would be refused now (the greedy one is). */
  overloadedFor(client: string): boolean;
  onDrained(listener: () => void): () => void;
}

const NEVER_OVERLOADED: OverloadGate = {
  overloaded: false,
  overloadedFor: () => false,
  onDrained: () => () => undefined,
};

/** Why a socket was closed when its key stopped opening the group, by the key it used. */
const REVOKED_REASON: Record<AccessLevel, string> = {
  full: MESSAGES.keyChanged,
  view: MESSAGES.viewLinkChanged,
  tap: LINK_MESSAGES.revoked,
};

/** The `storage` frames, serialised once. */
const NOT_SAVING_FRAME = JSON.stringify({ type: 'storage', saving: false } satisfies ServerMessage);
const SAVING_FRAME = JSON.stringify({ type: 'storage', saving: true } satisfies ServerMessage);

type ClientState =
  | { phase: 'awaiting-auth' }
  | { phase: 'authenticating'; early: RawData[] }
  | {
      phase: 'joined';
      groupId: string;
      channel: GroupChannel;
      access: AccessLevel;
      /** The tap link it joined with, and what of the group it sees; null for the group's keys. */
      link: { grant: TapGrant; feed: ScopedFeed } | null;
      /** SHA-256 of the key it joined with (never the key), to re-check after key changes. */
      keyHash: string;
    }
  | { phase: 'closed' };

interface Client extends ChannelMember {
  socket: WebSocket;
  groupName: string;
  /** The peer's address: failed keys are rate-limited per address. */
  address: string | undefined;
  /** Messages this socket may still send (flood control). */
  budget: MessageBudget;
  state: ClientState;
  alive: boolean;
  authTimer: NodeJS.Timeout | undefined;
}

export interface LiveHubOptions {
  /** Changes committed on any instance, and presence from the others. */
  bus: Bus;
  service: TallyService;
  log: FastifyBaseLogger;
  /** How often each socket is pinged, ms; HEARTBEAT_MS unless given. */
  heartbeatMs?: number | undefined;
  /** How long a change waits for an older one before its channel resyncs, ms; GAP_TIMEOUT_MS unless given. */
  gapTimeoutMs?: number;
  /** What one socket may send, as a token bucket; DEFAULT_LIVE_MESSAGE_POLICY unless given. */
  messagePolicy?: BucketPolicy;
  /** Says when the commit queue is overloaded (sockets then pause); never, unless given. */
  gate?: OverloadGate;
  /** Whether the store can save now (PostgreSQL); absent: always. */
  availability?: StoreAvailability | undefined;
  /** Each address's share of the taps while the event loop is behind; one of its own unless given. */
  fairShare?: LiveFairShare;
}

export class LiveHub {
  private readonly channels = new Map<string, GroupChannel>();
  private readonly clients = new Set<Client>();
  private readonly heartbeat: SpreadHeartbeat<Client>;
  private readonly stopReconnectWatch: () => void;
  private readonly presence: PresenceBoard;
  /** Sockets paused because the commit queue refused one of their mutations. */
  private readonly paused = new Set<Client>();
  private pauseTimer: NodeJS.Timeout | undefined;
  private readonly stopDrainWatch: () => void;
  private readonly stopAvailabilityWatch: () => void;
  private lastOverloadLog = -Infinity;

  private readonly bus: Bus;
  private readonly service: TallyService;
  private readonly log: FastifyBaseLogger;
  private readonly gapTimeoutMs: number;
  private readonly messagePolicy: BucketPolicy;
  private readonly gate: OverloadGate;
  private readonly availability: StoreAvailability | undefined;
  private readonly fairShare: LiveFairShare;
  /** Each address's share of one turn of the event loop (turn-shares.ts). */
  private readonly turns = new TurnShares<Client, RawData>({
    handle: (client, data) => {
      this.receive(client, data);
    },
    addressOf: (client) => clientOf(client),
    pause: (client) => {
      client.socket.pause();
    },
    resume: (client) => {
      // Unless refusing `busy` paused it meanwhile: that pause ends on its own timer.
      if (!this.paused.has(client) && !this.pausedAlone.has(client)) client.socket.resume();
    },
    closed: (client) => client.state.phase === 'closed',
    shared: () => this.socketsByAddress.size > 1,
  });
  /** Open sockets by address (turn shares apply once there are two addresses). */
  private readonly socketsByAddress = new Map<string, number>();
  /** Sockets of addresses over their share, paused on timers of their own (pauseAlone). */
  private readonly pausedAlone = new Set<Client>();

  constructor({
    bus,
    service,
    log,
    heartbeatMs = HEARTBEAT_MS,
    gapTimeoutMs = GAP_TIMEOUT_MS,
    messagePolicy = DEFAULT_LIVE_MESSAGE_POLICY,
    gate = NEVER_OVERLOADED,
    availability,
    fairShare = new LiveFairShare(),
  }: LiveHubOptions) {
    this.fairShare = fairShare;
    this.bus = bus;
    this.service = service;
    this.log = log;
    this.gapTimeoutMs = gapTimeoutMs;
    this.messagePolicy = messagePolicy;
    this.gate = gate;
    this.availability = availability;
    this.stopDrainWatch = gate.onDrained(() => {
      this.resumeAll();
    });
    // The feed of changes was interrupted (another instance's database listener reconnected):
    // what was missed is unknown, so every channel reloads and resends its snapshot.
    this.stopReconnectWatch = bus.onReconnect(() => {
      this.resyncAll();
    });
    // The database went away: members are told that changes are not being saved (their devices
    // keep them). Back: they are told, and get fresh snapshots, since a batch whose connection
    // was cut during COMMIT may have committed without this instance delivering it.
    this.stopAvailabilityWatch =
      availability?.onChange((saving) => {
        this.broadcastAll(saving ? SAVING_FRAME : NOT_SAVING_FRAME);
        if (saving) this.resyncAll();
      }) ?? (() => undefined);
    this.presence = new PresenceBoard(bus, (groupId, presence) => {
      this.channels.get(groupId)?.broadcast(presenceFrame(presence));
    });
    this.heartbeat = new SpreadHeartbeat(heartbeatMs, (client) => {
      this.beat(client);
    });
  }

  get connectionCount(): number {
    return this.clients.size;
  }

  attach(socket: WebSocket, groupName: string, address?: string): void {
    const client: Client = {
      socket,
      groupName,
      address,
      budget: new MessageBudget(this.messagePolicy),
      state: { phase: 'awaiting-auth' },
      alive: true,
      authTimer: undefined,
      sendSnapshot: (snapshot) => {
        const { state } = client;
        if (state.phase !== 'joined') return;
        const { link } = state;
        // The snapshot's bytes are made once and written by reference to every socket that
        // gets it (core/snapshots.ts); only the frame's first fields are this socket's own.
        const ready = {
          type: 'ready',
          protocol: PROTOCOL_VERSION,
          access: state.access,
          ...(link ? { link: link.grant } : {}),
        } satisfies Omit<Extract<ServerMessage, { type: 'ready' }>, keyof GroupView>;
        const { head, tail } = viewWith(link ? link.feed.start(snapshot) : snapshot, ready);
        sendCorked(socket, shareFrameOf(head, tail));
      },
      sendFrame: (frame) => {
        if (client.state.phase !== 'closed') sendCorked(socket, frame);
      },
      seesPart: () => client.state.phase === 'joined' && client.state.link !== null,
      sendChanges: (changes) => {
        const { state } = client;
        if (state.phase !== 'joined') return;
        const seen = state.link ? state.link.feed.filter(changes) : changes;
        if (seen.length > 0) sendCorked(socket, changesFrame(seen));
      },
      stillOpens: (group) => {
        const { state } = client;
        if (state.phase !== 'joined') return false;
        switch (state.access) {
          case 'full':
            return group.keyHash === state.keyHash;
          case 'view':
            return group.viewKeyHash === state.keyHash;
          case 'tap':
            return group.tapLinks.some(
              (link) => link.keyHash === state.keyHash && link.revokedAt === null,
            );
        }
      },
      revoke: () => {
        // A link dies when it is revoked, turned off or the access key changes: say which one.
        const access = client.state.phase === 'joined' ? client.state.access : 'full';
        this.close(client, CLOSE_CODES.keyChanged, REVOKED_REASON[access]);
      },
    };
    client.authTimer = setTimeout(() => {
      this.close(client, CLOSE_CODES.unauthorized, 'Authentication timed out');
    }, AUTH_TIMEOUT_MS);
    this.clients.add(client);
    const peer = clientOf(client);
    this.socketsByAddress.set(peer, (this.socketsByAddress.get(peer) ?? 0) + 1);
    this.heartbeat.add(client);
    trackSocket(socket, address);
    socket.on('pong', () => {
      client.alive = true;
    });
    socket.on('message', (data) => {
      client.alive = true;
      // Read only to finish the close handshake (close): nothing more is handled or queued.
      if (client.state.phase === 'closed') return;
      if (!client.budget.take()) {
        this.close(client, CLOSE_CODES.tooManyMessages, 'Too many messages');
        return;
      }
      // Handled now, or in a later turn if its address has had its share of this one.
      this.turns.offer(client, data);
    });
    socket.on('close', () => {
      this.forget(client);
    });
    // An invalid frame (bad UTF-8, too big): ws has already sent the close frame with its code
    // (1007, 1009); terminating at once could cut that frame off and leave the client with a
    // bare 1006, so the peer gets a moment to finish the handshake. 'close' cleans up.
    socket.on('error', () => {
      setTimeout(() => {
        socket.terminate();
      }, CLOSE_GRACE_MS).unref();
    });
  }

  /** Closes every socket with a code and reason (graceful stop: clients reconnect elsewhere). */
  closeAll(code: number, reason: string): void {
    this.heartbeat.stop();
    this.fairShare.close();
    this.stopReconnectWatch();
    this.stopDrainWatch();
    this.stopAvailabilityWatch();
    this.resumeAll();
    this.presence.close();
    for (const client of [...this.clients]) this.close(client, code, reason);
  }

  // ---- incoming ------------------------------------------------------------------------------

  private receive(client: Client, data: RawData): void {
    const { state } = client;
    if (state.phase === 'closed') return;
    if (state.phase === 'authenticating') {
      if (state.early.length >= MAX_EARLY_MESSAGES) {
        this.close(client, CLOSE_CODES.tooManyMessages, 'Too many messages before ready');
      } else state.early.push(data);
      return;
    }
    const json = decode(data);
    if (state.phase === 'joined' && this.shed(client, json)) return;
    const message = validate(json);
    if (!message) {
      this.close(client, CLOSE_CODES.badMessage, 'Invalid message');
      return;
    }
    if (state.phase === 'awaiting-auth') {
      if (message.type !== 'auth') {
        this.close(client, CLOSE_CODES.unauthorized, 'Authenticate first');
        return;
      }
      void this.authenticate(client, message);
      return;
    }
    this.handle(client, state.groupId, message);
  }

  private handle(client: Client, groupId: string, message: ParsedClientMessage): void {
    switch (message.type) {
      case 'auth':
        this.close(client, CLOSE_CODES.badMessage, 'Already authenticated');
        return;
      case 'member':
        this.presence.rename(groupId, client, memberName(message.name));
        return;
      case 'ping':
        this.send(
          client,
          message.t === undefined ? { type: 'pong' } : { type: 'pong', t: message.t },
        );
        return;
      case 'mutate': {
        const { opId, mutation, actor } = message;
        if (client.state.phase !== 'joined' || client.state.access === 'view') {
          this.send(client, {
            type: 'error',
            opId,
            error: { code: 'read_only', message: MESSAGES.readOnly },
          });
          return;
        }
        // A tap link's change is held to its scope and rights by the commit (tap_only otherwise).
        const link = client.state.link?.grant ?? null;
        this.service
          .mutate(groupId, mutation, { opId, actor, link, client: clientOf(client) })
          .then(
            (result) => {
              if (client.state.phase !== 'closed')
                sendCorked(client.socket, ackFrame(opId, result));
            },
            (error: unknown) => {
              if (error instanceof DomainError && error.code === 'busy') {
                this.refuseBusy(client, opId);
                return;
              }
              this.send(client, { type: 'error', opId, error: this.describe(error) });
            },
          );
        return;
      }
    }
  }

  private async authenticate(
    client: Client,
    { protocol, key, member }: Extract<ParsedClientMessage, { type: 'auth' }>,
  ): Promise<void> {
    clearTimeout(client.authTimer);
    if (protocol !== PROTOCOL_VERSION) {
      this.close(client, CLOSE_CODES.unsupportedProtocol, `Protocol ${PROTOCOL_VERSION} required`);
      return;
    }
    const early: RawData[] = [];
    client.state = { phase: 'authenticating', early };
    let groupId: string;
    let access: AccessLevel;
    let grant: TapGrant | null;
    try {
      const opened = await this.service.access(client.groupName, key, client.address);
      groupId = opened.group.id;
      access = opened.access;
      grant = opened.link;
    } catch (error) {
      const { code, message } = this.describe(error);
      this.close(client, CLOSE_CODE_OF[code], message);
      return;
    }
    if (isClosed(client)) return;
    const channel = this.channelFor(groupId);
    client.state = {
      phase: 'joined',
      groupId,
      channel,
      access,
      link: grant ? { grant, feed: new ScopedFeed(grant) } : null,
      keyHash: hashKey(key),
    };
    // Messages sent right after auth (a tap before the snapshot) are handled now; their changes
    // reach the client after its snapshot.
    for (const data of early) this.receive(client, data);
    try {
      await channel.add(client);
    } catch (error) {
      this.log.error({ err: error }, 'live snapshot failed');
      this.close(client, CLOSE_CODES.goingAway, 'Could not load group');
      return;
    }
    if (isClosed(client)) return;
    if (this.availability?.saving === false) this.send(client, { type: 'storage', saving: false });
    // Joining announces the member to everyone (itself included); a socket without a member
    // still sees who is here.
    if (member)
      this.presence.join(groupId, client, { id: member.id, name: memberName(member.name) });
    else sendCorked(client.socket, presenceFrame(this.presence.presenceOf(groupId)));
  }

  private channelFor(groupId: string): GroupChannel {
    let channel = this.channels.get(groupId);
    if (!channel) {
      channel = new GroupChannel({
        bus: this.bus,
        groupId,
        loadSnapshot: () => this.service.snapshot(groupId),
        loadGroup: () => this.service.currentGroup(groupId),
        log: this.log,
        gapTimeoutMs: this.gapTimeoutMs,
      });
      this.channels.set(groupId, channel);
    }
    return channel;
  }

  private resyncAll(): void {
    for (const channel of this.channels.values()) {
      channel.resync().catch((error: unknown) => {
        this.log.error({ err: error }, 'live resync failed');
      });
    }
  }

  /** One frame to every joined socket of every group. */
  private broadcastAll(text: string): void {
    for (const channel of this.channels.values()) channel.broadcast(text);
  }

  // ---- overload (ADR 13) ---------------------------------------------------------------------

  /**
   * While the commit queue is over its target, a mutation is refused `busy` before zod and the
   * service see it: shedding must cost far less than applying, or more load would mean less work
   * done. Anything that is not a well-formed mutation from a member who may change something (the
   * access key, a tap link) takes the normal path. Returns whether the message was handled.
   */
  private shed(client: Client, json: unknown): boolean {
    const { state } = client;
    if (state.phase !== 'joined' || state.access === 'view') return false;
    if (typeof json !== 'object' || json === null) return false;
    const { type, opId } = json as { type?: unknown; opId?: unknown };
    // A valid operation id (OperationIdSchema), checked without zod on the shedding path.
    if (type !== 'mutate' || typeof opId !== 'string' || !OPERATION_ID_PATTERN.test(opId))
      return false;
    const address = clientOf(client);
    // An address over its share while the loop is behind (fair-share.ts), or past capacity a
    // client holding more than its share of the commit queue (batcher.ts), waits; others don't.
    if (this.fairShare.overShare(address)) {
      this.refuseBusy(client, opId, { alone: true });
      return true;
    }
    if (!this.gate.overloaded || !this.gate.overloadedFor(address)) return false;
    this.refuseBusy(client, opId);
    return true;
  }

  /** Answers `busy` (the operation was not applied: a retry applies it once) and pauses reading. */
  private refuseBusy(client: Client, opId: string, { alone = false } = {}): void {
    if (client.state.phase === 'closed') return;
    sendCorked(
      client.socket,
      `{"type":"error","opId":${JSON.stringify(opId)},"error":${BUSY_ERROR_JSON}}`,
    );
    if (alone) this.pauseAlone(client);
    else this.pause(client);
    const now = performance.now();
    if (now - this.lastOverloadLog >= OVERLOAD_LOG_EVERY_MS) {
      this.lastOverloadLog = now;
      this.log.warn('overloaded: refusing live mutations with busy');
    }
  }

  /** Stops reading a socket (TCP flow control slows its sender) for at most MAX_PAUSE_MS. */
  private pause(client: Client): void {
    if (client.socket.isPaused) return;
    client.socket.pause();
    this.paused.add(client);
    this.pauseTimer ??= setTimeout(() => {
      this.resumeAll();
    }, MAX_PAUSE_MS);
  }

  /**
   * Stops reading a socket of an address over its share for MAX_PAUSE_MS to three times that,
   * on a timer of its own: the flood's many sockets come back spread out, not all in one turn
   * (each brings what its sender wrote meanwhile).
   */
  private pauseAlone(client: Client): void {
    if (this.pausedAlone.has(client)) return;
    client.socket.pause();
    this.pausedAlone.add(client);
    const resume = () => {
      this.pausedAlone.delete(client);
      if (client.state.phase !== 'closed') client.socket.resume();
    };
    setTimeout(resume, MAX_PAUSE_MS * (1 + 2 * Math.random())).unref();
  }

  private resumeAll(): void {
    clearTimeout(this.pauseTimer);
    this.pauseTimer = undefined;
    for (const client of this.paused) client.socket.resume();
    this.paused.clear();
  }

  // ---- lifecycle -----------------------------------------------------------------------------

  /** Once per heartbeat interval for each client (live/heartbeat.ts spreads them out). */
  private beat(client: Client): void {
    if (!client.alive) {
      client.socket.terminate();
      this.forget(client);
      return;
    }
    client.alive = false;
    client.socket.ping();
  }

  private send(client: Client, message: ServerMessage): void {
    if (client.state.phase !== 'closed') sendCorked(client.socket, JSON.stringify(message));
  }

  private close(client: Client, code: number, reason: string): void {
    if (client.state.phase === 'closed') return;
    this.forget(client);
    // A socket the fair share or the overload gate paused is read again: the close handshake
    // ends when the peer's close frame is read, and ws would otherwise wait its own close
    // timeout (30 s) before dropping the socket, holding up a server's shutdown as long.
    client.socket.resume();
    // Close reasons are limited to 123 bytes (RFC 6455 §5.5).
    client.socket.close(code, Buffer.from(reason).subarray(0, 123).toString());
  }

  private forget(client: Client): void {
    const { state } = client;
    clearTimeout(client.authTimer);
    client.state = { phase: 'closed' };
    // Forgotten once: a socket closed by the server is forgotten again by its 'close' event.
    if (this.clients.delete(client)) this.forgetAddress(clientOf(client));
    this.heartbeat.delete(client);
    this.paused.delete(client);
    this.pausedAlone.delete(client);
    this.turns.forget(client);
    if (state.phase !== 'joined') return;
    state.channel.remove(client);
    this.presence.leave(state.groupId, client);
    if (state.channel.size === 0 && this.channels.get(state.groupId) === state.channel) {
      state.channel.close();
      this.channels.delete(state.groupId);
    }
  }

  private forgetAddress(address: string): void {
    const sockets = (this.socketsByAddress.get(address) ?? 1) - 1;
    if (sockets > 0) this.socketsByAddress.set(address, sockets);
    else this.socketsByAddress.delete(address);
  }

  private describe(error: unknown): LiveError {
    return liveErrorOf(error, (unexpected) => {
      this.log.error({ err: unexpected }, 'live operation failed');
    });
  }
}

/** Whose share of the commit queue a socket's mutations take: its peer's address. */
const clientOf = (client: Client): string => client.address ?? 'unknown';

/**
 * Who is here, as sent: everyone up to PRESENCE_LIST_MAX; past that their number and the first
 * ones by name, so a crowd's presence frame stays the same size however many join. The number
 * is also sent when fewer are listed than there are (other instances' lists were cut).
 */
export function presenceFrame({ members, count }: Presence): string {
  const listed = members.slice(0, PRESENCE_LIST_MAX);
  const message: ServerMessage =
    count <= listed.length
      ? { type: 'presence', members: listed }
      : { type: 'presence', members: listed, count };
  return JSON.stringify(message);
}

/** The JSON value of a frame; undefined when it is not JSON. */
function decode(data: RawData): unknown {
  try {
    const bytes = Array.isArray(data)
      ? Buffer.concat(data)
      : Buffer.isBuffer(data)
        ? data
        : Buffer.from(new Uint8Array(data));
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    return undefined;
  }
}

function validate(json: unknown): ParsedClientMessage | undefined {
  if (json === undefined) return undefined;
  const result = ClientMessageSchema.safeParse(json);
  return result.success ? result.data : undefined;
}

/**
 * Taps committed together share one result object (domain/taps.ts adjustOutcomes): it is serialised once and
 * each ack is built around it, instead of serialising the same row once per tap.
 */
const resultJson = new WeakMap<MutationResult, string>();

function ackFrame(opId: string, result: MutationResult): string {
  let json = resultJson.get(result);
  if (json === undefined) {
    json = JSON.stringify(result);
    resultJson.set(result, json);
  }
  return `{"type":"ack","opId":${JSON.stringify(opId)},"result":${json}}`;
}

/** Re-reads the state after an await (TypeScript keeps the narrowing from before it). */
function isClosed(client: Client): boolean {
  return client.state.phase === 'closed';
}
