/**
 * What the alert sender (src/server/alerts/sender.ts) and the alert routes need from a store:
 * the outbox the commit writes alerts to (domain/alert-config.ts AlertWrite), each destination's
 * delivery log, the groups' Web Push subscriptions and the server's own settings (its VAPID
 * keys). Both SQL stores implement it (store/sqlite/alerts.ts, store/postgres/alerts.ts); times
 * are epoch ms.
 */
import type {
  AlertDeliveryOutcome,
  AlertDestinationState,
  AlertEventType,
} from '../../shared/alerts.js';
import type { GroupAlerts } from '../domain/alert-config.js';

/** An alert waiting in the outbox, as the sender claims it. */
export interface OutboxAlert {
  id: number;
  groupId: string;
  destinationId: string;
  /** The AlertEventBody's JSON. */
  body: string;
  /** When the change that fired it committed. */
  createdAt: number;
  /** Attempts made so far (0 before the first). */
  attempts: number;
  /** Web Push: the endpoints it already reached (JSON array), so a retry skips them. */
  progress: string | null;
}

/** One attempt, as the delivery log keeps it. */
export interface DeliveryRecord {
  groupId: string;
  destinationId: string;
  at: number;
  type: AlertEventType;
  test: boolean;
  outcome: AlertDeliveryOutcome;
  status: number | null;
  error: string | null;
  attempt: number;
  durationMs: number;
}

export interface LoggedDelivery extends DeliveryRecord {
  id: number;
}

/** A browser's Web Push subscription to one group. */
export interface StoredPushSubscription {
  endpoint: string;
  p256dh: string;
  auth: string;
  createdAt: number;
}

export interface AlertStore {
  /** The group's rules as last committed; null when there is no such group. */
  groupAlerts(groupId: string): Promise<GroupAlerts | null>;
  /**
   * Leases up to `limit` alerts due at `now` to the caller until `now + leaseMs`: each the
   * oldest waiting alert of its destination (deliveries stay in order per destination), none
   * leased to anyone else (PostgreSQL: several instances claim at once, each alert goes to one).
   */
  claim(now: number, leaseMs: number, limit: number): Promise<OutboxAlert[]>;
  /** The alert is over (delivered, or given up): it leaves the outbox. */
  complete(id: number): Promise<void>;
  /** The alert failed: one more attempt counted, tried again at `at`. */
  retry(id: number, retry: { at: number; progress: string | null }): Promise<void>;
  /** The alert waits until `at` without an attempt (its group used its minute's deliveries). */
  postpone(id: number, at: number): Promise<void>;
  /** Alerts of the group waiting in the outbox, all destinations. */
  pendingCount(groupId: string): Promise<number>;
  /**
   * Folds every waiting alert of the destination into its oldest one (which keeps its place and
   * lease): that one takes the newest's body with `folded` set to how many it stands for, the
   * others leave the outbox. Returns the kept alert's new body; null when there was one alert.
   */
  fold(groupId: string, destinationId: string): Promise<string | null>;
  /**
   * Folds the waiting alerts of every destination with more than `maxPending` (as `fold`), so
   * the outbox stays small behind a receiver that is down; returns how many were folded.
   */
  compact(maxPending: number): Promise<number>;
  /** Logs an attempt; the destination keeps its newest ALERT_DELIVERY_LOG_LENGTH. */
  recordDelivery(record: DeliveryRecord): Promise<void>;
  /** Attempts logged for the group since `since` (its minute's budget). */
  deliveriesSince(groupId: string, since: number): Promise<number>;
  /** The destination's logged attempts, newest first. */
  deliveries(groupId: string, destinationId: string, limit: number): Promise<LoggedDelivery[]>;
  /** Where each of the group's destinations stands (ALERT_DESTINATION_STATES). */
  destinationStates(
    groupId: string,
    destinationIds: readonly string[],
  ): Promise<Map<string, AlertDestinationState>>;
  /**
   * Adds (or renews) a subscription; past `max` for the group, its oldest ones go, so a full
   * list never locks a newcomer out.
   */
  subscribePush(
    groupId: string,
    subscription: Omit<StoredPushSubscription, 'createdAt'>,
    options: { now: number; max: number },
  ): Promise<void>;
  /** Removes a subscription; false when the group had none with that endpoint. */
  unsubscribePush(groupId: string, endpoint: string): Promise<boolean>;
  /** The group's subscriptions, oldest first. */
  pushSubscriptions(groupId: string): Promise<StoredPushSubscription[]>;
  /**
   * A server setting, made by `create` and stored the first time it is asked for: every
   * instance on one database gets the same value (the first one stored wins).
   */
  setting(name: string, create: () => string): Promise<string>;
  /** Told after a commit that wrote alerts to the outbox; returns an unsubscribe. */
  onWritten(listener: () => void): () => void;
}
