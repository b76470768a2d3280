/**
 * The public HTTP API (docs/api.md). Each handler parses its input with the shared schemas,
 * checks the key, and calls the core service; nothing here touches the database directly.
 */
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  AdjustBodySchema,
  CounterPatchSchema,
  CreateCounterBodySchema,
  GroupPatchSchema,
  JoinBodySchema,
  OrderBodySchema,
  RotateKeyBodySchema,
  SectionBodySchema,
  SectionNameSchema,
  type CounterOrder,
  type Group,
  type AdjustDirection,
  type Counter,
  type Mutation,
  type MutationResult,
} from '../../shared/api.js';
import { MESSAGES } from '../../shared/messages.js';
import type { TallyService } from '../core/service.js';
import { scopedView } from '../core/scope.js';
import { countersBytes, viewWith } from '../core/snapshots.js';
import { busyError } from '../batcher.js';
import { DomainError } from '../errors.js';
import { heldRefusal } from './errors.js';
import type { LiveFairShare } from '../live/fair-share.js';
import type { GroupAccess } from '../core/access-cache.js';
import { bearerKey, originOf, parseExact, parseWith } from './parse.js';

type GroupParams = { Params: { name: string } };
type CounterParams = { Params: { name: string; id: string } };
type SectionParams = { Params: { name: string; section: string } };

export function registerApiRoutes(
  app: FastifyInstance,
  service: TallyService,
  /** Each address's share of the taps while the event loop is behind (shared with the live channel). */
  fairShare: LiveFairShare,
): void {
  /** The group, if the request's key is its access key (a change other than a tap). */
  const authorize = (request: FastifyRequest<{ Params: { name: string } }>): Promise<GroupAccess> =>
    service.authorize(request.params.name, bearerKey(request), { client: request.ip });

  app.get<GroupParams>('/api/groups/:name', async (request) =>
    service.preview(request.params.name),
  );

  app.post<GroupParams>('/api/groups/:name/join', async (request, reply) => {
    const { key } = parseExact(JoinBodySchema, request.body ?? {});
    const { view, access, link, created } = await service.join(
      request.params.name,
      key,
      request.ip,
    );
    // Serialised once per change number however many members join, and written by reference
    // (core/snapshots.ts): only the answer's first field is this request's own.
    const { head, tail } = viewWith(view, link ? { access, link } : { access });
    return reply
      .code(created ? 201 : 200)
      .type('application/json; charset=utf-8')
      .header('content-length', head.length + tail.length)
      .send(Readable.from([head, tail]));
  });

  app.patch<GroupParams>('/api/groups/:name', async (request) => {
    const group = await authorize(request);
    const patch = parseWith(GroupPatchSchema, request.body);
    const result = await service.mutate(
      group.id,
      { kind: 'updateGroup', patch },
      originOf(request),
    );
    if (result.kind !== 'group') throw reusedOperationId();
    return result.group;
  });

  app.get<GroupParams>('/api/groups/:name/counters', async (request, reply) => {
    const { group, link } = await service.authorizeScoped(request.params.name, bearerKey(request), {
      client: request.ip,
      need: 'see',
    });
    const view = await service.snapshot(group.id);
    // Serialised once per change number (and tap link) however often it is asked for
    // (core/snapshots.ts).
    return reply
      .type('application/json; charset=utf-8')
      .send(countersBytes(link ? scopedView(view, link) : view));
  });

  app.post<GroupParams>('/api/groups/:name/counters', async (request, reply) => {
    const group = await authorize(request);
    const { opId, ...fields } = parseWith(CreateCounterBodySchema, request.body ?? {});
    const result = await service.mutate(
      group.id,
      { kind: 'createCounter', fields },
      originOf(request, opId),
    );
    return reply.code(201).send(counterOf(result));
  });

  app.patch<CounterParams>('/api/groups/:name/counters/:id', async (request) => {
    const group = await authorize(request);
    const patch = parseWith(CounterPatchSchema, request.body);
    const result = await service.mutate(
      group.id,
      { kind: 'updateCounter', counterId: request.params.id, patch },
      originOf(request),
    );
    return counterOf(result, request.params.id);
  });

  const adjust =
    (direction: AdjustDirection) =>
    async (request: FastifyRequest<CounterParams>): Promise<Counter> => {
      // A tap link may tap too: the commit holds it to its scope and rights.
      const { group, link } = await service.authorizeScoped(
        request.params.name,
        bearerKey(request),
        { client: request.ip, need: 'tap' },
      );
      // While the event loop is behind, an address over its share of the taps (live and REST
      // together) is refused `busy` before the commit sees it (live/fair-share.ts, ADR 34), the
      // answer held so that resending at once does not keep the server busy refusing.
      if (fairShare.overShare(request.ip)) throw heldRefusal(busyError());
      const { times, opId, note, at } = parseWith(AdjustBodySchema, request.body ?? {});
      const mutation: Extract<Mutation, { kind: 'adjustCounter' }> = {
        kind: 'adjustCounter',
        counterId: request.params.id,
        direction,
        times,
      };
      // A note or an earlier time only when given: a plain tap is the mutation it always was.
      if (note !== undefined) mutation.note = note;
      if (at !== undefined) mutation.at = at;
      const result = await service.mutate(group.id, mutation, { ...originOf(request, opId), link });
      return counterOf(result, request.params.id);
    };
  app.post<CounterParams>('/api/groups/:name/counters/:id/increment', adjust('increment'));
  app.post<CounterParams>('/api/groups/:name/counters/:id/decrement', adjust('decrement'));

  app.put<GroupParams>('/api/groups/:name/order', async (request): Promise<CounterOrder> => {
    const group = await authorize(request);
    // A body that is no list of ids is 400; a list that is not every counter once is 422.
    const { counterIds } = parseWith(OrderBodySchema, request.body);
    const result = await service.mutate(
      group.id,
      { kind: 'reorderCounters', counterIds },
      originOf(request),
    );
    if (result.kind !== 'order') throw reusedOperationId();
    return { counterIds: result.counterIds };
  });

  app.put<SectionParams>('/api/groups/:name/sections/:section', async (request): Promise<Group> => {
    const group = await authorize(request);
    const section = parseWith(SectionNameSchema, request.params.section);
    const { max } = parseWith(SectionBodySchema, request.body);
    const result = await service.mutate(
      group.id,
      { kind: 'updateSection', section, max },
      originOf(request),
    );
    if (result.kind !== 'group') throw reusedOperationId();
    return result.group;
  });

  app.delete<CounterParams>(
    '/api/groups/:name/counters/:id',
    async (request, reply: FastifyReply) => {
      const group = await authorize(request);
      const result = await service.mutate(
        group.id,
        { kind: 'deleteCounter', counterId: request.params.id },
        originOf(request),
      );
      if (result.kind !== 'deleted' || result.counterId !== request.params.id)
        throw reusedOperationId();
      return reply.code(204).send();
    },
  );
}

