/**
 * `--before DIR` of the benchmarks: another checkout's build, run in the same run as this one, so
 * a change's before and after are measured on the same machine state.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** --before DIR: a built checkout, and its commit for the table's label. */
export function beforeCheckout(
  dir: string | undefined,
): { root: string; label: string } | undefined {
  if (dir === undefined) return undefined;
  const root = path.resolve(dir);
  if (!fs.existsSync(path.join(root, 'dist', 'server', 'main.js'))) {
    throw new Error(`--before ${dir}: no dist/server/main.js there (run npm run build in it)`);
  }
  let label = path.basename(root);
  try {
    label = execFileSync('git', ['-C', root, 'rev-parse', '--short', 'HEAD'], {
      encoding: 'utf8',
    }).trim();
  } catch {
    // Not a git checkout: its folder's name.
  }
  return { root, label };
}
