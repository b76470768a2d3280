/**
 * Cross-instance fan-out on PostgreSQL LISTEN/NOTIFY: no other service to run.
 *
 * The store announces each committed batch with pg_notify inside its transaction
 * (store/postgres/store.ts). Every instance LISTENs on one dedicated connection and hands other instances'
 * changes to its own subscribers; its own changes it has delivered already, straight after
 * commit. If the LISTEN connection drops, the instance reconnects with backoff and then tells
 * its subscribers to resync, since notifications sent meanwhile are lost. A listening connection
 * only receives, so a path that silently drops packets would leave it waiting forever: it is
 * checked with a query every LIVENESS_CHECK_MS and replaced when one goes unanswered.
 */
import type { FastifyBaseLogger } from 'fastify';
import pg from 'pg';
import type { Counter } from '../../shared/api.js';
import type { Change, PresenceMember } from '../../shared/protocol.js';
import { MemoryBus } from './memory.js';
import {
  decodeAnnouncement,
  decodePresence,
  encodePresence,
  presenceChannelOf,
  type ChangeReference,
} from './notify.js';
import type { Bus, ChangeListener, PresenceAnnouncement } from './types.js';

/**
 * Reconnect backoff for the LISTEN connection, ms. The cap bounds how long after the database is
 * back the instance hears other instances' changes again.
 */
const RECONNECT_MIN_MS = 100;
const RECONNECT_MAX_MS = 1_000;
/** How often the listening connection is checked with a query, and how long its answer may take, ms. */
export const LIVENESS_CHECK_MS = 1_000;
export const LIVENESS_TIMEOUT_MS = 1_500;

export interface PostgresBusOptions {
  /**
   * The settings of a new connection to the database, named `applicationName` (backend.ts passes
   * the store's, so both reach the same database the same way and neither imports the other).
   */
  clientConfig: (applicationName: string) => pg.ClientConfig;
  /** Tally's schema: it names the listening connection. */
  schema: string;
  channel: string;
  instanceId: string;
  /** Reads a counter's current row, for announcements too large to carry it. */
  loadCounter: (groupId: string, counterId: string) => Promise<Counter | null>;
  log: FastifyBaseLogger;
  /**
   * Told, for each announcement received from another instance that says when it was sent, how
   * long it took to arrive, ms (the receiver's clock minus the sender's: clocks out of step by
   * more than the lag show as 0). For the metrics; nothing measured without it.
   */
  onAnnouncementLag?: (lagMs: number) => void;
  /**
   * Told when the listening connection fails (dropped, or a check unanswered): the database or
   * the path to it may be gone for every connection of this instance.
   */
  onConnectionLost?: (error: unknown) => void;
}

export class PostgresBus implements Bus {
  private readonly local = new MemoryBus();
  private readonly reconnectListeners = new Set<() => void>();
  private readonly presenceListeners = new Set<(announcement: PresenceAnnouncement) => void>();
  private client: pg.Client | null = null;
  private closed = false;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private livenessTimer: NodeJS.Timeout | undefined;
  private backoffMs = RECONNECT_MIN_MS;

  constructor(private readonly options: PostgresBusOptions) {}

  /** Connects and starts listening; rejects if the first connection fails. */
  async start(): Promise<void> {
    await this.connect();
  }

  /** Local delivery only: the announcement to other instances left with the commit. */
  publish(groupId: string, changes: readonly Change[]): void {
    this.local.publish(groupId, changes);
  }

  subscribe(groupId: string, listener: ChangeListener): () => void {
    return this.local.subscribe(groupId, listener);
  }

  /**
   * Presence rides on its own NOTIFY channel, sent from the listening connection (it is never
   * inside a transaction). Lost while that connection is down: the hub re-announces regularly.
   */
  publishPresence(groupId: string, members: () => readonly PresenceMember[]): void {
    const client = this.client;
    if (!client) return;
    const payload = encodePresence(this.options.instanceId, groupId, members());
    client
      .query('SELECT pg_notify($1, $2)', [presenceChannelOf(this.options.channel), payload])
      .catch((error: unknown) => {
        this.options.log.warn({ err: error }, 'presence announcement failed');
      });
  }

  onPresence(listener: (announcement: PresenceAnnouncement) => void): () => void {
    this.presenceListeners.add(listener);
    return () => {
      this.presenceListeners.delete(listener);
    };
  }

  /** Both this instance's batches and other instances' pass through the local bus. */
  onAccessChange(listener: (groupId: string) => void): () => void {
    return this.local.onAccessChange(listener);
  }

