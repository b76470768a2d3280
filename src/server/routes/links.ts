/**
 * The tap link routes (docs/api.md#tap-links): a group's links, made, listed and revoked. Every
 * one needs the group's access key: a view-only key gets read_only, a tap link's key tap_only.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { TapLinkBodySchema } from '../../shared/links.js';
import type { GroupAccess } from '../core/access-cache.js';
import type { TallyService } from '../core/service.js';
import type { TapLinkService } from '../core/tap-links.js';
import { bearerKey, originOf, parseWith } from './parse.js';

type GroupParams = { Params: { name: string } };
type LinkParams = { Params: { name: string; id: string } };

export function registerLinkRoutes(
  app: FastifyInstance,
  services: { service: TallyService; links: TapLinkService },
): void {
  const { service, links } = services;
  /** Tap links are for holders of the access key only, listing them included. */
  const authorize = (request: FastifyRequest<{ Params: { name: string } }>): Promise<GroupAccess> =>
    service.authorize(request.params.name, bearerKey(request), { client: request.ip });

  app.get<GroupParams>('/api/groups/:name/links', async (request) =>
    links.list(await authorize(request)),
  );

  app.post<GroupParams>('/api/groups/:name/links', async (request, reply) => {
    const group = await authorize(request);
    const body = parseWith(TapLinkBodySchema, request.body);
    const created = await links.create(group, body, originOf(request));
    return reply.code(created.key === undefined ? 200 : 201).send(created);
  });

  app.delete<LinkParams>('/api/groups/:name/links/:id', async (request, reply) => {
    const group = await authorize(request);
    await links.revoke(group, request.params.id, originOf(request));
    return reply.code(204).send();
  });
}
