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

/** The window of a group's delivery budget (ALERT_DELIVERIES_PER_MINUTE_PER_GROUP), ms. */
export const ALERT_BUDGET_WINDOW_MS = 60_000;

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

/** A claimed alert, with what its group's budget needs to know at the claim. */
export interface ClaimedAlert extends OutboxAlert {
  /** Alerts of its group waiting in the outbox, all destinations, this one included. */
  waiting: number;
  /**
   * Attempts logged for its group in the ALERT_BUDGET_WINDOW_MS before the claim, when the store
   * is shared by several instances (PostgreSQL); null when one process owns the store (SQLite)
   * and its sender counts them itself (`exclusive`).
   */
  used: number | null;
}

/** What became of a claimed alert, as the sender hands it back (settle). */
export interface SettledAlert {
  id: number;
  /** The attempt to log; null when none was made (its group's minute was spent, or its rules went). */
  record: DeliveryRecord | null;
  /**
   * When it is looked at again, with the Web Push endpoints reached so far when an attempt
   * failed (`attempted`: one more attempt counted); null: it is over and leaves the outbox.
   */
  next: { at: number; attempted: boolean; progress: string | null } | null;
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
  /**
   * One process owns the store (SQLite, file-lock.ts): what its sender counts in memory of the
   * deliveries it makes is exact. False when several instances share it (PostgreSQL).
   */
  readonly exclusive: boolean;
  /** The group's rules as last committed; null when there is no such group. */
  groupAlerts(groupId: string): Promise<GroupAlerts | null>;
  /**
   * Leases up to `limit` alerts due at `now` to the caller until `now + leaseMs`: each the
   * oldest waiting alert of its destination (deliveries stay in order per destination), none
   * leased to anyone else (PostgreSQL: several instances claim at once, each alert goes to one).
   */
  claim(now: number, leaseMs: number, limit: number): Promise<ClaimedAlert[]>;
  /**
   * Many claimed alerts' ends at once, in one transaction: each attempt logged (each
   * destination keeping its newest ALERT_DELIVERY_LOG_LENGTH), each alert over (out of the
   * outbox) or waiting, unleased, until its `next.at`.
   */
  settle(alerts: readonly SettledAlert[]): Promise<void>;
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
  /** When each attempt logged since `since` was made, of every group, oldest first. */
  deliveryTimesSince(since: number): Promise<{ groupId: string; at: number }[]>;
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
