/**
 * The composition root of the server's back end: from the configuration, the store, the bus that
 * announces its changes, the batcher that commits through both, and the store's upkeep (pruning
 * old operation ids and activity). The only module that knows which store goes with which bus:
 * store/ and bus/ never import each other; with PostgreSQL the bus connects with the settings of
 * store/postgres/connection.ts, handed to it here.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import {
  Batcher,
  type CommitObserver,
  DEFAULT_ADMISSION,
  DEFAULT_LINGER,
  NO_LINGER,
  POSTGRES_COMMIT_LANES,
  type LingerPolicy,
  SQLITE_COMMIT_LANES,
} from './batcher.js';
import { IMPORT_STAGED_MAX_AGE_MS } from './core/importer.js';
import { PeriodEnds } from './core/period-ends.js';
import { MemoryBus } from './bus/memory.js';
import type { Bus } from './bus/types.js';
import { DEFAULT_ACTIVITY_RETENTION_DAYS, limitsOf, type Config } from './config.js';
import type { StoreQuotas } from './store/quotas.js';
import type { Store } from './store/types.js';

/** Operation ids are remembered this long for retries, ms. */
const OPERATION_ID_TTL_MS = 24 * 60 * 60 * 1000;
/** How often expired operation ids and old activity are pruned, ms. */
const PRUNE_EVERY_MS = 60 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

export interface Backend {
  store: Store;
  bus: Bus;
  /** Group commit: every mutation goes through it (batcher.ts). */
  batcher: Batcher;
  /** Stops the upkeep, commits what was submitted, then closes the bus and the store. */
  close(): Promise<void>;
}

/** Who is told what the back end does, for the metrics (metrics/metrics.ts). */
export interface BackendObservers {
  /** Every commit of the batcher. */
  commits: CommitObserver;
  /** How long each announcement of another instance took to arrive, ms (PostgreSQL). */
  announcementLag(lagMs: number): void;
}

/**
 * How long a batch may wait for more operations (ADR 20): not at all unless COMMIT_LINGER_MS says
 * so (less CPU per tap under load, a longer tail); the same for both stores.
 */
export function lingerOf(config: Pick<Config, 'commitLingerMs'>): LingerPolicy {
  const maxMs = config.commitLingerMs ?? 0;
  return maxMs === 0 ? NO_LINGER : { ...DEFAULT_LINGER, maxMs };
}

/**
 * Opens the configured database (bringing its schema up to date) and, with PostgreSQL, starts
 * listening to the other instances' changes. With observers (METRICS_TOKEN), tells them about
 * commits and announcements; without, measures nothing.
 */
export async function openBackend(
  config: Config,
  log: FastifyBaseLogger,
  observers?: BackendObservers,
): Promise<Backend> {
  const { store, bus } = await openStoreAndBus(config, log, observers);
  // Entries staged by an import that never ended (its server stopped midway): nobody reads them.
  await store.dropStaleImports(Date.now() - IMPORT_STAGED_MAX_AGE_MS);
  // Each PostgreSQL lane holds a connection while it commits: leave one for reads.
  const lanes =
    config.database.kind === 'postgres'
      ? Math.max(1, Math.min(POSTGRES_COMMIT_LANES, config.database.poolSize - 1))
      : SQLITE_COMMIT_LANES;
  const batcher = new Batcher({
    store,
    bus,
    admission: DEFAULT_ADMISSION,
    lanes,
    observer: observers?.commits,
    linger: lingerOf(config),
  });
  const stopUpkeep = startUpkeep(store, config, log);
  // Counters' periods end at their midnights even when nobody taps then (core/period-ends.ts).
  const periodEnds = new PeriodEnds({
    store,
    submit: (operation) => batcher.submit(operation),
    onError: (error) => {
      log.warn({ err: error }, 'ending counters’ periods failed (retried in a minute)');
    },
  });
  periodEnds.start();
  return {
    store,
    bus,
    batcher,
    async close() {
      stopUpkeep();
      await periodEnds.stop();
      await batcher.drain();
      await bus.close();
      await store.close();
    },
  };
}

