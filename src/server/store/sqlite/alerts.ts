/**
 * The SQLite store's alerts (store/alerts.ts): the outbox, the delivery log, Web Push
 * subscriptions and server settings, on the store's own connection. One server holds the file
 * (file-lock.ts), so nobody else can take an alert this process claimed: its leases are kept
 * in memory, and a claim is a read, not a write. A crash forgets them with the process; leases
 * written by an older version are void at start (`releaseLeases`).
 */
import type Database from 'better-sqlite3';
import {
  ALERT_DELIVERY_LOG_LENGTH,
  type AlertDestinationState,
  type AlertEventType,
  type AlertDeliveryOutcome,
} from '../../../shared/alerts.js';
import { parseAlerts, type GroupAlerts } from '../../domain/alert-config.js';
import type {
  AlertStore,
  ClaimedAlert,
  DeliveryRecord,
  LoggedDelivery,
  SettledAlert,
  StoredPushSubscription,
} from '../alerts.js';
import { foldedBody, stateOf } from '../alerts-shared.js';

interface OutboxRow {
  id: number;
  group_id: string;
  destination_id: string;
  body: string;
  created_at: number;
  attempts: number;
  progress: string | null;
  waiting: number;
}

interface DeliveryRow {
  id: number;
  group_id: string;
  destination_id: string;
  at: number;
  type: string;
  test: number;
  outcome: string;
  status: number | null;
  error: string | null;
  attempt: number;
  duration_ms: number;
}

const toClaimedAlert = (row: OutboxRow): ClaimedAlert => ({
  id: row.id,
  groupId: row.group_id,
  destinationId: row.destination_id,
  body: row.body,
  createdAt: row.created_at,
  attempts: row.attempts,
  progress: row.progress,
  waiting: row.waiting,
  // This process's sender counts its group's deliveries itself (exclusive).
  used: null,
});

/**
 * The oldest waiting alert of each destination that is due and not leased (the ids leased in
 * memory, a JSON array), longest due first, with how many alerts its group has waiting.
 *
 * Read through the due index, in its order, so a claim stops at the limit and never walks the
 * alerts that wait behind a receiver in backoff: those are not due (SETTLE_FOLLOWERS,
 * OUTBOX_INSERT). Without INDEXED BY, SQLite walks the table in id order, and a backlog of old
 * alerts for failing receivers would be read by every claim.
 */
const DUE = `SELECT o.id, o.group_id, o.destination_id, o.body, o.created_at, o.attempts,
    o.progress,
    (SELECT count(*) FROM alert_outbox w WHERE w.group_id = o.group_id) AS waiting
  FROM alert_outbox o INDEXED BY alert_outbox_by_due
  WHERE o.next_attempt_at <= ? AND o.lease_until <= ?
    AND o.id NOT IN (SELECT value FROM json_each(?))
    AND NOT EXISTS (SELECT 1 FROM alert_outbox p WHERE p.group_id = o.group_id
      AND p.destination_id = o.destination_id AND p.id < o.id)
  ORDER BY o.next_attempt_at, o.id LIMIT ?`;

/**
 * An alert put off until @at (a retry, or its group's minute spent) puts off the alerts behind
 * it for the same destination as long: they cannot leave before it, and not being due keeps
 * them out of every claim's reading.
 */
const SETTLE_FOLLOWERS = `UPDATE alert_outbox SET next_attempt_at = @at
  WHERE (group_id, destination_id) = (SELECT group_id, destination_id FROM alert_outbox
    WHERE id = @id)
    AND id > @id AND next_attempt_at < @at`;

/**
 * A new alert, due at the commit's time (@now) or, behind an alert of its destination that is
 * put off, when that one is (see SETTLE_FOLLOWERS).
 */
export const OUTBOX_INSERT = `INSERT INTO alert_outbox (group_id, destination_id, body,
    created_at, next_attempt_at)
  VALUES (@group, @destination, @body, @now, max(@now, coalesce((SELECT next_attempt_at
    FROM alert_outbox WHERE group_id = @group AND destination_id = @destination
    ORDER BY id LIMIT 1), 0)))`;

const toLoggedDelivery = (row: DeliveryRow): LoggedDelivery => ({
  id: row.id,
  groupId: row.group_id,
  destinationId: row.destination_id,
  at: row.at,
  type: row.type as AlertEventType,
  test: Boolean(row.test),
  outcome: row.outcome as AlertDeliveryOutcome,
  status: row.status,
  error: row.error,
  attempt: row.attempt,
  durationMs: row.duration_ms,
});

export class SqliteAlerts implements AlertStore {
  /** One server holds the file (file-lock.ts): its sender sees every delivery. */
  readonly exclusive = true;
  private readonly listeners = new Set<() => void>();
  /** Alerts claimed and not settled yet, by id: until when, epoch ms. */
  private readonly leases = new Map<number, number>();

  constructor(
    private readonly db: Database.Database,
    private readonly prepare: (sql: string) => Database.Statement,
  ) {}

