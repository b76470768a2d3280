/**
 * Alerts as members and scripts manage them (docs/alerts.md): rules added and removed through
 * the commit (so they are ordered with the taps around them), their destinations checked before
 * they are stored, the delivery log, "Send test", and the group's Web Push subscriptions. Only
 * holders of the full key get here (the routes refuse view-only keys with read_only).
 */
import { randomBytes } from 'node:crypto';
import {
  ALERT_DELIVERY_LOG_LENGTH,
  MAX_ALERT_DESTINATIONS_PER_GROUP,
  MAX_ALERT_RULES_PER_GROUP,
  MAX_PUSH_SUBSCRIPTIONS_PER_GROUP,
  alertRuleSummary,
  type AlertCreated,
  type AlertDelivery,
  type AlertEventBody,
  type AlertList,
  type AlertRuleInput,
  type AlertRuleView,
  type AlertDestinationState,
} from '../../shared/alerts.js';
import { ALERT_MESSAGES } from '../../shared/alerts.js';
import {
  destinationOf,
  type GroupAlerts,
  type StoredAlertRule,
  type StoredDestination,
} from '../domain/alert-config.js';
import { alertEventBody, type AlertEvent } from '../domain/alert-rules.js';
import { DomainError } from '../errors.js';
import type { AlertStore, LoggedDelivery } from '../store/alerts.js';
import type { Store } from '../store/types.js';
import { checkDestinationUrl, resolveAndCheck, type Resolver } from '../alerts/destination.js';
import { newWebhookSecret } from '../alerts/formats.js';
import type { PushSubscription } from '../alerts/push.js';
import type { AlertSender } from '../alerts/sender.js';
import type { GroupAccess } from './access-cache.js';
import { idForOperation } from './derived-ids.js';
import type { MutationOrigin, TallyService } from './service.js';

export interface AlertServiceOptions {
  store: Store;
  service: TallyService;
  sender: AlertSender;
  /** ALERTS_ALLOW_PRIVATE_TARGETS. */
  allowPrivate: boolean;
  /** PUBLIC_URL's origin, if set. */
  publicUrl: string | undefined;
  /** The server's VAPID public key (base64url). */
  vapidPublicKey: string;
  resolver?: Resolver;
}

const PUSH_DESTINATION_ID = 'push';

const notFound = () => new DomainError('alert_not_found', ALERT_MESSAGES.alertNotFound);

/** The host a webhook sends to, as members may see it (its full URL carries its token). */
function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '';
  }
}

const iso = (ms: number) => new Date(ms).toISOString();

export class AlertService {
  private readonly options: AlertServiceOptions;
  private readonly alerts: AlertStore;

  constructor(options: AlertServiceOptions) {
    this.options = options;
    this.alerts = options.store.alerts;
  }

  get vapidPublicKey(): string {
    return this.options.vapidPublicKey;
  }

  /** ALERTS_ALLOW_PRIVATE_TARGETS. */
  get allowsPrivateTargets(): boolean {
    return this.options.allowPrivate;
  }

  /** Refuses an address alerts may not be sent to: its form, then what its host resolves to. */
  private async checkAddress(url: string): Promise<URL> {
    const options = { allowPrivate: this.options.allowPrivate, resolver: this.options.resolver };
    const checked = checkDestinationUrl(url, options);
    if (!checked.ok) throw new DomainError('destination_refused', checked.message);
    const resolved = await resolveAndCheck(checked.url.hostname, options);
    if (!resolved.ok) throw new DomainError('destination_refused', resolved.message);
    return checked.url;
  }

  private async groupAlerts(group: GroupAccess): Promise<GroupAlerts> {
    const alerts = await this.alerts.groupAlerts(group.id);
    if (alerts === null) throw new DomainError('group_not_found', 'This group does not exist.');
    return alerts;
  }

