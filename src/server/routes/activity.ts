/**
 * Activity log, undo, history and export routes (docs/api.md). Like every route: parse with the
 * shared schemas, check the key, call the core service.
 */
import type { AlertRuleView } from '../../shared/alerts.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  ActivityQuerySchema,
  ExportQuerySchema,
  HistoryQuerySchema,
  PeriodsQuerySchema,
  UndoOperationBodySchema,
} from '../../shared/activity.js';
import { NoteBodySchema, TalliesQuerySchema, type Mutation } from '../../shared/api.js';
import { ACTIVITY_LIGHT_PAGE_MAX, SPARKLINE_POINTS } from '../../shared/limits.js';
import { accessOf, type TallyService } from '../core/service.js';
import {
  ACTIVITY_COLUMNS,
  COUNTER_COLUMNS,
  PERIOD_COLUMNS,
  activityRecord,
  counterRecord,
  csvStream,
  periodRecord,
} from '../export/csv.js';
import { jsonExportStream } from '../export/json.js';
import type { GroupAccess } from '../core/access-cache.js';
import { errors } from '../errors.js';
import type { HeavyReadEnd, HeavyReads } from '../security/heavy-reads.js';
import { hasNul } from '../security/nul.js';
import { bearerKey, originOf, parseWith } from './parse.js';

type GroupParams = { Params: { name: string } };
type EntryParams = { Params: { name: string; entryId: string } };
type CounterParams = { Params: { name: string; id: string } };

