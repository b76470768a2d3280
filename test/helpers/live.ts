/** A real WebSocket client of the live channel that records what it receives. */
import WebSocket from 'ws';
import type { Counter } from '../../src/shared/api.js';
import {
  PROTOCOL_VERSION,
  livePath,
  type Change,
  type ClientMessage,
  type ServerMessage,
} from '../../src/shared/protocol.js';

export interface LiveClient {
  socket: WebSocket;
  messages: ServerMessage[];
  /** Counters as this client sees them, applying changes the way a browser does. */
  counters: Map<string, Counter>;
  send(message: ClientMessage): void;
  /**
   * Resolves with the first message (already received or future) that matches; rejects at once,
   * with the close code, if the socket closes without one (nothing can arrive after the close).
   */
  waitFor<T extends ServerMessage>(
    match: (message: ServerMessage) => message is T,
    timeoutMs?: number,
  ): Promise<T>;
  waitUntil(condition: () => boolean, timeoutMs?: number): Promise<void>;
  closed: Promise<{ code: number; reason: string }>;
  close(): void;
}

/** Options of a test socket: `localAddress` makes it another client address (127.0.0.x). */
export interface LiveOptions {
  localAddress?: string;
}

export function connectLive(
  wsUrl: string,
  groupName: string,
  options: LiveOptions = {},
): Promise<LiveClient> {
  const socket = new WebSocket(wsUrl + livePath(groupName), options);
  const messages: ServerMessage[] = [];
  const counters = new Map<string, Counter>();
  const listeners = new Set<() => void>();
  let closeCode: number | undefined;
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    socket.on('close', (code, reason) => {
      closeCode = code;
      resolve({ code, reason: reason.toString() });
      for (const listener of listeners) listener();
    });
  });
  socket.on('message', (data: Buffer) => {
    const message = JSON.parse(data.toString()) as ServerMessage;
    messages.push(message);
    if (message.type === 'ready') {
      counters.clear();
      for (const counter of message.counters) counters.set(counter.id, counter);
    } else if (message.type === 'changes') {
      for (const change of message.changes) apply(counters, change);
    }
    for (const listener of listeners) listener();
  });

  const waitUntil = (condition: () => boolean, timeoutMs = 5_000) =>
    new Promise<void>((resolve, reject) => {
      if (condition()) {
        resolve();
        return;
      }
      const timer = setTimeout(() => {
        listeners.delete(check);
        reject(new Error('timed out waiting for live condition'));
      }, timeoutMs);
      const check = () => {
        if (!condition()) return;
        clearTimeout(timer);
        listeners.delete(check);
        resolve();
      };
      listeners.add(check);
    });

  const client: LiveClient = {
    socket,
    messages,
    counters,
    send: (message) => {
      socket.send(JSON.stringify(message));
    },
    async waitFor(match, timeoutMs) {
      await waitUntil(() => messages.some(match) || closeCode !== undefined, timeoutMs);
      const found = messages.find(match);
      if (found === undefined) {
        throw new Error(`socket closed with ${String(closeCode)} before the message waited for`);
      }
      return found as never;
    },
    waitUntil,
    closed,
    close: () => {
      socket.close();
    },
  };
  return new Promise((resolve, reject) => {
    socket.once('open', () => {
      resolve(client);
    });
    socket.once('error', reject);
  });
}

/** Connects and authenticates; resolves once the snapshot has arrived. */
export async function joinLive(
  wsUrl: string,
  groupName: string,
  key: string,
  options: LiveOptions = {},
): Promise<LiveClient> {
  const client = await connectLive(wsUrl, groupName, options);
  client.send({ type: 'auth', protocol: PROTOCOL_VERSION, key });
  await client.waitFor(isReady);
  return client;
}

export const isReady = (m: ServerMessage): m is Extract<ServerMessage, { type: 'ready' }> =>
  m.type === 'ready';
export const isChanges = (m: ServerMessage): m is Extract<ServerMessage, { type: 'changes' }> =>
  m.type === 'changes';

/**
 * Applies a change as a client does: insert skips duplicates, update merges (if newer), delete
 * removes.
 */
function apply(counters: Map<string, Counter>, change: Change): void {
  switch (change.type) {
    case 'counter.created':
      if (!counters.has(change.counter.id)) counters.set(change.counter.id, change.counter);
      break;
    case 'counter.updated': {
      const current = counters.get(change.counter.id);
      if (current && current.version < change.counter.version)
        counters.set(change.counter.id, change.counter);
      break;
    }
    case 'counter.deleted':
      counters.delete(change.counterId);
      break;
    case 'group.updated':
      break;
  }
}

/** Every change this client received, flattened, in arrival order. */
export const allChanges = (client: LiveClient): Change[] =>
  client.messages.flatMap((m) => (m.type === 'changes' ? m.changes : []));
