/**
 * The alert sender: takes alerts from the outbox the commit wrote them to (ADR 29) and delivers
 * them, outside the commit path, so a slow or failing receiver never slows a tap.
 *
 * - At least once, in order per destination: the store hands out only the oldest waiting alert
 *   of each destination, leased to this instance; it leaves the outbox when it was delivered or
 *   given up. A crash between the commit and the delivery leaves it there for the next start
 *   (or, on PostgreSQL, for another instance once the lease is over).
 * - Few statements per alert: one claim for many alerts; the ends of the attempts that finish
 *   within WRITE_EVERY_MS written together, log entries and all, in one transaction before the
 *   next claim. A destination's next alert cannot be claimed before the one ahead of it is
 *   written off, so order holds.
 * - Each attempt has ALERT_TIMEOUT_MS; a failed one is tried again after a backoff that doubles
 *   from RETRY_FIRST_MS up to RETRY_MAX_MS, until ALERT_GIVE_UP_AFTER_MS after the change: then
 *   it is given up and its destination shows as failing.
 * - A group gets at most ALERT_DELIVERIES_PER_MINUTE_PER_GROUP attempts a minute (budget.ts):
 *   past what is left of it, a destination's waiting alerts are folded into one (`folded: n`).
 * - The courier writes, signs and sends each alert (courier.ts), in a worker thread of its own
 *   by default (courier-thread.ts): one connection kept open per destination between its
 *   alerts, addresses checked when it is made. This loop only claims, hands over and settles.
 */
import {
  ALERT_DELIVERIES_PER_MINUTE_PER_GROUP,
  ALERT_GIVE_UP_AFTER_MS,
  type AlertDeliveryOutcome,
  type AlertEventBody,
} from '../../shared/alerts.js';
import type { FastifyBaseLogger } from 'fastify';
import type { StoredDestination } from '../domain/alert-config.js';
import {
  ALERT_BUDGET_WINDOW_MS,
  type AlertStore,
  type ClaimedAlert,
  type DeliveryRecord,
  type LoggedDelivery,
  type OutboxAlert,
  type SettledAlert,
} from '../store/alerts.js';
import { DeliveryBudget } from './budget.js';
import type { Courier } from './courier.js';
import { ThreadCourier } from './courier-thread.js';
import type { AlertTarget } from './formats.js';
import type { DeliveryResult } from './outbound.js';
import { pushAlertOf, type VapidDetails } from './push.js';

/** One attempt's whole budget: lookups, connection, answer. */
export const ALERT_TIMEOUT_MS = 5_000;
/** The wait before the first retry; each later one waits twice the one before. */
export const RETRY_FIRST_MS = 10_000;
/** The longest wait between two tries of one alert. */
export const RETRY_MAX_MS = 60 * 60 * 1000;
/** How long an instance holds an alert it took: a push to 50 browsers fits well within it. */
const LEASE_MS = 60_000;
/** Alerts in flight at once, over all destinations (one per destination at most). */
const MAX_IN_FLIGHT = 32;
/** How often the outbox is looked at when nothing woke the sender (retries, other instances). */
const POLL_MS = 1_000;
/**
 * How long the end of an attempt waits to be written with the others that end meanwhile, ms:
 * one transaction (one commit) for them all. The destination's next alert waits for it too.
 */
const WRITE_EVERY_MS = 50;
/** How long a group that used its minute's deliveries waits before its next alert is looked at. */
const BUDGET_WAIT_MS = 5_000;
/**
 * Most alerts waiting for one destination before they are folded into one: behind a receiver
 * that is down for hours, the outbox stays this small (plus what COMPACT_EVERY_MS lets in).
 */
export const MAX_WAITING_PER_DESTINATION = 100;
/** How often crowded destinations are folded. */
const COMPACT_EVERY_MS = 10_000;
/** Destinations and group names kept in memory, most (each about 2 KB at worst). */
const KEPT_DESTINATIONS = 1_000;
/** How long a group's display name is used before it is read again: a rename shows by then. */
const GROUP_NAME_KEPT_MS = 10_000;
/** How long a push service keeps an alert for a browser that is offline, seconds. */
const PUSH_TTL_SECONDS = 24 * 60 * 60;