export function registerActivityRoutes(
  app: FastifyInstance,
  service: TallyService,
  {
    alertRules,
    heavyReads,
  }: {
    /** The group's alert rules, which the JSON export holds for its access key only. */
    alertRules: (group: GroupAccess) => Promise<readonly AlertRuleView[]>;
    /** Each address's budget of heavy reads: exports, history, the chain check, large pages. */
    heavyReads: HeavyReads;
  },
): void {
  /**
   * A heavy read of the request's address starts, or is refused 429 too_many_reads (after the
   * key check: a stranger learns nothing from it). Its place is freed once the answer is sent or
   * the client has gone, a streamed export's only at its end.
   */
  const heavy = (
    request: FastifyRequest,
    reply: FastifyReply,
    options?: { chargeAtEnd: boolean },
  ): HeavyReadEnd => {
    const end = heavyReads.begin(request.ip, options);
    reply.raw.once('close', () => {
      end();
    });
    return end;
  };

  /** Exports and the chain check are open to view-only links, not to tap links (tap_only). */
  const authorize = (request: FastifyRequest<{ Params: { name: string } }>): Promise<GroupAccess> =>
    service.authorize(request.params.name, bearerKey(request), {
      client: request.ip,
      need: 'read',
    });

  /**
   * The log, charts and tallies are open to tap links too, answered for the counters they see;
   * exports and the chain check are not (tap_only).
   */
  const scoped = (request: FastifyRequest<{ Params: { name: string } }>, need: 'see' | 'tap') =>
    service.authorizeScoped(request.params.name, bearerKey(request), { client: request.ip, need });

  /**
   * Key first, then the body: a caller without the key learns nothing from a 400. A tap link may
   * undo its own taps (the commit checks whose they are).
   */
  const undo = async (
    request: FastifyRequest<{ Params: { name: string } }>,
    mutationOf: () => Mutation,
  ) => {
    const { group, link } = await scoped(request, 'tap');
    const mutation = mutationOf();
    return service.mutate(group.id, mutation, { ...originOf(request), link });
  };

  // Whether the log is as it was written (ADR 30): { ok, checked } or the first broken entry.
  app.get<GroupParams>('/api/groups/:name/activity/verify', async (request, reply) => {
    const group = await authorize(request);
    heavy(request, reply);
    return service.verifyActivity(group.id);
  });

  app.get<GroupParams>('/api/groups/:name/activity', async (request, reply) => {
    const { group, link } = await scoped(request, 'see');
    const query = parseWith(ActivityQuerySchema, request.query);
    // PostgreSQL refuses NUL in text: such a counter id names no counter, so nothing matches.
    if (query.counter !== undefined && hasNul(query.counter)) return { entries: [], next: null };
    if (query.limit <= ACTIVITY_LIGHT_PAGE_MAX) return service.activity(group.id, query, link);
    // A long page counts only if it was long: a catch-up finds a few entries (ADR 34).
    const end = heavy(request, reply, { chargeAtEnd: true });
    const page = await service.activity(group.id, query, link);
    end(page.entries.length > ACTIVITY_LIGHT_PAGE_MAX);
    return page;
  });

  app.post<EntryParams>('/api/groups/:name/activity/:entryId/undo', async (request) =>
    undo(request, () => {
      const entryId = Number(request.params.entryId);
      if (!/^[1-9]\d{0,15}$/.test(request.params.entryId) || !Number.isSafeInteger(entryId)) {
        return service.missingEntry();
      }
      return { kind: 'undoEntry', entryId };
    }),
  );

  // A note on one's own recent entry (ADR 36): the Tally-Member header names the member.
  app.patch<EntryParams>('/api/groups/:name/activity/:entryId', async (request) => {
    const { group, link } = await scoped(request, 'tap');
    const entryId = Number(request.params.entryId);
    if (!/^[1-9]\d{0,15}$/.test(request.params.entryId) || !Number.isSafeInteger(entryId)) {
      return service.missingEntry();
    }
    const { note } = parseWith(NoteBodySchema, request.body);
    return service.editNote(group.id, { entryId, note }, { actor: originOf(request).actor, link });
  });

  app.post<GroupParams>('/api/groups/:name/undo', async (request) =>
    undo(request, () => ({
      kind: 'undoOperation',
      opId: parseWith(UndoOperationBodySchema, request.body ?? {}).opId,
    })),
  );

  app.get<GroupParams>('/api/groups/:name/history', async (request, reply) => {
    const { group, link } = await scoped(request, 'see');
    const { points } = parseWith(HistoryQuerySchema, {
      points: SPARKLINE_POINTS,
      ...(request.query as object),
    });
    heavy(request, reply);
    return service.recentValues(group.id, points, link);
  });

  app.get<CounterParams>('/api/groups/:name/counters/:id/history', async (request, reply) => {
    const { group, link } = await scoped(request, 'see');
    const { points } = parseWith(HistoryQuerySchema, request.query);
    if (hasNul(request.params.id)) throw errors.counterNotFound();
    heavy(request, reply);
    return service.counterHistory(group.id, request.params.id, { points, link });
  });

  app.get<GroupParams>('/api/groups/:name/tallies', async (request) => {
    const { group, link } = await scoped(request, 'see');
    const query = parseWith(TalliesQuerySchema, request.query);
    if (query.counterId !== undefined && hasNul(query.counterId)) return [];
    return service.tallies(group.id, query, link);
  });

  app.get<CounterParams>('/api/groups/:name/counters/:id/periods', async (request) => {
    const { group, link } = await scoped(request, 'see');
    const { limit } = parseWith(PeriodsQuerySchema, request.query);
    if (hasNul(request.params.id)) throw errors.counterNotFound();
    return service.counterPeriods(group.id, request.params.id, { limit, link });
  });

  app.get<GroupParams>('/api/groups/:name/export', async (request, reply) => {
    const group = await authorize(request);
    const { format, data } = parseWith(ExportQuerySchema, request.query);
    heavy(request, reply);
    const snapshot = await service.snapshot(group.id);
    const fullKey = accessOf(group, bearerKey(request) ?? '').access === 'full';
    // Exports are files of this moment: never cached anywhere.
    void reply.header('Cache-Control', 'no-store');
    if (format === 'json') {
      return reply
        .type('application/json; charset=utf-8')
        .header('Content-Disposition', attachment(`${group.name}-export.json`))
        .send(
          jsonExportStream(
            {
              ...snapshot,
              alerts: fullKey ? await alertRules(group) : undefined,
              chain: await service.activityChainEnds(group.id),
            },
            service.chainedActivity(group.id),
            () => service.groupPeriods(group.id),
          ),
        );
    }
    const table = data ?? 'counters';
    const names = new Map(snapshot.counters.map((counter) => [counter.id, counter.name]));
    const stream =
      table === 'counters'
        ? csvStream(COUNTER_COLUMNS, snapshot.counters.map(counterRecord))
        : table === 'periods'
          ? csvStream(
              PERIOD_COLUMNS,
              mapAsync(periodsOf(service, group.id), (period) => periodRecord(period, names)),
            )
          : csvStream(ACTIVITY_COLUMNS, mapAsync(service.allActivity(group.id), activityRecord));
    return reply
      .type('text/csv; charset=utf-8')
      .header('Content-Disposition', attachment(`${group.name}-${table}.csv`))
      .send(stream);
  });
}

/** Group names are slugs (a-z, 0-9, _ and -), so the file name needs no escaping. */
const attachment = (fileName: string) => `attachment; filename="${fileName}"`;

async function* periodsOf(service: TallyService, groupId: string) {
  yield* await service.groupPeriods(groupId);
}

async function* mapAsync<T, U>(source: AsyncIterable<T>, map: (item: T) => U): AsyncGenerator<U> {
  for await (const item of source) yield map(item);
}
