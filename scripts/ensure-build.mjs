/* global process, console */
// `npm start` runs this first: it builds (npm run build) only when the build is missing or older
// than what it is built from, so a restart — after a crash, a deploy of the same code, a
// `kill -9` — answers in well under a second instead of rebuilding for seconds every time
// (docs/benchmarks.md#restart).
// The build removes dist/.build-stamp first and writes it last, so a build cut off halfway
// counts as missing.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** What the build is made from, relative to the project root: folders are walked. */
export const BUILD_INPUTS = [
  'src',
  'index.html',
  'vite.config.ts',
  'tsconfig.json',
  'tsconfig.server.json',
  'package.json',
  'package-lock.json',
  'scripts/precompress.mjs',
  'scripts/source-archive.mjs',
];

/** Written by `npm run build` once everything else is built. */
export const BUILD_STAMP = 'dist/.build-stamp';

/** The newest modification time under `file` (a file or a folder), ms; 0 when it is missing. */
function newestMtime(file) {
  const stats = fs.statSync(file, { throwIfNoEntry: false });
  if (!stats) return 0;
  if (!stats.isDirectory()) return stats.mtimeMs;
  let newest = stats.mtimeMs;
  for (const entry of fs.readdirSync(file, { withFileTypes: true })) {
    newest = Math.max(newest, newestMtime(path.join(file, entry.name)));
  }
  return newest;
}

/** Why the build at `root` must be made again, or null when it is current. */
export function staleReason(root) {
  const stamp = fs.statSync(path.join(root, BUILD_STAMP), { throwIfNoEntry: false });
  if (!stamp) return 'no build yet';
  for (const input of BUILD_INPUTS) {
    if (newestMtime(path.join(root, input)) > stamp.mtimeMs) return `${input} changed`;
  }
  return null;
}

/** Marks the build at `root` as complete (the last step of `npm run build`). */
export function writeStamp(root) {
  fs.writeFileSync(path.join(root, BUILD_STAMP), `${new Date().toISOString()}\n`);
}

const isMain =
  process.argv[1] !== undefined && fileURLToPath(import.meta.url) === path.resolve(process.argv[1]);
if (isMain) {
  const root = path.resolve(import.meta.dirname, '..');
  if (process.argv[2] === '--stamp') {
    writeStamp(root);
  } else if (process.argv[2] === '--unstamp') {
    // A build starting: until it ends, the build on disk is not one to start from.
    fs.rmSync(path.join(root, BUILD_STAMP), { force: true });
  } else {
    const reason = staleReason(root);
    if (reason !== null) {
      console.log(`tally: building (${reason})`);
      const build = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
      if (build.status !== 0) process.exit(build.status ?? 1);
    }
  }
}
