/**
 * POST /api/groups/{name}/import (docs/api.md "Import"): a file as the body (a Tally export, a
 * BetterCounter CSV, a Simple Counter backup), previewed (`dryRun=true`) or imported. Its own
 * scope, so its body may be CSV and up to IMPORT_MAX_BYTES while every other route keeps JSON
 * bodies of 16 KB. The key and the address's budget of heavy work are checked before the body is
 * read: a stranger cannot make the server read 5 MB, and one address imports at most as often as
 * it may export (ADR 34). The file is read in a worker thread (import/read-thread.ts), so no other
 * group waits while it is parsed and checked.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  IMPORT_MAX_BYTES,
  IMPORT_MESSAGES,
  ImportQuerySchema,
  type ImportSummary,
} from '../../shared/import.js';
import type { GroupAccess } from '../core/access-cache.js';
import type { TallyService } from '../core/service.js';
import { ImportReader } from '../import/read-thread.js';
import type { HeavyReads } from '../security/heavy-reads.js';
import { answerError, errorBody, STATUS_OF } from './errors.js';
import { bearerKey, originOf, parseWith } from './parse.js';

/** The media types an import's body may have. */
export const IMPORT_MEDIA_TYPES = ['text/csv', 'application/json'] as const;

type ImportRequest = FastifyRequest<{ Params: { name: string }; Body: string | undefined }>;

/** The group the request's key opens, kept from onRequest for the handler. */
const importing = new WeakMap<FastifyRequest, GroupAccess>();

export function registerImportRoutes(
  app: FastifyInstance,
  service: TallyService,
  { heavyReads }: { heavyReads: HeavyReads },
): void {
  const reader = new ImportReader();
  app.addHook('onClose', () => reader.close());
  void app.register((scope, _options, done) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser(
      [...IMPORT_MEDIA_TYPES],
      { parseAs: 'string', bodyLimit: IMPORT_MAX_BYTES },
      (_request, body, parsed) => {
        parsed(null, body);
      },
    );
    scope.setErrorHandler((error: FastifyError, request, reply) =>
      importError(error, request, reply),
    );
    scope.post<{ Params: { name: string }; Body: string | undefined }>(
      '/api/groups/:name/import',
      {
        // Before the body is read: the key (view-only and tap links are refused), the query,
        // then a place in the address's budget, freed when the answer has gone.
        onRequest: async (request: ImportRequest, reply) => {
          const group = await service.authorize(request.params.name, bearerKey(request), {
            client: request.ip,
          });
          parseWith(ImportQuerySchema, request.query);
          const end = heavyReads.begin(request.ip);
          reply.raw.once('close', () => {
            end();
          });
          importing.set(request, group);
        },
      },
      async (request): Promise<ImportSummary> => {
        const group = importing.get(request);
        if (!group) throw new Error('the import route ran without its key check');
        const query = parseWith(ImportQuerySchema, request.query);
        const data = await reader.read(request.body ?? '', query.format);
        return service.importData(group.id, data, {
          dryRun: query.dryRun === 'true',
          ...originOf(request),
        });
      },
    );
    done();
  });
}

/** The import's own words for a body too large and a media type it does not read. */
function importError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    return reply
      .code(STATUS_OF.payload_too_large)
      .send(errorBody('payload_too_large', IMPORT_MESSAGES.fileTooLarge));
  }
  if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    return reply
      .code(415)
      .send(
        errorBody('validation_failed', `Content-Type must be ${IMPORT_MEDIA_TYPES.join(', ')}`),
      );
  }
  return answerError(error, request, reply);
}