async function openStoreAndBus(
  config: Config,
  log: FastifyBaseLogger,
  observers: BackendObservers | undefined,
): Promise<{ store: Store; bus: Bus }> {
  const { database } = config;
  const activityLog = config.activityLog ?? true;
  const quotas: StoreQuotas = limitsOf(config);
  // A count may be for a time as far back as the log keeps (its default when kept forever).
  const countedAtWindowDays = config.activityRetentionDays || DEFAULT_ACTIVITY_RETENTION_DAYS;
  const onTrimError = (error: unknown) => {
    log.warn({ err: error }, 'trimming the activity log failed');
  };
  // Each store's modules (and its driver: better-sqlite3 or pg) are loaded only when configured:
  // a restart does not pay for the driver it does not use (a restart should take under a second, ADR 18).
  if (database.kind === 'sqlite') {
    const { SqliteStore } = await import('./store/sqlite/store.js');
    const store = new SqliteStore(database.file, {
      synchronous: database.synchronous,
      activityLog,
      quotas,
      countedAtWindowDays,
      onTrimError,
      onCheckpointError: (message) => {
        log.warn(message);
      },
    });
    await store.migrate();
    return { store, bus: new MemoryBus() };
  }
  const [
    { clientConfig, parsePostgresUrl },
    { PostgresStore },
    { PostgresBus },
    { encodeAnnouncements },
  ] = await Promise.all([
    import('./store/postgres/connection.js'),
    import('./store/postgres/store.js'),
    import('./bus/listen-notify.js'),
    import('./bus/notify.js'),
  ]);
  const connection = parsePostgresUrl(database.url);
  // Tells this instance's own announcements apart from the other instances' (bus/notify.ts).
  const instanceId = randomUUID();
  const store = new PostgresStore({
    connection,
    poolSize: database.poolSize,
    encodeAnnouncements: (groupId, changes) =>
      encodeAnnouncements({ instanceId, groupId }, changes),
    activityLog,
    quotas,
    countedAtWindowDays,
    onTrimError,
  });
  try {
    await store.migrate();
    const bus = new PostgresBus({
      clientConfig: (applicationName) => clientConfig(connection, applicationName),
      schema: connection.schema,
      channel: store.notifyChannel,
      instanceId,
      loadCounter: (groupId, counterId) => store.loadCounter(groupId, counterId),
      log,
      // The listener's connection failing says the database (or the path to it) may be gone:
      // the store checks its own at once (it stops accepting changes if they fail too).
      onConnectionLost: () => {
        store.checkConnection();
      },
      ...(observers
        ? {
            onAnnouncementLag: (lagMs) => {
              observers.announcementLag(lagMs);
            },
          }
        : {}),
    });
    await bus.start();
    store.availability.onChange((saving) => {
      if (saving) log.info('database back: saving changes again');
      else log.warn('database unavailable: changes are refused until it is back');
    });
    return { store, bus };
  } catch (error) {
    await store.close().catch(() => undefined);
    throw new Error(`cannot use PostgreSQL: ${describeConnectionError(error)}`);
  }
}

/**
 * Prunes expired operation ids, activity past its retention, and what imports that never ended
 * staged (another instance that stopped midway), every PRUNE_EVERY_MS.
 */
function startUpkeep(store: Store, config: Config, log: FastifyBaseLogger): () => void {
  const retentionDays = config.activityRetentionDays ?? DEFAULT_ACTIVITY_RETENTION_DAYS;
  const prune = setInterval(() => {
    store.pruneOperationIds(OPERATION_ID_TTL_MS).catch((error: unknown) => {
      log.warn({ err: error }, 'pruning operation ids failed');
    });
    if (retentionDays > 0) {
      store.pruneActivity(retentionDays * DAY_MS).catch((error: unknown) => {
        log.warn({ err: error }, 'pruning the activity log failed');
      });
    }
    store.dropStaleImports(Date.now() - IMPORT_STAGED_MAX_AGE_MS).catch((error: unknown) => {
      log.warn({ err: error }, 'removing the entries of unfinished imports failed');
    });
  }, PRUNE_EVERY_MS);
  prune.unref();
  return () => {
    clearInterval(prune);
  };
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
