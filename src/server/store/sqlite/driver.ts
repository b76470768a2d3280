/**
 * The better-sqlite3 this Node can run (docs/decisions/0017-supported-node-versions.md). Every
 * module that opens a SQLite file takes the `Database` class from `sqliteDatabase()`, never from
 * 'better-sqlite3' (a lint rule refuses value imports of it; types are the same for both).
 *
 * - better-sqlite3 13 (`better-sqlite3`) is a Node-API 10 addon with prebuilt binaries in its
 *   package: no compiler, one binary for every Node from 22.14 on. It is the only one that is
 *   safe on Node 24.19 and later, where 12 aborts the process ("Assertion failed: (env) !=
 *   nullptr" in Statement::~Statement) when the garbage collector frees a statement or database
 *   outside JavaScript.
 * - better-sqlite3 12 (`better-sqlite3-node20`, an optional dependency compiled at install) is
 *   for Node 20 and 22.12–22.13, whose Node-API stops at 9: 13 crashes on them.
 */
import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

/** The first Node-API version better-sqlite3 13's binaries can run on (Node 22.14, 24.0). */
const NODE_API_OF_PREBUILT_DRIVER = 10;

/** The package name of the driver for this Node. */
export const SQLITE_DRIVER =
  Number(process.versions.napi) >= NODE_API_OF_PREBUILT_DRIVER
    ? 'better-sqlite3'
    : 'better-sqlite3-node20';

const require = createRequire(import.meta.url);

let loaded: { path: string; Database: typeof BetterSqlite3 } | undefined;

/**
 * The driver's entry file: worker threads and helper processes `require` this same file.
 * Loaded on first use, so a server on PostgreSQL runs even where no SQLite driver is installed.
 */
export function sqliteDriverPath(): string {
  return load().path;
}

/** better-sqlite3's `Database` class, from the driver for this Node. */
export function sqliteDatabase(): typeof BetterSqlite3 {
  return load().Database;
}

function load(): { path: string; Database: typeof BetterSqlite3 } {
  if (loaded) return loaded;
  let driverPath: string;
  try {
    driverPath = require.resolve(SQLITE_DRIVER);
  } catch {
    throw new Error(
      `Node ${process.version} runs SQLite through the package ${SQLITE_DRIVER}, which is not installed: ` +
        (SQLITE_DRIVER === 'better-sqlite3'
          ? 'run npm install.'
          : 'run npm install (it compiles better-sqlite3 12, which needs python3, make and a C++ compiler), or use Node 22.14 or newer.'),
    );
  }
  loaded = { path: driverPath, Database: require(driverPath) as typeof BetterSqlite3 };
  return loaded;
}