  /** Leases of a process that ended: nobody else can hold them (one server per file). */
  releaseLeases(): void {
    this.prepare('UPDATE alert_outbox SET lease_until = 0 WHERE lease_until > 0').run();
    this.leases.clear();
  }

  /**
   * Inside a commit that changed the group's rules: the waiting alerts and logs of destinations
   * no rule sends to any more go with them, so a group's logs are bounded by its destinations.
   */
  forgetOtherDestinations(groupId: string, alerts: GroupAlerts): void {
    const kept = JSON.stringify(alerts.destinations.map((destination) => destination.id));
    for (const table of ['alert_outbox', 'alert_deliveries']) {
      this.prepare(
        `DELETE FROM ${table} WHERE group_id = ?
           AND destination_id NOT IN (SELECT value FROM json_each(?))`,
      ).run(groupId, kept);
    }
  }

  compact(maxPending: number): Promise<number> {
    const crowded = this.prepare(
      `SELECT group_id, destination_id FROM alert_outbox GROUP BY group_id, destination_id
       HAVING count(*) > ?`,
    ).all(maxPending) as { group_id: string; destination_id: string }[];
    return Promise.all(crowded.map((row) => this.fold(row.group_id, row.destination_id))).then(
      () => crowded.length,
    );
  }

  /** Told by the store after a commit that wrote alerts. */
  written(): void {
    for (const listener of this.listeners) listener();
  }