  onReconnect(listener: () => void): () => void {
    this.reconnectListeners.add(listener);
    return () => {
      this.reconnectListeners.delete(listener);
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.reconnectTimer);
    clearInterval(this.livenessTimer);
    const client = this.client;
    this.client = null;
    await this.local.close();
    if (client) await client.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    const { clientConfig, schema, channel, log } = this.options;
    const client = new pg.Client(clientConfig(`tally-listen:${schema}`));
    client.on('notification', (message) => {
      if (message.payload === undefined) return;
      if (message.channel === channel) this.receive(message.payload);
      else if (message.channel === presenceChannelOf(channel))
        this.receivePresence(message.payload);
    });
    client.on('error', (error) => {
      log.warn({ err: error }, 'database listener connection failed');
      this.lost(client, error);
    });
    client.on('end', () => {
      this.lost(client, new Error('database listener connection ended'));
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${channel}`);
      await client.query(`LISTEN ${presenceChannelOf(channel)}`);
    } catch (error) {
      client.end().catch(() => undefined);
      throw error;
    }
    if (this.closed) {
      client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    this.backoffMs = RECONNECT_MIN_MS;
    this.watchLiveness(client);
  }

  /** A query on the listening connection now and then: no answer in time, and it is replaced. */
  private watchLiveness(client: pg.Client): void {
    clearInterval(this.livenessTimer);
    let checking = false;
    this.livenessTimer = setInterval(() => {
      if (checking || this.client !== client) return;
      checking = true;
      // `pg` reads query_timeout from a query's config; its type definitions leave it out.
      const check = Object.assign({ text: 'SELECT 1' }, { query_timeout: LIVENESS_TIMEOUT_MS });
      client.query(check).then(
        () => {
          checking = false;
        },
        (error: unknown) => {
          checking = false;
          this.options.log.warn({ err: error }, 'database listener check failed: reconnecting');
          this.lost(client, error);
        },
      );
    }, LIVENESS_CHECK_MS);
    this.livenessTimer.unref();
  }

  private lost(client: pg.Client, error: unknown): void {
    if (this.client !== client || this.closed) return;
    this.client = null;
    clearInterval(this.livenessTimer);
    client.end().catch(() => undefined);
    this.options.onConnectionLost?.(error);
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.closed || this.reconnectTimer) return;
    const delay = this.backoffMs;
    this.backoffMs = Math.min(this.backoffMs * 2, RECONNECT_MAX_MS);
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      this.connect().then(
        () => {
          this.options.log.info('database listener reconnected: resyncing live clients');
          for (const listener of this.reconnectListeners) listener();
        },
        (error: unknown) => {
          this.options.log.warn({ err: error }, 'database listener reconnect failed');
          this.scheduleReconnect();
        },
      );
    }, delay);
  }

  private receive(payload: string): void {
    const announcement = decodeAnnouncement(payload);
    if (!announcement) {
      this.options.log.warn('ignoring a malformed change announcement');
      return;
    }
    if (announcement.i === this.options.instanceId) return;
    const { g: groupId, c: changes, r: references, t: sentAt } = announcement;
    if (sentAt !== undefined) this.options.onAnnouncementLag?.(Math.max(0, Date.now() - sentAt));
    if (changes.length > 0) this.local.publish(groupId, changes);
    if (references && references.length > 0) {
      this.resolve(groupId, references).then(
        (resolved) => {
          this.local.publish(groupId, resolved);
        },
        (error: unknown) => {
          // The channel sees a gap and resyncs by itself.
          this.options.log.warn({ err: error }, 'could not read an announced counter');
        },
      );
    }
  }

  private receivePresence(payload: string): void {
    const announcement = decodePresence(payload);
    if (!announcement) {
      this.options.log.warn('ignoring a malformed presence announcement');
      return;
    }
    if (announcement.instanceId === this.options.instanceId) return;
    for (const listener of this.presenceListeners) listener(announcement);
  }

  private async resolve(groupId: string, references: ChangeReference[]): Promise<Change[]> {
    const resolved: Change[] = [];
    for (const reference of references) {
      const counter = await this.options.loadCounter(groupId, reference.counterId);
      // Deleted since: its deletion is announced too; the gap makes the channel resync.
      if (!counter) continue;
      resolved.push({
        type: reference.type,
        seq: reference.seq,
        counter,
        ...(reference.opIds === undefined ? {} : { opIds: reference.opIds }),
      });
    }
    return resolved;
  }
}
