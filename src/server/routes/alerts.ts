/**
 * The alert routes (docs/api.md#alerts): a group's rules, their delivery logs and tests, and its
 * Web Push subscriptions. Every one needs the group's full key: a view-only key can neither see
 * nor change alerts (403 read_only).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { AlertRuleInputSchema } from '../../shared/alerts.js';
import type { GroupAccess } from '../core/access-cache.js';
import type { AlertService } from '../core/alerts.js';
import type { TallyService } from '../core/service.js';
import { PushSubscriptionSchema, SendableSubscriptionSchema } from '../alerts/push.js';
import { bearerKey, originOf, parseWith } from './parse.js';

type GroupParams = { Params: { name: string } };
type RuleParams = { Params: { name: string; id: string } };

const UnsubscribeSchema = z.strictObject({ endpoint: z.string().max(2_048) });

/** Where the request was made: the origin alert links use when PUBLIC_URL is unset. */
function requestOrigin(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}`;
}

export function registerAlertRoutes(
  app: FastifyInstance,
  services: { service: TallyService; alerts: AlertService },
): void {
  const { service, alerts } = services;
  // A push service on an intranet (or the tests') may be plain http://, as a webhook may.
  const subscriptionSchema = alerts.allowsPrivateTargets
    ? SendableSubscriptionSchema
    : PushSubscriptionSchema;
  /** Alerts are for holders of the full key only, reading them included. */
  const authorize = (request: FastifyRequest<{ Params: { name: string } }>): Promise<GroupAccess> =>
    service.authorize(request.params.name, bearerKey(request), {
      client: request.ip,
      need: 'write',
    });

  app.get('/api/push/key', () => ({ publicKey: alerts.vapidPublicKey }));

  app.get<GroupParams>('/api/groups/:name/alerts', async (request) =>
    alerts.list(await authorize(request)),
  );

  app.post<GroupParams>('/api/groups/:name/alerts', async (request, reply) => {
    const group = await authorize(request);
    const input = parseWith(AlertRuleInputSchema, request.body);
    const created = await alerts.add(group, input, {
      requestOrigin: requestOrigin(request),
      origin: originOf(request),
    });
    return reply.code(201).send(created);
  });

  app.delete<RuleParams>('/api/groups/:name/alerts/:id', async (request, reply) => {
    const group = await authorize(request);
    await alerts.remove(group, request.params.id, originOf(request));
    return reply.code(204).send();
  });

  app.get<RuleParams>('/api/groups/:name/alerts/:id/deliveries', async (request) =>
    alerts.deliveries(await authorize(request), request.params.id),
  );

  app.post<RuleParams>('/api/groups/:name/alerts/:id/test', async (request) =>
    alerts.test(await authorize(request), request.params.id),
  );

  app.post<GroupParams>('/api/groups/:name/push', async (request, reply) => {
    const group = await authorize(request);
    const subscription = parseWith(subscriptionSchema, request.body);
    await alerts.subscribe(group, subscription);
    return reply.code(201).send({ subscribed: true });
  });

  app.delete<GroupParams>('/api/groups/:name/push', async (request, reply) => {
    const group = await authorize(request);
    const { endpoint } = parseWith(UnsubscribeSchema, request.body);
    await alerts.unsubscribe(group, endpoint);
    return reply.code(204).send();
  });
}