/** The wait before try `attempt + 1`, after `attempt` failed ones (1-based), ms. */
export function retryDelay(attempt: number, firstMs = RETRY_FIRST_MS): number {
  return Math.min(RETRY_MAX_MS, firstMs * 2 ** Math.max(0, attempt - 1));
}

export interface AlertSenderOptions {
  alerts: AlertStore;
  /** The group's display name by its slug (the sentence names the group as members see it). */
  groupName: (slug: string) => Promise<string | null>;
  /** ALERTS_ALLOW_PRIVATE_TARGETS. */
  allowPrivate: boolean;
  vapid: VapidDetails;
  logger: Pick<FastifyBaseLogger, 'warn'>;
  clock?: () => number;
  /** What sends the alerts: by default a ThreadCourier (a worker thread of its own). */
  courier?: Courier;
  /** The wait before the first retry, ms (RETRY_FIRST_MS; tests retry sooner). */
  retryFirstMs?: number;
}

/** What one attempt came to, before it is logged. */
interface Attempt {
  ok: boolean;
  /** No retry can change it (the alert is then given up at once). */
  final: boolean;
  status: number | null;
  error: string | null;
  durationMs: number;
  /** Web Push: the endpoints reached so far (JSON), kept for the retry. */
  progress: string | null;
}

export class AlertSender {
  private readonly options: AlertSenderOptions;
  private readonly clock: () => number;
  private readonly inFlight = new Set<Promise<void>>();
  private running = false;
  private loop: Promise<void> | null = null;
  private wakeUp: (() => void) | null = null;
  private woken = false;
  private wakePending = false;
  private unsubscribe: (() => void) | null = null;
  /** Destinations read so far, by `group/destination`, least recently used first (keep). */
  private readonly destinations = new Map<string, StoredDestination>();
  /** Group display names by slug, with when they were read (groupName). */
  private readonly groupNames = new Map<string, { name: string | null; at: number }>();
  private readonly budget: DeliveryBudget;
  private readonly courier: Courier;
  /** Ends of attempts not written to the store yet: written together before the next claim. */
  private ends: SettledAlert[] = [];
  /** Set when the ends are due to be written (WRITE_EVERY_MS after the first of them). */
  private writeTimer: NodeJS.Timeout | null = null;
  private writeDue = false;
  /** The last claim filled every slot: an attempt that ends makes room for another claim. */
  private full = false;

  constructor(options: AlertSenderOptions) {
    this.options = options;
    this.clock = options.clock ?? Date.now;
    this.budget = new DeliveryBudget(options.alerts.exclusive);
    this.courier =
      options.courier ??
      new ThreadCourier({ allowPrivate: options.allowPrivate, timeoutMs: ALERT_TIMEOUT_MS });
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.unsubscribe = this.options.alerts.onWritten(() => {
      this.wake();
    });
    this.loop = this.run();
  }

  /**
   * Stops taking alerts, waits for the attempts under way (each ends within its timeout),
   * writes their ends and closes the kept connections.
   */
  async stop(): Promise<void> {
    this.running = false;
    this.unsubscribe?.();
    this.wake();
    await this.loop;
    await Promise.all(this.inFlight);
    if (this.writeTimer) clearTimeout(this.writeTimer);
    this.writeTimer = null;
    await this.write();
    await this.courier.close();
    this.destinations.clear();
  }

  /** Has the courier ready before the first alert: a group has just made an alert rule. */
  warm(): void {
    if (this.running) this.courier.warm();
  }

  /** Looks at the outbox soon (a commit wrote alerts, an attempt made room). */
  wake(): void {
    this.woken = true;
    this.resumeSoon();
  }

  /**
   * Resumes an idle loop once the callbacks already due have run (setImmediate): the commits
   * and attempts of one turn of the event loop wake it once.
   */
  private resumeSoon(): void {
    if (this.wakePending || this.wakeUp === null) return;
    this.wakePending = true;
    setImmediate(() => {
      this.wakePending = false;
      this.wakeUp?.();
    });
  }

