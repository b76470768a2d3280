/**
 * Configuration from the environment, parsed and checked once at start. A bad value fails fast
 * with a one-line message naming the variable (ConfigError), never a stack trace.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseTrustProxy, type TrustProxy } from './security/client-address.js';
import { DEFAULT_GROUPS_PER_ADDRESS_PER_HOUR } from './security/group-quota.js';
import { DEFAULT_STORE_QUOTAS } from './store/quotas.js';
import type { SqliteSynchronous } from './store/sqlite/store.js';
import { DEFAULT_ACTIVITY_RETENTION_DAYS } from '../shared/limits.js';

/**
 * SQLite commit durability. normal (WAL): a committed change survives a crash of the process,
 * and the database stays consistent on power loss; full: also survives power loss, at the cost
 * of an fsync per commit that blocks the event loop (docs/decisions/0002-sqlite-durability.md).
 */

export type DatabaseConfig =
  | { kind: 'sqlite'; file: string; synchronous?: SqliteSynchronous }
  | { kind: 'postgres'; url: string; poolSize: number };

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface Config {
  port: number;
  host: string;
  database: DatabaseConfig;
  logLevel: LogLevel;
  /** Activity entries older than this are pruned, days; 0 keeps them forever. */
  activityRetentionDays?: number;
  /** false turns the activity log (and with it undo) off: the benchmark measures its cost. */
  activityLog?: boolean;
  /** Proxies whose X-Forwarded-For names the client (security/client-address.ts). */
  trustProxy?: TrustProxy;
  /** Quotas and connection caps; DEFAULT_LIMITS where a field is not given. */
  limits?: Partial<Limits>;
  /**
   * The bearer token of `GET /metrics` (METRICS_TOKEN); undefined: no metrics route and nothing
   * measured. A secret: never logged, never echoed in an error.
   */
  metricsToken?: string | undefined;
  /**
   * Longest a commit batch waits for more operations when the arrival rate promises them, ms
   * (COMMIT_LINGER_MS, batcher.ts LingerPolicy); undefined or 0: never (the default).
   */
  commitLingerMs?: number | undefined;
  /**
   * The public repository of this server's source, shown in the web app's footer (SOURCE_URL);
   * undefined: package.json's `repository`, else the source archive the build made, if any.
   */
  sourceUrl?: string | undefined;
  /** Alerts' outbound settings (docs/alerts.md); defaults when absent. */
  alerts?: AlertsConfig | undefined;
}

export interface AlertsConfig {
  /**
   * ALERTS_ALLOW_PRIVATE_TARGETS: whether destinations may be loopback, private or link-local
   * addresses and use http:// (an intranet, the tests). Cloud metadata stays refused.
   */
  allowPrivateTargets: boolean;
  /** PUBLIC_URL: the origin alert links start with; unset: the origin the rule was made on. */
  publicUrl: string | undefined;
  /** PUSH_CONTACT: the VAPID subject push services may write to (mailto: or https:). */
  pushContact: string;
}

export const DEFAULT_ALERTS_CONFIG: AlertsConfig = {
  allowPrivateTargets: false,
  publicUrl: undefined,
  pushContact: 'mailto:alerts@tally.invalid',
};

/**
 * What one group or one client address may hold (docs/api.md "Limits"). Every field has
 * an environment variable (README, Configuration); data already over a lowered quota stays
 * readable and usable, it only cannot grow.
 */
export interface Limits {
  /** Counters one group may hold (MAX_COUNTERS_PER_GROUP). */
  countersPerGroup: number;
  /** Groups one client address may create per hour (MAX_GROUPS_PER_ADDRESS_PER_HOUR). */
  groupsPerAddressPerHour: number;
  /** Activity entries kept per group, the oldest dropped first (ACTIVITY_MAX_ENTRIES_PER_GROUP). */
  activityEntriesPerGroup: number;
  /** Open connections, HTTP and live, per client address (MAX_CONNECTIONS_PER_ADDRESS). */
  connectionsPerAddress: number;
}

export const DEFAULT_LIMITS: Limits = {
  ...DEFAULT_STORE_QUOTAS,
  groupsPerAddressPerHour: DEFAULT_GROUPS_PER_ADDRESS_PER_HOUR,
  connectionsPerAddress: 1_000,
};

