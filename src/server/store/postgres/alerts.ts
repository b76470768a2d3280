/**
 * The PostgreSQL store's alerts (store/alerts.ts): the outbox, the delivery log, Web Push
 * subscriptions and server settings. Several instances share one database, so an alert is
 * claimed with `FOR UPDATE SKIP LOCKED` and a lease (ADR 29): one instance sends it; if that
 * instance dies, another takes it once the lease is over.
 *
 * The sender's own bookkeeping (claims and settles) commits without waiting for the WAL to
 * reach the disk (`synchronous_commit = off` for those transactions alone): under a stream of
 * taps, that wait is what made alerts slow. What a crash of the database can lose of it is a
 * lease, an alert's removal or its log entry, written a few milliseconds before: the alert is
 * then sent again, with the same id, as at-least-once allows.
 */
import type pg from 'pg';
import {
  ALERT_DELIVERY_LOG_LENGTH,
  type AlertDeliveryOutcome,
  type AlertDestinationState,
  type AlertEventType,
} from '../../../shared/alerts.js';
import { parseAlerts, type GroupAlerts } from '../../domain/alert-config.js';
import {
  ALERT_BUDGET_WINDOW_MS,
  type AlertStore,
  type ClaimedAlert,
  type DeliveryRecord,
  type LoggedDelivery,
  type SettledAlert,
  type StoredPushSubscription,
} from '../alerts.js';
import { foldedBody, stateOf } from '../alerts-shared.js';

type Query = <R extends pg.QueryResultRow>(
  text: string,
  values?: unknown[],
) => Promise<pg.QueryResult<R>>;

/** Runs `work` in one transaction on one connection of the store's pool. */
type Transaction = <T>(work: (client: pg.PoolClient) => Promise<T>) => Promise<T>;

interface OutboxRow {
  id: string;
  group_id: string;
  destination_id: string;
  body: string;
  created_at: string;
  attempts: number;
  progress: string | null;
  waiting: string;
  used: string;
}

interface DeliveryRow {
  id: string;
  group_id: string;
  destination_id: string;
  at: string;
  type: string;
  test: boolean;
  outcome: string;
  status: number | null;
  error: string | null;
  attempt: number;
  duration_ms: number;
}

const toClaimedAlert = (row: OutboxRow): ClaimedAlert => ({
  id: Number(row.id),
  groupId: row.group_id,
  destinationId: row.destination_id,
  body: row.body,
  createdAt: Number(row.created_at),
  attempts: row.attempts,
  progress: row.progress,
  waiting: Number(row.waiting),
  used: Number(row.used),
});

const toLoggedDelivery = (row: DeliveryRow): LoggedDelivery => ({
  id: Number(row.id),
  groupId: row.group_id,
  destinationId: row.destination_id,
  at: Number(row.at),
  type: row.type as AlertEventType,
  test: row.test,
  outcome: row.outcome as AlertDeliveryOutcome,
  status: row.status,
  error: row.error,
  attempt: row.attempt,
  durationMs: row.duration_ms,
});

/**
 * The oldest waiting alert of each destination that is due and not leased, longest due first,
 * locked for this statement (others' locked rows skipped), leased until $2: one instance gets
 * each. With each, its group's waiting alerts and the attempts every instance logged for it
 * since $4. In the due index's order, so a claim stops at the limit; the alerts that wait behind
 * a receiver in backoff are not due (SETTLE, and the commit's insert), so no claim reads them.
 */
const CLAIM = `UPDATE alert_outbox SET lease_until = $2
  WHERE id IN (
    SELECT o.id FROM alert_outbox o
    WHERE o.next_attempt_at <= $1 AND o.lease_until <= $1
      AND NOT EXISTS (SELECT 1 FROM alert_outbox p WHERE p.group_id = o.group_id
        AND p.destination_id = o.destination_id AND p.id < o.id)
    ORDER BY o.next_attempt_at, o.id LIMIT $3
    FOR UPDATE SKIP LOCKED)
  RETURNING id, group_id, destination_id, body, created_at, attempts, progress,
    (SELECT count(*) FROM alert_outbox w WHERE w.group_id = alert_outbox.group_id) AS waiting,
    (SELECT count(*) FROM alert_deliveries d
      WHERE d.group_id = alert_outbox.group_id AND d.at >= $4) AS used`;

/**
 * Attempts logged (in the order given, $1 a JSON array) and each destination's log trimmed, as
 * common table expressions and the statement that ends them: the statement's snapshot does not
 * hold the new rows, so a destination with n new ones keeps n fewer old ones.
 */
const LOGGED = `records AS MATERIALIZED (
    SELECT * FROM json_to_recordset($1::json) AS r(n integer, g text, d text, at bigint,
      type text, test boolean, outcome text, status integer, error text, attempt integer,
      duration_ms integer)),
  inserted AS (
    INSERT INTO alert_deliveries (group_id, destination_id, at, type, test, outcome, status,
      error, attempt, duration_ms)
    SELECT g, d, at, type, test, outcome, status, error, attempt, duration_ms
    FROM records ORDER BY n)
  DELETE FROM alert_deliveries l USING (SELECT g, d, count(*) AS added FROM records GROUP BY g, d) t
  WHERE l.group_id = t.g AND l.destination_id = t.d AND l.id <= (
    SELECT id FROM alert_deliveries k WHERE k.group_id = t.g AND k.destination_id = t.d
    ORDER BY id DESC OFFSET greatest(0, ${ALERT_DELIVERY_LOG_LENGTH} - t.added) LIMIT 1)`;