  private async run(): Promise<void> {
    if (this.budget.exclusive) {
      try {
        const since = this.clock() - ALERT_BUDGET_WINDOW_MS;
        this.budget.seed(await this.options.alerts.deliveryTimesSince(since));
      } catch (error) {
        this.options.logger.warn({ err: error }, 'alert delivery log could not be read');
      }
    }
    let compactedAt = 0;
    while (this.running) {
      this.woken = false;
      if (this.writeDue) {
        this.writeDue = false;
        await this.write();
      }
      if (this.clock() - compactedAt >= COMPACT_EVERY_MS) {
        compactedAt = this.clock();
        this.budget.prune(compactedAt);
        await this.options.alerts.compact(MAX_WAITING_PER_DESTINATION).catch((error: unknown) => {
          this.options.logger.warn({ err: error }, 'alert outbox could not be compacted');
        });
      }
      const room = MAX_IN_FLIGHT - this.inFlight.size;
      this.full = room <= 0;
      if (room > 0) {
        try {
          const claimed = await this.options.alerts.claim(this.clock(), LEASE_MS, room);
          this.full = claimed.length >= room;
          // Handed to the courier together, in one message (courier-thread.ts).
          for (const alert of claimed) this.launch(alert);
        } catch (error) {
          // The database is away: the alerts wait in the outbox; look again at the next poll.
          this.options.logger.warn({ err: error }, 'alert outbox could not be read');
        }
      }
      // Every due alert that could be taken was (or no room was left): wait for news.
      await this.idle();
    }
  }