/** The limits in force: the configured ones over the defaults. */
export function limitsOf(config: Pick<Config, 'limits'>): Limits {
  return { ...DEFAULT_LIMITS, ...config.limits };
}

const LIMIT_VARIABLES: Record<keyof Limits, { name: string; min: number; max: number }> = {
  countersPerGroup: { name: 'MAX_COUNTERS_PER_GROUP', min: 1, max: 100_000 },
  groupsPerAddressPerHour: { name: 'MAX_GROUPS_PER_ADDRESS_PER_HOUR', min: 1, max: 1_000_000 },
  activityEntriesPerGroup: {
    name: 'ACTIVITY_MAX_ENTRIES_PER_GROUP',
    min: 100,
    max: 100_000_000,
  },
  connectionsPerAddress: { name: 'MAX_CONNECTIONS_PER_ADDRESS', min: 1, max: 1_000_000 },
};

function parseLimits(env: NodeJS.ProcessEnv): Limits {
  const limits = { ...DEFAULT_LIMITS };
  for (const field of Object.keys(LIMIT_VARIABLES) as (keyof Limits)[]) {
    const { name, min, max } = LIMIT_VARIABLES[field];
    const raw = env[name];
    if (raw === undefined || raw === '') continue;
    const value = Number(raw);
    if (!/^\d+$/.test(raw) || value < min || value > max) {
      throw new ConfigError(
        `${name} must be a whole number from ${min.toLocaleString('en-US')} to ${max.toLocaleString('en-US')} (got "${raw}")`,
      );
    }
    limits[field] = value;
  }
  return limits;
}

export { DEFAULT_ACTIVITY_RETENTION_DAYS };

function parseActivityLog(raw: string | undefined): boolean {
  if (raw === undefined || raw === '' || raw.toLowerCase() === 'on') return true;
  if (raw.toLowerCase() === 'off') return false;
  throw new ConfigError(`ACTIVITY_LOG must be on or off (got "${raw}")`);
}

/** COMMIT_LINGER_MS bound: a batch never waits longer than this for company, ms. */
export const MAX_COMMIT_LINGER_MS = 50;

function parseCommitLinger(raw: string | undefined): number | undefined {
  if (raw === undefined || raw === '') return undefined;
  const ms = Number(raw);
  if (!/^\d+$/.test(raw) || ms > MAX_COMMIT_LINGER_MS) {
    throw new ConfigError(
      `COMMIT_LINGER_MS must be a whole number of milliseconds from 0 to ${MAX_COMMIT_LINGER_MS} (got "${raw}")`,
    );
  }
  return ms;
}

function parseRetentionDays(raw: string | undefined): number {
  if (raw === undefined || raw === '') return DEFAULT_ACTIVITY_RETENTION_DAYS;
  const days = Number(raw);
  if (!/^\d+$/.test(raw) || days > 100_000) {
    throw new ConfigError(
      `ACTIVITY_RETENTION_DAYS must be a whole number of days, 0 to keep forever (got "${raw}")`,
    );
  }
  return days;
}

/**
 * METRICS_TOKEN bounds: 16 characters at least, so the token cannot be guessed by trying (the
 * route has no rate limit of its own; `openssl rand -hex 32` makes 64); 512 at most, which bounds
 * the header compared on every scrape.
 */
export const METRICS_TOKEN_MIN_LENGTH = 16;
export const METRICS_TOKEN_MAX_LENGTH = 512;
/** Printable ASCII without spaces: what fits in `Authorization: Bearer <token>` as one word. */
const METRICS_TOKEN_CHARACTERS = /^[\x21-\x7e]*$/;

/** Empty or unset: metrics off. The message never quotes the token: it is a secret. */
function parseMetricsToken(raw: string | undefined): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  const rule = `METRICS_TOKEN must be ${METRICS_TOKEN_MIN_LENGTH} to ${METRICS_TOKEN_MAX_LENGTH} printable ASCII characters without spaces, e.g. from openssl rand -hex 32 (empty turns metrics off)`;
  if (raw.length < METRICS_TOKEN_MIN_LENGTH || raw.length > METRICS_TOKEN_MAX_LENGTH) {
    throw new ConfigError(`${rule}: it has ${raw.length} characters`);
  }
  if (!METRICS_TOKEN_CHARACTERS.test(raw)) {
    throw new ConfigError(`${rule}: it has a space or a character outside printable ASCII`);
  }
  return raw;
}

