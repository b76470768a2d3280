/**
 * The courier carries an alert out of the server once the sender has claimed it: it writes the
 * request in the destination's format and signs it (formats.ts), sends it over the
 * destination's kept connection (outbound.ts), or encrypts and sends a Web Push (push.ts).
 *
 * That is nearly all the CPU an alert costs, and none of it needs the database, so the server
 * runs it in a worker thread of its own (courier-thread.ts, ADR 29): the event loop that commits
 * taps only claims an alert, hands it over and writes its end. LocalCourier is the same work on
 * the calling thread; the worker runs one.
 */
import { DestinationClient, type DeliveryResult } from './outbound.js';
import { alertRequest, type AlertAttempt } from './formats.js';
import { sendPush, type PushRequestInput, type PushResult } from './push.js';

/** One webhook alert for the courier: the destination's key and the attempt to send. */
export interface WebhookParcel {
  /**
   * The destination, as `group/destination`: its kept connection is found by it. A destination
   * never changes its URL (a new address is a new destination), so one key is one URL.
   */
  key: string;
  attempt: AlertAttempt;
}

export interface Courier {
  /** Sends one webhook alert; resolves as DestinationClient.send does. */
  webhook(parcel: WebhookParcel): Promise<DeliveryResult>;
  /** Sends one alert to one browser; resolves as sendPush does. */
  push(parcel: PushRequestInput): Promise<PushResult>;
  /**
   * Makes ready to send before the first alert (a worker thread takes a moment to start): called
   * when a group gets an alert rule, so that its first alert does not wait for it.
   */
  warm(): void;
  /** Closes the kept connections (an attempt under way is cut). */
  close(): Promise<void>;
}

export interface CourierOptions {
  /** ALERTS_ALLOW_PRIVATE_TARGETS. */
  allowPrivate: boolean;
  /** One attempt's whole budget: lookups, connection, answer, ms. */
  timeoutMs: number;
}

/**
 * Destinations whose connection is kept, most: the least recently used one beyond is closed
 * (it is opened again at its next alert).
 */
export const KEPT_CONNECTIONS = 1_000;

/** The courier's work on the thread that calls it. */
export class LocalCourier implements Courier {
  private readonly options: CourierOptions;
  /** Kept connections by destination key, least recently used first. */
  private readonly clients = new Map<string, DestinationClient>();

  constructor(options: CourierOptions) {
    this.options = options;
  }

  /** Nothing to start: it sends from the thread it runs on. */
  warm(): void {}

  /** Rejects when the request cannot be written (an id no header can carry). */
  async webhook(parcel: WebhookParcel): Promise<DeliveryResult> {
    const request = alertRequest(parcel.attempt);
    return await this.clientOf(parcel.key, parcel.attempt.target.url).send(request);
  }

  push(parcel: PushRequestInput): Promise<PushResult> {
    return sendPush(parcel, this.options);
  }

  close(): Promise<void> {
    for (const client of this.clients.values()) client.close();
    this.clients.clear();
    return Promise.resolve();
  }

  /** The destination's kept connection (made on first use), now the most recently used. */
  private clientOf(key: string, url: string): DestinationClient {
    let client = this.clients.get(key);
    if (client) {
      this.clients.delete(key);
    } else {
      client = new DestinationClient(url, this.options);
    }
    this.clients.set(key, client);
    if (this.clients.size > KEPT_CONNECTIONS) {
      const [oldestKey, oldest] = this.clients.entries().next().value ?? [];
      if (oldestKey !== undefined) this.clients.delete(oldestKey);
      oldest?.close();
    }
    return client;
  }
}

/** One alert for the courier's worker to send. */
export type CourierTask =
  { kind: 'webhook'; parcel: WebhookParcel } | { kind: 'push'; parcel: PushRequestInput };

/** What the server asks of the courier's worker: a task (its answer carries the id), or to close. */
export type CourierRequest = (CourierTask & { id: number }) | { kind: 'close' };

/** The worker's answer to one request: its result, or why it could not be made. */
export type CourierAnswer =
  { id: number; result: DeliveryResult | PushResult } | { id: number; error: string };