  /** Every rule, oldest first, with where its destination stands. */
  async list(group: GroupAccess): Promise<AlertList> {
    return this.listOf(group, await this.groupAlerts(group));
  }

  /** The list for rules already read. */
  private async listOf(group: GroupAccess, alerts: GroupAlerts): Promise<AlertList> {
    const states = await this.alerts.destinationStates(
      group.id,
      alerts.destinations.map((destination) => destination.id),
    );
    const subscribers = alerts.destinations.some((place) => place.kind === 'push')
      ? (await this.alerts.pushSubscriptions(group.id)).length
      : 0;
    return {
      rules: alerts.rules.map((rule) => this.view(alerts, rule, { states, subscribers })),
      limits: { rules: MAX_ALERT_RULES_PER_GROUP, destinations: MAX_ALERT_DESTINATIONS_PER_GROUP },
    };
  }

  private view(
    alerts: GroupAlerts,
    rule: StoredAlertRule,
    context: { states: Map<string, AlertDestinationState>; subscribers: number },
  ): AlertRuleView {
    const destination = destinationOf(alerts, rule);
    const state = context.states.get(rule.destinationId) ?? 'new';
    return {
      ...alertRuleSummary(rule),
      createdAt: iso(rule.createdAt),
      destination:
        destination?.kind === 'webhook'
          ? {
              id: destination.id,
              kind: 'webhook',
              format: destination.format,
              host: hostOf(destination.url),
              state,
              subscribers: null,
            }
          : {
              id: rule.destinationId,
              kind: 'push',
              format: null,
              host: null,
              state,
              subscribers: context.subscribers,
            },
    };
  }

  /**
   * Adds a rule. A webhook's address is checked first (its form, then what its host resolves
   * to); `requestOrigin` is where the rule was made, the link base when PUBLIC_URL is unset.
   */
  async add(
    group: GroupAccess,
    input: AlertRuleInput,
    context: { requestOrigin: string; origin: MutationOrigin },
  ): Promise<AlertCreated> {
    const destination = await this.destinationFor(input, context.requestOrigin);
    const rule: StoredAlertRule = {
      ...input,
      // A retry with the same operation id names the same rule, so its answer can be found.
      id: idForOperation(group.id, context.origin.opId),
      destinationId: destination.id,
      createdAt: Date.now(),
    };
    await this.options.service.changeAlerts(
      group.id,
      { kind: 'addAlertRule', rule, destination },
      context.origin,
    );
    this.options.sender.warm();
    const alerts = await this.groupAlerts(group);
    const list = await this.listOf(group, alerts);
    const view = list.rules.find((candidate) => candidate.id === rule.id);
    if (!view) throw notFound();
    // The secret is shown once: when this rule made the destination, not when it joined one.
    const stored = alerts.destinations.find((place) => place.id === view.destination.id);
    const secret =
      destination.kind === 'webhook' &&
      stored?.kind === 'webhook' &&
      destination.secret !== null &&
      stored.secret === destination.secret
        ? destination.secret
        : undefined;
    return secret === undefined ? { rule: view } : { rule: view, secret };
  }

  private async destinationFor(
    input: AlertRuleInput,
    requestOrigin: string,
  ): Promise<StoredDestination> {
    const { to } = input;
    if (to.kind === 'push') return { id: PUSH_DESTINATION_ID, kind: 'push' };
    await this.checkAddress(to.url);
    return {
      id: randomBytes(9).toString('base64url'),
      kind: 'webhook',
      url: to.url,
      format: to.format,
      secret: to.format === 'standard' ? newWebhookSecret() : null,
      linkBase: this.options.publicUrl ?? requestOrigin,
    };
  }

  async remove(group: GroupAccess, ruleId: string, origin: MutationOrigin): Promise<void> {
    await this.options.service.changeAlerts(group.id, { kind: 'removeAlertRule', ruleId }, origin);
  }