const LOG_DELIVERIES = `WITH ${LOGGED}`;

/**
 * Claimed alerts' ends ($2 a JSON array, their attempts $1): each attempt logged as
 * LOG_DELIVERIES does, each alert over (deleted) or unleased until its next try, in one
 * statement and one commit. An alert put off puts off the alerts behind it for the same
 * destination as long (`followers`): they cannot leave before it, and not being due keeps them
 * out of every claim's reading.
 */
const SETTLE = `WITH ends AS MATERIALIZED (
    SELECT * FROM json_to_recordset($2::json) AS e(id bigint, next_at bigint, attempted boolean,
      progress text)),
  over AS (
    DELETE FROM alert_outbox o USING ends e WHERE o.id = e.id AND e.next_at IS NULL),
  waiting AS (
    UPDATE alert_outbox o SET next_attempt_at = e.next_at, lease_until = 0,
      attempts = o.attempts + CASE WHEN e.attempted THEN 1 ELSE 0 END,
      progress = CASE WHEN e.attempted THEN e.progress ELSE o.progress END
    FROM ends e WHERE o.id = e.id AND e.next_at IS NOT NULL),
  followers AS (
    UPDATE alert_outbox f SET next_attempt_at = e.next_at
    FROM ends e JOIN alert_outbox h ON h.id = e.id
    WHERE e.next_at IS NOT NULL AND f.group_id = h.group_id
      AND f.destination_id = h.destination_id AND f.id > e.id AND f.next_attempt_at < e.next_at),
  ${LOGGED}`;

/** Attempts as LOG_DELIVERIES reads them. */
function recordsJson(records: readonly DeliveryRecord[]): string {
  return JSON.stringify(
    records.map((record, n) => ({
      n,
      g: record.groupId,
      d: record.destinationId,
      at: record.at,
      type: record.type,
      test: record.test,
      outcome: record.outcome,
      status: record.status,
      error: record.error,
      attempt: record.attempt,
      duration_ms: record.durationMs,
    })),
  );
}

export class PostgresAlerts implements AlertStore {
  /** Several instances may share the database: each counts its groups' budgets there. */
  readonly exclusive = false;
  private readonly listeners = new Set<() => void>();

  constructor(
    private readonly query: Query,
    private readonly transaction: Transaction,
  ) {}

  /** Told by the store after a commit that wrote alerts. */
  written(): void {
    for (const listener of this.listeners) listener();
  }

