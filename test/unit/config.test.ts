import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ConfigError,
  DEFAULT_LIMITS,
  METRICS_TOKEN_MAX_LENGTH,
  METRICS_TOKEN_MIN_LENGTH,
  loadConfig,
  DEFAULT_ALERTS_CONFIG,
} from '../../src/server/config.js';
import { lingerOf } from '../../src/server/backend.js';
import { DEFAULT_LINGER, NO_LINGER } from '../../src/server/batcher.js';

describe('configuration from the environment', () => {
  it('defaults to port 3000 on all interfaces with SQLite under ./data', () => {
    const config = loadConfig({});
    expect(config.port).toBe(3000);
    expect(config.host).toBe('0.0.0.0');
    expect(config.database).toEqual({
      kind: 'sqlite',
      file: path.resolve('data/tally.sqlite'),
      synchronous: 'normal',
    });
    expect(config.logLevel).toBe('info');
    expect(config.activityRetentionDays).toBe(365);
  });

  it('keeps the activity log forever with ACTIVITY_RETENTION_DAYS=0', () => {
    expect(loadConfig({ ACTIVITY_RETENTION_DAYS: '0' }).activityRetentionDays).toBe(0);
  });

  it('reads COMMIT_LINGER_MS, 0 to 50 ms; without it batches never linger', () => {
    expect(loadConfig({}).commitLingerMs).toBeUndefined();
    expect(loadConfig({ COMMIT_LINGER_MS: '0' }).commitLingerMs).toBe(0);
    expect(loadConfig({ COMMIT_LINGER_MS: '50' }).commitLingerMs).toBe(50);
    for (const bad of ['51', '-1', '2.5', 'soon']) {
      expect(() => loadConfig({ COMMIT_LINGER_MS: bad })).toThrow(
        /^COMMIT_LINGER_MS must be a whole number of milliseconds from 0 to 50/,
      );
    }
    expect(lingerOf({})).toEqual(NO_LINGER);
    expect(lingerOf({ commitLingerMs: 0 })).toEqual(NO_LINGER);
    expect(lingerOf({ commitLingerMs: 8 })).toEqual(DEFAULT_LINGER);
    expect(lingerOf({ commitLingerMs: 3 })).toEqual({ ...DEFAULT_LINGER, maxMs: 3 });
  });

  it('turns the activity log off only when ACTIVITY_LOG=off', () => {
    expect(loadConfig({}).activityLog).toBe(true);
    expect(loadConfig({ ACTIVITY_LOG: 'OFF' }).activityLog).toBe(false);
    expect(() => loadConfig({ ACTIVITY_LOG: 'no' })).toThrow(/^ACTIVITY_LOG must be on or off/);
  });

  it('trusts no proxy unless TRUST_PROXY names them (addresses, ranges, names or true)', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    expect(loadConfig({ TRUST_PROXY: ' 10.0.0.0/8, loopback ,::1' }).trustProxy).toEqual([
      '10.0.0.0/8',
      'loopback',
      '::1',
    ]);
    expect(() => loadConfig({ TRUST_PROXY: 'my-proxy' })).toThrow(/^TRUST_PROXY must be/);
    expect(() => loadConfig({ TRUST_PROXY: '10.0.0.0/99' })).toThrow(/^TRUST_PROXY must be/);
    expect(() => loadConfig({ TRUST_PROXY: '10.0.0.1,,10.0.0.2' })).toThrow(/empty/);
    // A hop count cannot tell a proxy from a client claiming to be one: not accepted.
    expect(() => loadConfig({ TRUST_PROXY: '2' })).toThrow(/^TRUST_PROXY must be/);
  });

  it('reads PORT, HOST, LOG_LEVEL and a file: DATABASE_URL', () => {
    const config = loadConfig({
      PORT: '8080',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      DATABASE_URL: 'file:/tmp/elsewhere.sqlite',
      SQLITE_SYNCHRONOUS: 'full',
      ACTIVITY_RETENTION_DAYS: '30',
    });
    expect(config).toEqual({
      port: 8080,
      host: '127.0.0.1',
      logLevel: 'warn',
      activityRetentionDays: 30,
      activityLog: true,
      trustProxy: false,
      database: { kind: 'sqlite', file: '/tmp/elsewhere.sqlite', synchronous: 'full' },
      limits: DEFAULT_LIMITS,
      alerts: DEFAULT_ALERTS_CONFIG,
    });
  });

  it('reads the quotas and connection cap, each with its default', () => {
    expect(DEFAULT_LIMITS).toEqual({
      countersPerGroup: 1_000,
      groupsPerAddressPerHour: 100,
      activityEntriesPerGroup: 100_000,
      connectionsPerAddress: 1_000,
    });
    expect(
      loadConfig({
        MAX_COUNTERS_PER_GROUP: '50',
        MAX_GROUPS_PER_ADDRESS_PER_HOUR: '5',
        ACTIVITY_MAX_ENTRIES_PER_GROUP: '1000',
        MAX_CONNECTIONS_PER_ADDRESS: '20',
      }).limits,
    ).toEqual({
      countersPerGroup: 50,
      groupsPerAddressPerHour: 5,
      activityEntriesPerGroup: 1_000,
      connectionsPerAddress: 20,
    });
    expect(() => loadConfig({ MAX_COUNTERS_PER_GROUP: '0' })).toThrow(/^MAX_COUNTERS_PER_GROUP/);
    expect(() => loadConfig({ MAX_CONNECTIONS_PER_ADDRESS: 'many' })).toThrow(
      /^MAX_CONNECTIONS_PER_ADDRESS must be a whole number/,
    );
    expect(() => loadConfig({ ACTIVITY_MAX_ENTRIES_PER_GROUP: '10' })).toThrow(
      /^ACTIVITY_MAX_ENTRIES_PER_GROUP/,
    );
  });

  it('recognises a postgres:// DATABASE_URL', () => {
    expect(loadConfig({ DATABASE_URL: 'postgres://u@localhost:5432/db' }).database).toEqual({
      kind: 'postgres',
      url: 'postgres://u@localhost:5432/db',
      poolSize: 10,
    });
    expect(
      loadConfig({ DATABASE_URL: 'postgresql://u@h/db?schema=tally_a', PG_POOL_SIZE: '4' })
        .database,
    ).toEqual({ kind: 'postgres', url: 'postgresql://u@h/db?schema=tally_a', poolSize: 4 });
  });

  it('fails fast with a message naming the bad variable', () => {
    expect(() => loadConfig({ PORT: 'abc' })).toThrow(ConfigError);
    expect(() => loadConfig({ PORT: 'abc' })).toThrow(/^PORT must be/);
    expect(() => loadConfig({ PORT: '70000' })).toThrow(/^PORT/);
    expect(() => loadConfig({ LOG_LEVEL: 'loud' })).toThrow(/^LOG_LEVEL/);
    expect(() => loadConfig({ ACTIVITY_RETENTION_DAYS: '-1' })).toThrow(/^ACTIVITY_RETENTION_DAYS/);
    expect(() => loadConfig({ ACTIVITY_RETENTION_DAYS: '1.5' })).toThrow(
      /^ACTIVITY_RETENTION_DAYS/,
    );
    expect(() => loadConfig({ SQLITE_SYNCHRONOUS: 'off' })).toThrow(/^SQLITE_SYNCHRONOUS/);
    expect(() => loadConfig({ DATABASE_URL: 'mysql://x' })).toThrow(/^DATABASE_URL/);
    expect(() => loadConfig({ DATABASE_URL: 'file:' })).toThrow(/^DATABASE_URL/);
    expect(() => loadConfig({ DATABASE_URL: 'postgres://h/db?schema=Bad;Drop' })).toThrow(
      /^DATABASE_URL schema/,
    );
    expect(() => loadConfig({ DATABASE_URL: 'postgres://h/db', PG_POOL_SIZE: '0' })).toThrow(
      /^PG_POOL_SIZE/,
    );
  });

  it('never echoes a database URL, which may hold a password', () => {
    try {
      loadConfig({ DATABASE_URL: 'postgres://user:s3cret@[bad' });
      expect.unreachable();
    } catch (error) {
      expect(String(error)).not.toContain('s3cret');
    }
  });

  it('turns metrics on only with a METRICS_TOKEN of 16 to 512 printable characters', () => {
    expect(loadConfig({}).metricsToken).toBeUndefined();
    expect(loadConfig({ METRICS_TOKEN: '' }).metricsToken).toBeUndefined();
    const token = 'a'.repeat(63) + '~';
    expect(loadConfig({ METRICS_TOKEN: token }).metricsToken).toBe(token);
    expect(METRICS_TOKEN_MIN_LENGTH).toBe(16);
    expect(loadConfig({ METRICS_TOKEN: 'x'.repeat(16) }).metricsToken).toBe('x'.repeat(16));
    expect(() => loadConfig({ METRICS_TOKEN: 'x'.repeat(15) })).toThrow(ConfigError);
    expect(() => loadConfig({ METRICS_TOKEN: 'x'.repeat(15) })).toThrow(
      /^METRICS_TOKEN must be 16 to 512 printable ASCII characters without spaces.*: it has 15 characters$/,
    );
    expect(() => loadConfig({ METRICS_TOKEN: 'x'.repeat(METRICS_TOKEN_MAX_LENGTH + 1) })).toThrow(
      /^METRICS_TOKEN must be/,
    );
    for (const bad of ['sixteen chars ok', 'tab\tin-the-token-here', 'é'.repeat(20)]) {
      expect(() => loadConfig({ METRICS_TOKEN: bad })).toThrow(/^METRICS_TOKEN must be/);
    }
  });

  it('never echoes the metrics token, which is a secret', () => {
    for (const secret of ['short-s3cret', 'long s3cret with spaces in it']) {
      try {
        loadConfig({ METRICS_TOKEN: secret });
        expect.unreachable();
      } catch (error) {
        expect(String(error)).not.toContain('s3cret');
      }
    }
  });
});
