import type { DatabaseConfig } from '../config.js';
import { ConfigError } from '../config.js';
import { SqliteStore } from './sqlite.js';
import type { Store } from './types.js';

/** Opens the store the configuration names and brings its schema up to date. */
export async function openStore(database: DatabaseConfig): Promise<Store> {
  if (database.kind === 'postgres') {
    throw new ConfigError('DATABASE_URL: PostgreSQL support is not part of this build yet');
  }
  const store = new SqliteStore(database.file);
  await store.migrate();
  return store;
}