  onWritten(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  groupAlerts(groupId: string): Promise<GroupAlerts | null> {
    const row = this.prepare('SELECT alerts FROM counter_groups WHERE id = ?').get(groupId) as
      { alerts: string | null } | undefined;
    return Promise.resolve(row ? parseAlerts(row.alerts) : null);
  }

  claim(now: number, leaseMs: number, limit: number): Promise<ClaimedAlert[]> {
    for (const [id, until] of this.leases) if (until <= now) this.leases.delete(id);
    const leased = JSON.stringify([...this.leases.keys()]);
    const claimed = this.prepare(DUE).all(now, now, leased, limit) as OutboxRow[];
    for (const row of claimed) this.leases.set(row.id, now + leaseMs);
    return Promise.resolve(claimed.map(toClaimedAlert));
  }

  settle(alerts: readonly SettledAlert[]): Promise<void> {
    if (alerts.length === 0) return Promise.resolve();
    const write = this.db.transaction(() => {
      this.log(alerts.flatMap((alert) => (alert.record ? [alert.record] : [])));
      const done = this.prepare('DELETE FROM alert_outbox WHERE id = ?');
      const retry = this.prepare(
        `UPDATE alert_outbox SET attempts = attempts + 1, next_attempt_at = ?, lease_until = 0,
           progress = ? WHERE id = ?`,
      );
      const postpone = this.prepare(
        'UPDATE alert_outbox SET next_attempt_at = ?, lease_until = 0 WHERE id = ?',
      );
      const followers = this.prepare(SETTLE_FOLLOWERS);
      for (const { id, next } of alerts) {
        if (next === null) {
          done.run(id);
          continue;
        }
        if (next.attempted) retry.run(next.at, next.progress, id);
        else postpone.run(next.at, id);
        followers.run({ at: next.at, id });
      }
    });
    write.immediate();
    for (const { id } of alerts) this.leases.delete(id);
    return Promise.resolve();
  }

  /** Logs attempts, each destination keeping its newest ALERT_DELIVERY_LOG_LENGTH. */
  private log(records: readonly DeliveryRecord[]): void {
    if (records.length === 0) return;
    const insert = this.prepare(
      `INSERT INTO alert_deliveries (group_id, destination_id, at, type, test, outcome, status,
         error, attempt, duration_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const trim = this.prepare(
      `DELETE FROM alert_deliveries WHERE group_id = ? AND destination_id = ? AND id <= (
         SELECT id FROM alert_deliveries WHERE group_id = ? AND destination_id = ?
         ORDER BY id DESC LIMIT 1 OFFSET ?)`,
    );
    const destinations = new Map<string, DeliveryRecord>();
    for (const record of records) {
      insert.run(
        record.groupId,
        record.destinationId,
        record.at,
        record.type,
        record.test ? 1 : 0,
        record.outcome,
        record.status,
        record.error,
        record.attempt,
        record.durationMs,
      );
      destinations.set(`${record.groupId}/${record.destinationId}`, record);
    }
    for (const { groupId, destinationId } of destinations.values()) {
      trim.run(groupId, destinationId, groupId, destinationId, ALERT_DELIVERY_LOG_LENGTH);
    }
  }

  pendingCount(groupId: string): Promise<number> {
    const row = this.prepare('SELECT count(*) AS n FROM alert_outbox WHERE group_id = ?').get(
      groupId,
    ) as { n: number };
    return Promise.resolve(row.n);
  }

  fold(groupId: string, destinationId: string): Promise<string | null> {
    const fold = this.db.transaction((): string | null => {
      const rows = this.prepare(
        `SELECT id, body FROM alert_outbox WHERE group_id = ? AND destination_id = ? ORDER BY id`,
      ).all(groupId, destinationId) as { id: number; body: string }[];
      const first = rows[0];
      const last = rows[rows.length - 1];
      if (!first || !last || rows.length < 2) return null;
      const body = foldedBody(rows.map((row) => row.body));
      this.prepare('UPDATE alert_outbox SET body = ? WHERE id = ?').run(body, first.id);
      this.prepare(
        'DELETE FROM alert_outbox WHERE group_id = ? AND destination_id = ? AND id > ?',
      ).run(groupId, destinationId, first.id);
      return body;
    });
    return Promise.resolve(fold.immediate());
  }

  recordDelivery(record: DeliveryRecord): Promise<void> {
    this.db
      .transaction(() => {
        this.log([record]);
      })
      .immediate();
    return Promise.resolve();
  }

  deliveriesSince(groupId: string, since: number): Promise<number> {
    const row = this.prepare(
      'SELECT count(*) AS n FROM alert_deliveries WHERE group_id = ? AND at >= ?',
    ).get(groupId, since) as { n: number };
    return Promise.resolve(row.n);
  }

  deliveryTimesSince(since: number): Promise<{ groupId: string; at: number }[]> {
    const rows = this.prepare(
      'SELECT group_id, at FROM alert_deliveries WHERE at >= ? ORDER BY at, id',
    ).all(since) as { group_id: string; at: number }[];
    return Promise.resolve(rows.map((row) => ({ groupId: row.group_id, at: row.at })));
  }

  deliveries(groupId: string, destinationId: string, limit: number): Promise<LoggedDelivery[]> {
    const rows = this.prepare(
      `SELECT * FROM alert_deliveries WHERE group_id = ? AND destination_id = ?
       ORDER BY id DESC LIMIT ?`,
    ).all(groupId, destinationId, limit) as DeliveryRow[];
    return Promise.resolve(rows.map(toLoggedDelivery));
  }

  destinationStates(
    groupId: string,
    destinationIds: readonly string[],
  ): Promise<Map<string, AlertDestinationState>> {
    const retrying = this.prepare(
      `SELECT 1 FROM alert_outbox WHERE group_id = ? AND destination_id = ? AND attempts > 0
       LIMIT 1`,
    );
    const last = this.prepare(
      `SELECT outcome FROM alert_deliveries WHERE group_id = ? AND destination_id = ? AND test = 0
       ORDER BY id DESC LIMIT 1`,
    );
    const states = new Map<string, AlertDestinationState>();
    for (const id of destinationIds) {
      const pending = retrying.get(groupId, id) !== undefined;
      const row = last.get(groupId, id) as { outcome: AlertDeliveryOutcome } | undefined;
      states.set(id, stateOf(pending, row?.outcome ?? null));
    }
    return Promise.resolve(states);
  }

  subscribePush(
    groupId: string,
    subscription: Omit<StoredPushSubscription, 'createdAt'>,
    options: { now: number; max: number },
  ): Promise<void> {
    const write = this.db.transaction(() => {
      this.prepare(
        `INSERT INTO push_subscriptions (group_id, endpoint, p256dh, auth, created_at)
         VALUES (?, ?, ?, ?, ?) ON CONFLICT (group_id, endpoint)
         DO UPDATE SET p256dh = excluded.p256dh, auth = excluded.auth,
           created_at = excluded.created_at`,
      ).run(groupId, subscription.endpoint, subscription.p256dh, subscription.auth, options.now);
      this.prepare(
        `DELETE FROM push_subscriptions WHERE group_id = ? AND rowid IN (
           SELECT rowid FROM push_subscriptions WHERE group_id = ?
           ORDER BY created_at DESC, rowid DESC LIMIT -1 OFFSET ?)`,
      ).run(groupId, groupId, options.max);
    });
    write.immediate();
    return Promise.resolve();
  }

  unsubscribePush(groupId: string, endpoint: string): Promise<boolean> {
    const info = this.prepare(
      'DELETE FROM push_subscriptions WHERE group_id = ? AND endpoint = ?',
    ).run(groupId, endpoint);
    return Promise.resolve(info.changes > 0);
  }

  pushSubscriptions(groupId: string): Promise<StoredPushSubscription[]> {
    const rows = this.prepare(
      `SELECT endpoint, p256dh, auth, created_at FROM push_subscriptions WHERE group_id = ?
       ORDER BY created_at, rowid`,
    ).all(groupId) as { endpoint: string; p256dh: string; auth: string; created_at: number }[];
    return Promise.resolve(
      rows.map((row) => ({
        endpoint: row.endpoint,
        p256dh: row.p256dh,
        auth: row.auth,
        createdAt: row.created_at,
      })),
    );
  }

  setting(name: string, create: () => string): Promise<string> {
    const read = this.prepare('SELECT value FROM server_settings WHERE name = ?');
    const found = read.get(name) as { value: string } | undefined;
    if (found) return Promise.resolve(found.value);
    this.prepare(
      'INSERT INTO server_settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING',
    ).run(name, create());
    return Promise.resolve((read.get(name) as { value: string }).value);
  }
}
