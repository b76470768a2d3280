/**
 * GET /api/health: 200 only when a write can be committed now. The probe is a one-row UPDATE
 * in its own transaction (Store.probeWrite); it notices a full or read-only disk, a SQLite file
 * deleted or replaced under the server, another process holding SQLite's write lock, and a
 * PostgreSQL schema dropped (and re-created) under the server. A load balancer may poll often,
 * so one probe answers every check for PROBE_CACHE_MS. While the store already knows it cannot
 * save (a lost PostgreSQL connection, until its own probe commits), the answer is 503 at once.
 * The PostgreSQL probe gives up after 1 s, so the database going away shows within 2 s.
 */
import type { FastifyInstance } from 'fastify';
import type { ErrorCode } from '../../shared/api.js';
import { MESSAGES } from '../../shared/messages.js';
import { DomainError } from '../errors.js';
import type { Store } from '../store/types.js';

/** How long one probe's result answers health checks, ms. */
export const PROBE_CACHE_MS = 1_000;

type ProbeResult = { ok: true } | { ok: false; code: ErrorCode; message: string };

export function registerHealthRoute(
  app: FastifyInstance,
  store: Store,
  connections: () => number,
): void {
  let cached: { at: number; result: Promise<ProbeResult> } | undefined;
  const probe = (): Promise<ProbeResult> => {
    const now = Date.now();
    if (cached && now - cached.at < PROBE_CACHE_MS) return cached.result;
    const result = store.probeWrite().then(
      (): ProbeResult => ({ ok: true }),
      (error: unknown): ProbeResult => {
        // Logged once per probe (at most once per PROBE_CACHE_MS), never with request data.
        app.log.error({ err: error }, 'health check: writes cannot be committed');
        return error instanceof DomainError
          ? { ok: false, code: error.code, message: error.message }
          : { ok: false, code: 'storage_unavailable', message: MESSAGES.storageUnavailable };
      },
    );
    cached = { at: now, result };
    return result;
  };
  // A probe from before the store's state changed says nothing about now.
  store.availability?.onChange(() => {
    cached = undefined;
  });

  app.get('/api/health', async (_request, reply) => {
    const result: ProbeResult =
      store.availability?.saving === false
        ? { ok: false, code: 'storage_unavailable', message: MESSAGES.storageUnavailable }
        : await probe();
    if (!result.ok) {
      return reply.code(503).send({ error: { code: result.code, message: result.message } });
    }
    return { status: 'ok', store: store.kind, connections: connections() };
  });
}
