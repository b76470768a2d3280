/**
 * The Node the suites run on (docs/decisions/0017-supported-node-versions.md). .ci/run runs them
 * on the machine's Node 20 and again on the npm registry's Node 22 with TALLY_EXPECT_NODE_MAJOR=22:
 * then this worker and every process a test spawns (`process.execPath`, as the crash and
 * multi-instance suites do) must be that Node. On any Node, SQLite must go through the
 * better-sqlite3 that Node can run.
 */
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import {
  SQLITE_DRIVER,
  sqliteDatabase,
  sqliteDriverPath,
} from '../../src/server/store/sqlite/driver.js';

const expectedMajor = process.env.TALLY_EXPECT_NODE_MAJOR;
const majorOf = (version: string) => version.replace(/^v/, '').split('.')[0];

describe('the Node running the tests', () => {
  it.runIf(expectedMajor !== undefined)(
    'is the major .ci/run asked for, here and in the processes tests spawn',
    () => {
      const spawned = execFileSync(process.execPath, ['-p', 'process.version'], {
        encoding: 'utf8',
      }).trim();
      console.log(`tests on Node ${process.version}, spawned processes on Node ${spawned}`);
      expect(majorOf(process.version)).toBe(expectedMajor);
      expect(majorOf(spawned)).toBe(expectedMajor);
    },
  );

  it('opens SQLite through better-sqlite3 13 from Node-API 10 on, and 12 below', () => {
    const prebuilt = Number(process.versions.napi) >= 10;
    expect(SQLITE_DRIVER).toBe(prebuilt ? 'better-sqlite3' : 'better-sqlite3-node20');
    const { version } = createRequire(sqliteDriverPath())('../package.json') as {
      version: string;
    };
    expect(majorOf(version)).toBe(prebuilt ? '13' : '12');
    const Sqlite = sqliteDatabase();
    const db = new Sqlite(':memory:');
    expect(db.prepare('SELECT 40 + 2 AS answer').get()).toEqual({ answer: 42 });
    db.close();
  });
});
