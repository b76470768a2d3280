/**
 * One Tally per SQLite file. Two servers on one file each keep their own change numbers, caches
 * and live clients, so their members would silently miss each other's changes. The server holds
 * an exclusive lock on a sidecar file (`<file>.lock`, a tiny SQLite database in an open
 * transaction) for its whole life: a second server, in this process or another, cannot take it
 * and refuses to start with one line. The operating system drops the lock when the process
 * exits or crashes, so a restart after a crash never finds a stale lock.
 */
import { sqliteDatabase } from './driver.js';

export interface FileLock {
  release(): void;
}

/** Takes the lock of `file` at once (never waits); throws a one-line Error when it is held. */
export function lockDatabaseFile(file: string): FileLock {
  const lockFile = `${file}.lock`;
  // timeout 0: another holder makes BEGIN EXCLUSIVE fail at once instead of waiting.
  const Sqlite = sqliteDatabase();
  const db = new Sqlite(lockFile, { timeout: 0 });
  try {
    db.exec('BEGIN EXCLUSIVE');
  } catch (error) {
    db.close();
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && code.startsWith('SQLITE_BUSY')) {
      throw new Error(
        `another Tally server is already using ${file} (its lock file is ${lockFile})`,
      );
    }
    throw error;
  }
  return {
    release() {
      if (db.open) db.close();
    },
  };
}