  onWritten(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async compact(maxPending: number): Promise<number> {
    const { rows } = await this.query<{ group_id: string; destination_id: string }>(
      `SELECT group_id, destination_id FROM alert_outbox GROUP BY group_id, destination_id
       HAVING count(*) > $1`,
      [maxPending],
    );
    for (const row of rows) await this.fold(row.group_id, row.destination_id);
    return rows.length;
  }

  async groupAlerts(groupId: string): Promise<GroupAlerts | null> {
    const { rows } = await this.query<{ alerts: string | null }>(
      'SELECT alerts FROM counter_groups WHERE id = $1',
      [groupId],
    );
    const row = rows[0];
    return row ? parseAlerts(row.alerts) : null;
  }

  /** One statement in a transaction that commits without waiting for its WAL flush. */
  private unsynced<R extends pg.QueryResultRow>(
    text: string,
    values: unknown[],
  ): Promise<pg.QueryResult<R>> {
    return this.transaction(async (client) => {
      await client.query('SET LOCAL synchronous_commit = off');
      return client.query<R>(text, values);
    });
  }

  async claim(now: number, leaseMs: number, limit: number): Promise<ClaimedAlert[]> {
    const { rows } = await this.unsynced<OutboxRow>(CLAIM, [
      now,
      now + leaseMs,
      limit,
      now - ALERT_BUDGET_WINDOW_MS,
    ]);
    return rows.map(toClaimedAlert).sort((a, b) => a.id - b.id);
  }

  async settle(alerts: readonly SettledAlert[]): Promise<void> {
    if (alerts.length === 0) return;
    const ends = alerts.map(({ id, next }) => ({
      id,
      next_at: next?.at ?? null,
      attempted: next?.attempted ?? false,
      progress: next?.progress ?? null,
    }));
    const records = alerts.flatMap((alert) => (alert.record ? [alert.record] : []));
    await this.unsynced(SETTLE, [recordsJson(records), JSON.stringify(ends)]);
  }

  async pendingCount(groupId: string): Promise<number> {
    const { rows } = await this.query<{ n: string }>(
      'SELECT count(*) AS n FROM alert_outbox WHERE group_id = $1',
      [groupId],
    );
    return Number(rows[0]?.n ?? 0);
  }

  fold(groupId: string, destinationId: string): Promise<string | null> {
    return this.transaction(async (client) => {
      const { rows } = await client.query<{ id: string; body: string }>(
        `SELECT id, body FROM alert_outbox WHERE group_id = $1 AND destination_id = $2
         ORDER BY id FOR UPDATE`,
        [groupId, destinationId],
      );
      const first = rows[0];
      if (!first || rows.length < 2) return null;
      const body = foldedBody(rows.map((row) => row.body));
      await client.query('UPDATE alert_outbox SET body = $2 WHERE id = $1', [first.id, body]);
      await client.query(
        'DELETE FROM alert_outbox WHERE group_id = $1 AND destination_id = $2 AND id > $3',
        [groupId, destinationId, first.id],
      );
      return body;
    });
  }

  async recordDelivery(record: DeliveryRecord): Promise<void> {
    await this.query(LOG_DELIVERIES, [recordsJson([record])]);
  }

  async deliveryTimesSince(since: number): Promise<{ groupId: string; at: number }[]> {
    const { rows } = await this.query<{ group_id: string; at: string }>(
      'SELECT group_id, at FROM alert_deliveries WHERE at >= $1 ORDER BY at, id',
      [since],
    );
    return rows.map((row) => ({ groupId: row.group_id, at: Number(row.at) }));
  }

  async deliveriesSince(groupId: string, since: number): Promise<number> {
    const { rows } = await this.query<{ n: string }>(
      'SELECT count(*) AS n FROM alert_deliveries WHERE group_id = $1 AND at >= $2',
      [groupId, since],
    );
    return Number(rows[0]?.n ?? 0);
  }

  async deliveries(
    groupId: string,
    destinationId: string,
    limit: number,
  ): Promise<LoggedDelivery[]> {
    const { rows } = await this.query<DeliveryRow>(
      `SELECT * FROM alert_deliveries WHERE group_id = $1 AND destination_id = $2
       ORDER BY id DESC LIMIT $3`,
      [groupId, destinationId, limit],
    );
    return rows.map(toLoggedDelivery);
  }

  async destinationStates(
    groupId: string,
    destinationIds: readonly string[],
  ): Promise<Map<string, AlertDestinationState>> {
    const { rows } = await this.query<{ d: string; retrying: boolean; outcome: string | null }>(
      `SELECT d,
         EXISTS (SELECT 1 FROM alert_outbox o WHERE o.group_id = $1 AND o.destination_id = d
           AND o.attempts > 0) AS retrying,
         (SELECT outcome FROM alert_deliveries l WHERE l.group_id = $1 AND l.destination_id = d
           AND NOT l.test ORDER BY id DESC LIMIT 1) AS outcome
       FROM unnest($2::text[]) AS d`,
      [groupId, destinationIds],
    );
    return new Map(
      rows.map((row) => [row.d, stateOf(row.retrying, row.outcome as AlertDeliveryOutcome | null)]),
    );
  }

  async subscribePush(
    groupId: string,
    subscription: Omit<StoredPushSubscription, 'createdAt'>,
    options: { now: number; max: number },
  ): Promise<void> {
    await this.query(
      `INSERT INTO push_subscriptions (group_id, endpoint, p256dh, auth, created_at)
       VALUES ($1, $2, $3, $4, $5) ON CONFLICT (group_id, endpoint)
       DO UPDATE SET p256dh = excluded.p256dh, auth = excluded.auth,
         created_at = excluded.created_at`,
      [groupId, subscription.endpoint, subscription.p256dh, subscription.auth, options.now],
    );
    await this.query(
      `DELETE FROM push_subscriptions WHERE group_id = $1 AND endpoint IN (
         SELECT endpoint FROM push_subscriptions WHERE group_id = $1
         ORDER BY created_at DESC, endpoint DESC OFFSET $2)`,
      [groupId, options.max],
    );
  }

  async unsubscribePush(groupId: string, endpoint: string): Promise<boolean> {
    const { rowCount } = await this.query(
      'DELETE FROM push_subscriptions WHERE group_id = $1 AND endpoint = $2',
      [groupId, endpoint],
    );
    return (rowCount ?? 0) > 0;
  }

  async pushSubscriptions(groupId: string): Promise<StoredPushSubscription[]> {
    const { rows } = await this.query<{
      endpoint: string;
      p256dh: string;
      auth: string;
      created_at: string;
    }>(
      `SELECT endpoint, p256dh, auth, created_at FROM push_subscriptions WHERE group_id = $1
       ORDER BY created_at, endpoint`,
      [groupId],
    );
    return rows.map((row) => ({
      endpoint: row.endpoint,
      p256dh: row.p256dh,
      auth: row.auth,
      createdAt: Number(row.created_at),
    }));
  }

  async setting(name: string, create: () => string): Promise<string> {
    const read = async () =>
      (
        await this.query<{ value: string }>('SELECT value FROM server_settings WHERE name = $1', [
          name,
        ])
      ).rows[0]?.value;
    const found = await read();
    if (found !== undefined) return found;
    await this.query(
      'INSERT INTO server_settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING',
      [name, create()],
    );
    return (await read()) ?? create();
  }
}
