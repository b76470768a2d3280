/**
 * The live channel client: one WebSocket per tab, authenticated by its first message.
 * It reconnects by itself with exponential backoff and jitter, right away when the browser comes
 * back online or the tab becomes visible again (a laptop waking up), and pings at application
 * level because browsers cannot see WebSocket ping frames: a connection that stops answering is
 * dropped and replaced instead of silently showing stale values.
 */
import type { Change, PresenceMember, ServerMessage } from '../../shared/protocol.js';
import { CLOSE_CODES, PROTOCOL_VERSION, livePath } from '../../shared/live.js';
import type { GroupAuth } from '../lib/api.js';

export type LiveStatus = 'connecting' | 'live' | 'offline';
export type ReadyMessage = Extract<ServerMessage, { type: 'ready' }>;

export interface LiveHandlers {
  onReady(message: ReadyMessage): void;
  onChanges(changes: Change[]): void;
  onStatus(status: LiveStatus): void;
  /** The server refused this group or key for good: reconnecting would not help. */
  onFatal(code: number, reason: string): void;
  /**
   * Who is here now (presence): every member, or in a crowd the first ones by name; `count`:
   * how many there are in all.
   */
  onPresence?(members: PresenceMember[], count: number): void;
  /** Whether the server can save changes now (false while its database is away). */
  onStorage?(saving: boolean): void;
}

/** Idle time before the client checks the connection with a ping, ms. */
export const PING_INTERVAL_MS = 20_000;
/** A ping not answered (by anything) within this time means the connection is dead, ms. */
export const PONG_TIMEOUT_MS = 8_000;
/** Connecting and authenticating must finish within this time, ms. */
export const READY_TIMEOUT_MS = 10_000;
/** First reconnect delay and its cap, ms (doubling, with jitter). */
export const RECONNECT_BASE_MS = 500;
export const RECONNECT_MAX_MS = 15_000;
/**
 * The cap while the server is restarting (it closed with 1001, going away), ms: a restart takes
 * seconds, and the page should be live again within a few seconds of the server being back.
 */
export const RESTART_RECONNECT_MAX_MS = 3_000;

const FATAL_CODES: ReadonlySet<number> = new Set([
  CLOSE_CODES.forbidden,
  CLOSE_CODES.groupNotFound,
  CLOSE_CODES.unsupportedProtocol,
  CLOSE_CODES.keyChanged,
]);