/** SOURCE_URL: an http(s) address, or unset (package.json's `repository` then). */
function parseSourceUrl(raw: string | undefined): string | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const url = httpUrl(raw.trim());
  if (url === null) {
    throw new ConfigError(
      `SOURCE_URL must be an http:// or https:// address, e.g. https://github.com/you/tally (got "${raw}")`,
    );
  }
  return url;
}

function httpUrl(raw: string): string | null {
  try {
    const url = new URL(raw);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : null;
  } catch {
    return null;
  }
}

/**
 * The web address of package.json's `repository` field (npm's forms: a URL, `git+https://….git`,
 * `git@github.com:owner/repo.git`, `github:owner/repo` or `owner/repo`), or null when the field is
 * missing or names nothing a browser can open.
 */
export function repositoryUrl(manifest: unknown): string | null {
  if (typeof manifest !== 'object' || manifest === null) return null;
  const field: unknown = (manifest as { repository?: unknown }).repository;
  const raw =
    typeof field === 'string'
      ? field
      : typeof field === 'object' && field !== null
        ? (field as { url?: unknown }).url
        : undefined;
  if (typeof raw !== 'string' || raw.trim() === '') return null;
  let text = raw.trim();
  const shorthand = /^(?:github:)?([\w.-]+)\/([\w.-]+)$/.exec(text);
  if (shorthand) text = `https://github.com/${shorthand[1]}/${shorthand[2]}`;
  const scp = /^git@([^:]+):(.+)$/.exec(text);
  if (scp) text = `https://${scp[1]}/${scp[2]}`;
  text = text
    .replace(/^git\+/, '')
    .replace(/^git:\/\//, 'https://')
    .replace(/\.git$/, '');
  return httpUrl(text);
}

/** The source address the footer shows: SOURCE_URL, else package.json's `repository`, else null. */
export function publicSourceUrl(
  config: Pick<Config, 'sourceUrl'>,
  packageFile: string,
): string | null {
  if (config.sourceUrl !== undefined) return config.sourceUrl;
  try {
    return repositoryUrl(JSON.parse(fs.readFileSync(packageFile, 'utf8')));
  } catch {
    return null;
  }
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

const DEFAULT_DATABASE_URL = 'file:./data/tally.sqlite';
const LOG_LEVELS: readonly LogLevel[] = [
  'fatal',
  'error',
  'warn',
  'info',
  'debug',
  'trace',
  'silent',
];

function parsePort(raw: string | undefined): number {
  if (raw === undefined || raw === '') return 3000;
  const port = Number(raw);
  if (!/^\d+$/.test(raw) || port > 65_535) {
    throw new ConfigError(`PORT must be an integer from 0 to 65535 (got "${raw}")`);
  }
  return port;
}

/** PostgreSQL connections per instance unless PG_POOL_SIZE says otherwise. */
const DEFAULT_PG_POOL_SIZE = 10;
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

function parsePoolSize(raw: string | undefined): number {
  if (raw === undefined || raw === '') return DEFAULT_PG_POOL_SIZE;
  const size = Number(raw);
  if (!/^\d+$/.test(raw) || size < 1 || size > 1_000) {
    throw new ConfigError(`PG_POOL_SIZE must be an integer from 1 to 1000 (got "${raw}")`);
  }
  return size;
}

function parseSynchronous(raw: string | undefined): SqliteSynchronous {
  if (raw === undefined || raw === '') return 'normal';
  const value = raw.toLowerCase();
  if (value !== 'normal' && value !== 'full') {
    throw new ConfigError(`SQLITE_SYNCHRONOUS must be normal or full (got "${raw}")`);
  }
  return value;
}

/** Never echoes the URL itself: a Postgres URL may carry a password. */
export function parseDatabaseUrl(
  raw: string | undefined,
  cwd = process.cwd(),
  poolSize = DEFAULT_PG_POOL_SIZE,
): DatabaseConfig {
  const url = raw === undefined || raw === '' ? DEFAULT_DATABASE_URL : raw;
  if (url.startsWith('file:')) {
    const file = url.slice('file:'.length);
    if (file === '')
      throw new ConfigError('DATABASE_URL file: needs a path, e.g. file:./data/tally.sqlite');
    return { kind: 'sqlite', file: file === ':memory:' ? file : path.resolve(cwd, file) };
  }
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new ConfigError('DATABASE_URL is not a valid postgres:// URL');
    }
    const schema = parsed.searchParams.get('schema');
    if (schema !== null && !SCHEMA_NAME.test(schema)) {
      throw new ConfigError(
        'DATABASE_URL schema= must be lowercase letters, digits and underscores',
      );
    }
    return { kind: 'postgres', url, poolSize };
  }
  throw new ConfigError('DATABASE_URL must start with file: (SQLite) or postgres:// (PostgreSQL)');
}

