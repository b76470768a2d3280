/* global process */
// Writes dist/web/source.tar.gz, this build's own source (every file git tracks, as it is on disk
// at build time), when the build runs in a git checkout. A server with neither SOURCE_URL nor a
// `repository` in package.json links its footer to this archive: the source of what it runs,
// rather than a guessed address. Outside a git checkout nothing is written and the footer
// shows no source link.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const out = path.join(root, 'dist/web/source.tar.gz');
fs.rmSync(out, { force: true });

const listed = spawnSync('git', ['ls-files', '-z', '--cached'], { cwd: root, encoding: 'utf8' });
if (listed.status !== 0 || listed.error) {
  process.stdout.write('source archive: not a git checkout, none written\n');
  process.exit(0);
}
// A tracked file deleted in the working tree is not part of what was built.
const files = listed.stdout
  .split('\0')
  .filter((file) => file !== '' && fs.statSync(path.join(root, file), { throwIfNoEntry: false }));
const tar = spawnSync('tar', ['-czf', out, '--null', '--transform', 's,^,tally/,', '-T', '-'], {
  cwd: root,
  input: files.join('\0'),
});
if (tar.status !== 0 || tar.error) {
  fs.rmSync(out, { force: true });
  process.stdout.write(`source archive: tar failed, none written (${String(tar.stderr)})\n`);
  process.exit(0);
}
process.stdout.write(`source archive: ${files.length} files in dist/web/source.tar.gz\n`);