export class LiveConnection {
  private socket: WebSocket | null = null;
  private status: LiveStatus = 'connecting';
  private attempt = 0;
  /** The last live socket ended with the server going away (1001), and none is live yet. */
  private serverRestarting = false;
  private stopped = false;
  private reconnectTimer: ReturnType<typeof setTimeout> | undefined;
  private pingTimer: ReturnType<typeof setTimeout> | undefined;
  private deadlineTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    /** The group to join and the key its first message authenticates with. */
    private readonly group: GroupAuth,
    private readonly handlers: LiveHandlers,
    /** This browser's presence entry; its name can change while connected. */
    private readonly member: PresenceMember | null = null,
  ) {}

  /** The member renamed themself: tell the others now, and use the name on reconnects. */
  rename(name: string): void {
    if (!this.member) return;
    this.member.name = name;
    const socket = this.socket;
    if (socket && socket.readyState === WebSocket.OPEN && this.status === 'live') {
      socket.send(JSON.stringify({ type: 'member', name }));
    }
  }

  start(): void {
    window.addEventListener('online', this.handleOnline);
    window.addEventListener('offline', this.handleOffline);
    document.addEventListener('visibilitychange', this.handleVisibility);
    this.connect();
  }

  stop(): void {
    this.stopped = true;
    window.removeEventListener('online', this.handleOnline);
    window.removeEventListener('offline', this.handleOffline);
    document.removeEventListener('visibilitychange', this.handleVisibility);
    clearTimeout(this.reconnectTimer);
    this.clearLiveness();
    const socket = this.socket;
    this.socket = null;
    if (socket) {
      detach(socket);
      socket.close(1000, 'Leaving');
    }
  }

  private connect(): void {
    clearTimeout(this.reconnectTimer);
    if (this.stopped || this.socket) return;
    const scheme = window.location.protocol === 'https:' ? 'wss:' : 'ws:';
    let socket: WebSocket;
    try {
      socket = new WebSocket(`${scheme}//${window.location.host}${livePath(this.group.slug)}`);
    } catch {
      this.closed(0);
      return;
    }
    this.socket = socket;
    this.armDeadline(READY_TIMEOUT_MS);
    socket.onopen = () => {
      socket.send(
        JSON.stringify({
          type: 'auth',
          protocol: PROTOCOL_VERSION,
          key: this.group.key,
          ...(this.member ? { member: { ...this.member } } : {}),
        }),
      );
    };
    socket.onmessage = (event: MessageEvent) => {
      if (this.socket === socket && typeof event.data === 'string') this.receive(event.data);
    };
    socket.onclose = (event: CloseEvent) => {
      if (this.socket !== socket) return;
      this.socket = null;
      this.closed(event.code, event.reason);
    };
  }

  private receive(data: string): void {
    let message: ServerMessage;
    try {
      message = JSON.parse(data) as ServerMessage;
    } catch {
      return;
    }
    // Any message proves the connection is alive.
    clearTimeout(this.deadlineTimer);
    this.schedulePing();
    switch (message.type) {
      case 'ready':
        this.attempt = 0;
        this.serverRestarting = false;
        this.setStatus('live');
        this.handlers.onReady(message);
        return;
      case 'changes':
        this.handlers.onChanges(message.changes);
        return;
      case 'presence':
        this.handlers.onPresence?.(message.members, message.count ?? message.members.length);
        return;
      case 'storage':
        this.handlers.onStorage?.(message.saving);
        return;
      case 'pong':
      case 'ack':
      case 'error':
        return;
    }
  }

  private ping(): void {
    const socket = this.socket;
    if (!socket || socket.readyState !== WebSocket.OPEN) return;
    socket.send(JSON.stringify({ type: 'ping', t: Date.now() }));
    this.armDeadline(PONG_TIMEOUT_MS);
  }

  private schedulePing(): void {
    clearTimeout(this.pingTimer);
    this.pingTimer = setTimeout(() => {
      this.ping();
    }, PING_INTERVAL_MS);
  }

  private armDeadline(ms: number): void {
    clearTimeout(this.deadlineTimer);
    this.deadlineTimer = setTimeout(() => {
      this.abandon();
    }, ms);
  }

  private clearLiveness(): void {
    clearTimeout(this.pingTimer);
    clearTimeout(this.deadlineTimer);
  }

  /**
   * Gives up on the current socket without waiting for a close handshake, which a dead network
   * path would never complete.
   */
  private abandon(): void {
    const socket = this.socket;
    if (!socket) return;
    this.socket = null;
    detach(socket);
    try {
      socket.close(4000, 'Connection check failed');
    } catch {
      // Already closing.
    }
    this.closed(0);
  }

  private closed(code: number, reason = ''): void {
    this.clearLiveness();
    if (this.stopped) return;
    this.setStatus('offline');
    if (FATAL_CODES.has(code)) {
      this.handlers.onFatal(code, reason);
      return;
    }
    if (code === CLOSE_CODES.tooManyMessages) this.attempt = Math.max(this.attempt, 4);
    if (code === CLOSE_CODES.goingAway) this.serverRestarting = true;
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    clearTimeout(this.reconnectTimer);
    // Without a network there is nothing to try: the online event reconnects.
    if (!navigator.onLine) return;
    const max = this.serverRestarting ? RESTART_RECONNECT_MAX_MS : RECONNECT_MAX_MS;
    const ceiling = Math.min(max, RECONNECT_BASE_MS * 2 ** this.attempt);
    const delay = ceiling / 2 + Math.random() * (ceiling / 2);
    this.attempt += 1;
    this.reconnectTimer = setTimeout(() => {
      this.connect();
    }, delay);
  }

  private setStatus(status: LiveStatus): void {
    if (status === this.status) return;
    this.status = status;
    this.handlers.onStatus(status);
  }

  private reconnectNow(): void {
    if (this.stopped) return;
    if (this.socket) {
      // Possibly a zombie after sleep: make it prove itself.
      this.ping();
      return;
    }
    this.attempt = 0;
    this.connect();
  }

  private readonly handleOnline = () => {
    this.reconnectNow();
  };

  private readonly handleOffline = () => {
    this.abandon();
  };

  private readonly handleVisibility = () => {
    if (document.visibilityState === 'visible') this.reconnectNow();
  };
}

function detach(socket: WebSocket): void {
  socket.onopen = null;
  socket.onmessage = null;
  socket.onclose = null;
}