function parseTrustProxyVariable(raw: string | undefined): TrustProxy {
  try {
    return parseTrustProxy(raw);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ConfigError(
      `TRUST_PROXY must be false, true, or proxy addresses separated by commas (e.g. 10.0.0.0/8,loopback): ${reason}`,
    );
  }
}

function parseLogLevel(raw: string | undefined): LogLevel {
  if (raw === undefined || raw === '') return 'info';
  const level = LOG_LEVELS.find((candidate) => candidate === raw.toLowerCase());
  if (level === undefined) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')} (got "${raw}")`);
  }
  return level;
}

function withSynchronous(database: DatabaseConfig, synchronous: SqliteSynchronous): DatabaseConfig {
  return database.kind === 'sqlite' ? { ...database, synchronous } : database;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const host = env.HOST === undefined || env.HOST === '' ? '0.0.0.0' : env.HOST;
  return {
    port: parsePort(env.PORT),
    host,
    database: withSynchronous(
      parseDatabaseUrl(env.DATABASE_URL, process.cwd(), parsePoolSize(env.PG_POOL_SIZE)),
      parseSynchronous(env.SQLITE_SYNCHRONOUS),
    ),
    logLevel: parseLogLevel(env.LOG_LEVEL),
    activityRetentionDays: parseRetentionDays(env.ACTIVITY_RETENTION_DAYS),
    activityLog: parseActivityLog(env.ACTIVITY_LOG),
    trustProxy: parseTrustProxyVariable(env.TRUST_PROXY),
    limits: parseLimits(env),
    metricsToken: parseMetricsToken(env.METRICS_TOKEN),
    commitLingerMs: parseCommitLinger(env.COMMIT_LINGER_MS),
    sourceUrl: parseSourceUrl(env.SOURCE_URL),
    alerts: {
      allowPrivateTargets: parseAllowPrivate(env.ALERTS_ALLOW_PRIVATE_TARGETS),
      publicUrl: parsePublicUrl(env.PUBLIC_URL),
      pushContact: parsePushContact(env.PUSH_CONTACT),
    },
  };
}

function parseAllowPrivate(raw: string | undefined): boolean {
  if (raw === undefined || raw === '' || raw.toLowerCase() === 'false') return false;
  if (raw.toLowerCase() === 'true') return true;
  throw new ConfigError(`ALERTS_ALLOW_PRIVATE_TARGETS must be true or false (got "${raw}")`);
}

/** PUBLIC_URL: an http(s) origin (a path or query is dropped), or unset. */
function parsePublicUrl(raw: string | undefined): string | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const url = httpUrl(raw.trim());
  if (url === null) {
    throw new ConfigError(
      `PUBLIC_URL must be an http:// or https:// address, e.g. https://tally.example.com (got "${raw}")`,
    );
  }
  return new URL(url).origin;
}

function parsePushContact(raw: string | undefined): string {
  if (raw === undefined || raw.trim() === '') return DEFAULT_ALERTS_CONFIG.pushContact;
  const text = raw.trim();
  const mail = /^mailto:[^@\s]+@[^@\s]+$/.test(text);
  const web = httpUrl(text)?.startsWith('https://') === true;
  if (!mail && !web) {
    throw new ConfigError(
      `PUSH_CONTACT must be a mailto: address or an https:// URL, e.g. mailto:ops@example.com (got "${raw}")`,
    );
  }
  return text;
}