  /** Waits for a wake-up or the next poll. */
  private idle(): Promise<void> {
    if (!this.running) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakeUp = null;
        resolve();
      };
      const timer = setTimeout(done, POLL_MS);
      timer.unref();
      this.wakeUp = done;
      if (this.woken) this.resumeSoon();
    });
  }

  /**
   * Writes the ends of the attempts that finished since the last write, in one transaction.
   * If the store is away they wait for the next write; their alerts stay leased meanwhile (one
   * whose lease ends first is sent again, with the same id: at least once).
   */
  private async write(): Promise<void> {
    if (this.ends.length === 0) return;
    const ends = this.ends;
    this.ends = [];
    try {
      await this.options.alerts.settle(ends);
    } catch (error) {
      this.ends = ends.concat(this.ends);
      this.writeSoon(POLL_MS);
      this.options.logger.warn({ err: error }, 'alert deliveries could not be recorded');
      return;
    }
    for (const end of ends) if (end.record) this.budget.logged(end.record.groupId);
  }

  private launch(alert: ClaimedAlert): void {
    const task = this.handle(alert)
      .catch((error: unknown) => {
        // The alert stays leased and is tried again once the lease is over.
        this.options.logger.warn({ err: error }, 'alert delivery could not be made');
      })
      .finally(() => {
        this.inFlight.delete(task);
        if (this.full) this.wake();
      });
    this.inFlight.add(task);
  }

  /**
   * An alert's destination. A destination never changes once made (a new address is a new
   * destination with a new id), so it is kept after the first read; when its last rule goes,
   * its waiting alerts go in the same commit, so a kept one is never used for a new alert.
   */
  private async destinationOf(
    alert: Pick<OutboxAlert, 'groupId' | 'destinationId'>,
  ): Promise<StoredDestination | undefined> {
    const kept = this.destinations.get(`${alert.groupId}/${alert.destinationId}`);
    if (kept) return this.keep(alert.groupId, kept);
    const config = await this.options.alerts.groupAlerts(alert.groupId);
    const found = config?.destinations.find((place) => place.id === alert.destinationId);
    return found && this.keep(alert.groupId, found);
  }

  /** The destination, kept as the most recently used. */
  private keep(groupId: string, destination: StoredDestination): StoredDestination {
    const key = `${groupId}/${destination.id}`;
    this.destinations.delete(key);
    this.destinations.set(key, destination);
    if (this.destinations.size > KEPT_DESTINATIONS) {
      const oldest = this.destinations.keys().next();
      if (!oldest.done) this.destinations.delete(oldest.value);
    }
    return destination;
  }

  /** A group's display name by its slug, kept for GROUP_NAME_KEPT_MS (the sentence names it). */
  private async groupName(slug: string): Promise<string | null> {
    const now = this.clock();
    const kept = this.groupNames.get(slug);
    if (kept && now - kept.at < GROUP_NAME_KEPT_MS) return kept.name;
    const name = await this.options.groupName(slug);
    this.groupNames.delete(slug);
    this.groupNames.set(slug, { name, at: now });
    if (this.groupNames.size > KEPT_DESTINATIONS) {
      const oldest = this.groupNames.keys().next();
      if (!oldest.done) this.groupNames.delete(oldest.value);
    }
    return name;
  }

  /** Hands an alert's end to the next write. */
  private settle(end: SettledAlert): void {
    this.ends.push(end);
    this.writeSoon(WRITE_EVERY_MS);
  }

  /** Has the ends written in `ms` (unless a write is due sooner). */
  private writeSoon(ms: number): void {
    if (this.writeTimer !== null) return;
    this.writeTimer = setTimeout(() => {
      this.writeTimer = null;
      this.writeDue = true;
      this.wake();
    }, ms);
    this.writeTimer.unref();
  }

  /** One claimed alert: within the group's budget, sent, and then done or retried. */
  private async handle(alert: ClaimedAlert): Promise<void> {
    const destination = await this.destinationOf(alert);
    if (!destination) {
      // Its rules were deleted since: nobody wants it any more.
      this.settle({ id: alert.id, record: null, next: null });
      return;
    }
    const now = this.clock();
    const used = this.budget.used(alert.groupId, now, alert.used);
    if (used >= ALERT_DELIVERIES_PER_MINUTE_PER_GROUP) {
      const next = { at: now + BUDGET_WAIT_MS, attempted: false, progress: null };
      this.settle({ id: alert.id, record: null, next });
      return;
    }
    this.budget.spend(alert.groupId, now);
    let body = alert.body;
    if (alert.waiting > ALERT_DELIVERIES_PER_MINUTE_PER_GROUP - used) {
      body = (await this.options.alerts.fold(alert.groupId, alert.destinationId)) ?? body;
    }
    // Written by the commit (alert-config.ts) from the schema's own type: read, not re-checked.
    const event = JSON.parse(body) as AlertEventBody;
    const attempt = await this.attempt({ alert, destination, event, eventJson: body });
    const number = alert.attempts + 1;
    const givenUp =
      !attempt.ok && (attempt.final || now - alert.createdAt >= ALERT_GIVE_UP_AFTER_MS);
    const outcome: AlertDeliveryOutcome = attempt.ok ? 'delivered' : givenUp ? 'gaveUp' : 'failed';
    const next =
      outcome === 'failed'
        ? {
            at: now + retryDelay(number, this.options.retryFirstMs),
            attempted: true,
            progress: attempt.progress,
          }
        : null;
    const record = this.record({ alert, event, attempt, outcome, number, now });
    this.settle({ id: alert.id, record, next });
  }

  private record(input: {
    alert: Pick<OutboxAlert, 'groupId' | 'destinationId'>;
    event: AlertEventBody;
    attempt: Attempt;
    outcome: AlertDeliveryOutcome;
    number: number;
    now: number;
  }): DeliveryRecord {
    const { alert, event, attempt } = input;
    return {
      groupId: alert.groupId,
      destinationId: alert.destinationId,
      at: input.now,
      type: event.type,
      test: event.test === true,
      outcome: input.outcome,
      status: attempt.status,
      error: attempt.error,
      attempt: input.number,
      durationMs: attempt.durationMs,
    };
  }

  /**
   * "Send test": the rule's alert as it would read, sent now to its destination and logged
   * (counted in the group's minute like any delivery), never retried.
   */
  async sendTest(input: {
    groupId: string;
    destination: StoredDestination;
    event: AlertEventBody;
  }): Promise<LoggedDelivery> {
    const { alerts } = this.options;
    const now = this.clock();
    const alert = { id: 0, groupId: input.groupId, destinationId: input.destination.id };
    const logged = this.budget.exclusive
      ? null
      : await alerts.deliveriesSince(input.groupId, now - ALERT_BUDGET_WINDOW_MS);
    const spent =
      this.budget.used(input.groupId, now, logged) >= ALERT_DELIVERIES_PER_MINUTE_PER_GROUP;
    if (!spent) this.budget.spend(input.groupId, now);
    const attempt: Attempt = spent
      ? {
          ok: false,
          final: true,
          status: null,
          error: `This group has sent ${String(ALERT_DELIVERIES_PER_MINUTE_PER_GROUP)} alerts in the last minute; try again in a minute.`,
          durationMs: 0,
          progress: null,
        }
      : await this.attempt({
          alert: { ...alert, progress: null, testId: `test_${String(now)}` },
          destination: this.keep(input.groupId, input.destination),
          event: input.event,
        });
    const record = this.record({
      alert,
      event: input.event,
      attempt,
      outcome: attempt.ok ? 'delivered' : 'gaveUp',
      number: 1,
      now,
    });
    await alerts.recordDelivery(record);
    if (!spent) this.budget.logged(input.groupId);
    const [last] = await alerts.deliveries(input.groupId, input.destination.id, 1);
    return last ?? { ...record, id: 0 };
  }

  /** One attempt of one alert to its destination. */
  private async attempt(input: {
    alert: Pick<OutboxAlert, 'id' | 'groupId' | 'progress'> & { testId?: string };
    destination: StoredDestination;
    event: AlertEventBody;
    /** The event as the commit wrote it: a `standard` body sends it as it is. */
    eventJson?: string;
  }): Promise<Attempt> {
    const { alert, destination, event } = input;
    if (destination.kind === 'push') {
      const groupName = (await this.groupName(event.group)) ?? event.group;
      return this.push({ alert, event, groupName });
    }
    // A standard body names the group by its slug: only the sentences need its display name.
    const groupName =
      destination.format === 'standard'
        ? event.group
        : ((await this.groupName(event.group)) ?? event.group);
    const target: AlertTarget =
      destination.format === 'standard'
        ? { format: 'standard', url: destination.url, secret: destination.secret ?? '' }
        : { format: destination.format, url: destination.url };
    const result = await this.courier.webhook({
      key: `${alert.groupId}/${destination.id}`,
      attempt: {
        // The same id on every retry: receivers deduplicate on it (Standard Webhooks).
        id: alert.testId ?? `alert_${String(alert.id)}`,
        event,
        eventJson: input.eventJson,
        groupName,
        groupUrl: `${destination.linkBase}/${encodeURIComponent(event.group)}`,
        target,
      },
    });
    return attemptOf(result);
  }

  /**
   * Web Push to every browser subscribed to the group that this alert has not reached yet;
   * a subscription its push service says is gone is deleted. It succeeds when each is reached
   * or gone.
   */
  private async push(input: {
    alert: Pick<OutboxAlert, 'groupId' | 'progress'>;
    event: AlertEventBody;
    groupName: string;
  }): Promise<Attempt> {
    const { alerts } = this.options;
    const { alert, event, groupName } = input;
    const reached = new Set<string>(
      alert.progress === null ? [] : (JSON.parse(alert.progress) as string[]),
    );
    const subscriptions = (await alerts.pushSubscriptions(alert.groupId)).filter(
      (subscription) => !reached.has(subscription.endpoint),
    );
    const payload = pushAlertOf(event, groupName);
    const started = performance.now();
    const results = await Promise.all(
      subscriptions.map(async (subscription) => {
        const result = await this.courier.push({
          subscription: {
            endpoint: subscription.endpoint,
            keys: { p256dh: subscription.p256dh, auth: subscription.auth },
          },
          payload,
          vapid: this.options.vapid,
          ttlSeconds: PUSH_TTL_SECONDS,
        });
        if (result.ok) reached.add(subscription.endpoint);
        if (result.code === 'subscription_gone') {
          await alerts.unsubscribePush(alert.groupId, subscription.endpoint);
        }
        return result;
      }),
    );
    const failures = results.filter((result) => !result.ok && result.code !== 'subscription_gone');
    const first = failures[0];
    return {
      ok: failures.length === 0,
      final: false,
      status: first?.status ?? results.find((result) => result.ok)?.status ?? null,
      error:
        first === undefined
          ? null
          : `${String(failures.length)} of ${String(subscriptions.length)} browsers not reached: ${first.error ?? 'failed'}`,
      durationMs: Math.round(performance.now() - started),
      progress: JSON.stringify([...reached]),
    };
  }
}

/** A webhook's attempt from its DestinationClient's result. */
function attemptOf(result: DeliveryResult): Attempt {
  return {
    ok: result.ok,
    // A body too large or a request that cannot be made will be the same on every try.
    final: result.code === 'body_too_large' || result.code === 'invalid_request',
    status: result.status ?? null,
    error: result.ok ? null : (result.error ?? 'The alert could not be delivered'),
    durationMs: result.durationMs,
    progress: null,
  };
}