/** Key rotation and the view-only link (ADR 9): only the group's access key may do these. */
export function registerAccessRoutes(app: FastifyInstance, service: TallyService): void {
  const authorize = (request: FastifyRequest<GroupParams>) =>
    service.authorize(request.params.name, bearerKey(request), { client: request.ip });

  app.post<GroupParams>('/api/groups/:name/key', async (request) => {
    const group = await authorize(request);
    const body = parseExact(RotateKeyBodySchema, request.body ?? {});
    const result = await service.rotateKey(group, body, originOf(request));
    if (result.kind !== 'group') throw reusedOperationId();
    return result.group;
  });

  app.get<GroupParams>('/api/groups/:name/view-key', async (request) => {
    const group = await authorize(request);
    return service.viewLink(group, bearerKey(request) ?? '');
  });

  app.post<GroupParams>('/api/groups/:name/view-key', async (request) =>
    service.setViewLink(await authorize(request), bearerKey(request) ?? '', true),
  );

  app.delete<GroupParams>('/api/groups/:name/view-key', async (request, reply) => {
    await service.setViewLink(await authorize(request), bearerKey(request) ?? '', false);
    return reply.code(204).send();
  });
}

/**
 * The counter a mutation answered with. The store refuses an operation id reused for a
 * different change (its stored fingerprint differs: operation_id_reused). Ids stored before
 * fingerprints existed replay their first answer; if that was another kind of change or another
 * counter, the id was reused, which is refused here too (nothing was applied).
 */
function counterOf(result: MutationResult, counterId?: string): Counter {
  if (result.kind !== 'counter') throw reusedOperationId();
  if (counterId !== undefined && result.counter.id !== counterId) throw reusedOperationId();
  return result.counter;
}

function reusedOperationId(): DomainError {
  return new DomainError('operation_id_reused', MESSAGES.operationIdReused);
}
