/** Opens the store and bus the configuration names. */
import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { MemoryBus } from '../bus/memory.js';
import { PostgresBus } from '../bus/postgres.js';
import type { Bus } from '../bus/types.js';
import type { DatabaseConfig } from '../config.js';
import { encodeAnnouncements } from '../bus/notify.js';
import { parsePostgresUrl } from '../postgres/connection.js';
import { PostgresStore } from './postgres.js';
import type { StoreQuotas } from './quotas.js';
import { SqliteStore } from './sqlite.js';
import type { Store } from './types.js';

export interface Backend {
  store: Store;
  bus: Bus;
}

/** Brings the schema up to date; with PostgreSQL also starts listening to other instances. */
export async function openBackend(
  database: DatabaseConfig,
  log: FastifyBaseLogger,
  options: { activityLog?: boolean; quotas?: StoreQuotas } = {},
): Promise<Backend> {
  const activityLog = options.activityLog ?? true;
  const quotas = options.quotas === undefined ? {} : { quotas: options.quotas };
  const onTrimError = (error: unknown) => {
    log.warn({ err: error }, 'trimming the activity log failed');
  };
  if (database.kind === 'sqlite') {
    const store = new SqliteStore(database.file, {
      synchronous: database.synchronous,
      activityLog,
      ...quotas,
      onTrimError,
      onCheckpointError: (message) => {
        log.warn(message);
      },
    });
    await store.migrate();
    return { store, bus: new MemoryBus() };
  }
  const connection = parsePostgresUrl(database.url);
  const instanceId = randomUUID();
  const store = new PostgresStore({
    connection,
    poolSize: database.poolSize,
    encodeAnnouncements: (groupId, changes) => encodeAnnouncements(instanceId, groupId, changes),
    activityLog,
    ...quotas,
    onTrimError,
  });
  try {
    await store.migrate();
    const bus = new PostgresBus({
      connection,
      channel: store.notifyChannel,
      instanceId,
      loadCounter: (groupId, counterId) => store.loadCounter(groupId, counterId),
      log,
    });
    await bus.start();
    return { store, bus };
  } catch (error) {
    await store.close().catch(() => undefined);
    throw new Error(`cannot use PostgreSQL: ${describeConnectionError(error)}`);
  }
}

/** One readable line: connection failures arrive as AggregateErrors with an empty message. */
function describeConnectionError(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) {
    return describeConnectionError(error.errors[0]);
  }
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    return error.message !== '' ? error.message : (code ?? error.name);
  }
  return String(error);
}