  private async ruleOf(
    group: GroupAccess,
    ruleId: string,
  ): Promise<{ alerts: GroupAlerts; rule: StoredAlertRule; destination: StoredDestination }> {
    const alerts = await this.groupAlerts(group);
    const rule = alerts.rules.find((candidate) => candidate.id === ruleId);
    const destination = rule && destinationOf(alerts, rule);
    if (!rule || !destination) throw notFound();
    return { alerts, rule, destination };
  }

  /** The rule's destination's last attempts, newest first. */
  async deliveries(group: GroupAccess, ruleId: string): Promise<{ deliveries: AlertDelivery[] }> {
    const { destination } = await this.ruleOf(group, ruleId);
    const logged = await this.alerts.deliveries(
      group.id,
      destination.id,
      ALERT_DELIVERY_LOG_LENGTH,
    );
    return { deliveries: logged.map(deliveryView) };
  }

  /** Sends the rule's alert as it would read, marked as a test, and answers with the attempt. */
  async test(group: GroupAccess, ruleId: string): Promise<{ delivery: AlertDelivery }> {
    const { rule, destination } = await this.ruleOf(group, ruleId);
    const state = await this.options.store.loadGroupState(group.id);
    const counter =
      state?.counters.find((candidate) =>
        rule.counterId !== null
          ? candidate.id === rule.counterId
          : rule.section === null || candidate.section === rule.section,
      ) ?? null;
    const event = testEvent(
      rule,
      counter ?? { id: rule.counterId ?? 'example', name: 'Example', value: 0 },
    );
    const body: AlertEventBody = alertEventBody(event, { group: group.name, rule });
    const logged = await this.options.sender.sendTest({
      groupId: group.id,
      destination,
      event: { ...body, test: true },
    });
    return { delivery: deliveryView(logged) };
  }

  async subscribe(group: GroupAccess, subscription: PushSubscription): Promise<void> {
    // A push service is an outside address like any webhook: checked now and at each push.
    await this.checkAddress(subscription.endpoint);
    await this.alerts.subscribePush(
      group.id,
      {
        endpoint: subscription.endpoint,
        p256dh: subscription.keys.p256dh,
        auth: subscription.keys.auth,
      },
      { now: Date.now(), max: MAX_PUSH_SUBSCRIPTIONS_PER_GROUP },
    );
  }

  async unsubscribe(group: GroupAccess, endpoint: string): Promise<void> {
    await this.alerts.unsubscribePush(group.id, endpoint);
  }
}

/** What a test of `rule` says: the event its kind makes, for `counter` as it is now. */
function testEvent(
  rule: StoredAlertRule,
  counter: { id: string; name: string; value: number },
): AlertEvent {
  const base = {
    ruleId: rule.id,
    counter: { id: counter.id, name: counter.name, value: counter.value },
    by: null,
    at: new Date().toISOString(),
  };
  const { when } = rule;
  switch (when.kind) {
    case 'reaches':
      return { ...base, type: 'counter.reached' };
    case 'fallsTo':
      return { ...base, type: 'counter.fell' };
    case 'goal':
      return { ...base, type: 'counter.goal' };
    case 'every':
      return { ...base, type: 'counter.every', multiple: when.value };
    case 'capacity':
      return {
        ...base,
        type: 'counter.capacity',
        capacity: { state: when.state, change: 'entered' },
      };
    case 'periodEnd': {
      const end = new Date();
      const start = new Date(end.getTime() - 24 * 60 * 60 * 1000);
      return {
        ...base,
        type: 'counter.period',
        period: { start: start.toISOString(), end: end.toISOString(), total: counter.value },
      };
    }
  }
}

function deliveryView(logged: LoggedDelivery): AlertDelivery {
  return {
    id: logged.id,
    at: iso(logged.at),
    type: logged.type,
    test: logged.test,
    outcome: logged.outcome,
    status: logged.status,
    error: logged.error,
    attempt: logged.attempt,
    durationMs: logged.durationMs,
  };
}
