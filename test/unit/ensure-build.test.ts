/**
 * `npm start` rebuilds only when it must (scripts/ensure-build.mjs): a restart of an unchanged
 * build starts the server at once; a missing, half-made or older build is made again.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module script without types (it runs before any build exists).
import { BUILD_STAMP, staleReason, writeStamp } from '../../scripts/ensure-build.mjs';

const stale = staleReason as (root: string) => string | null;
const stamp = writeStamp as (root: string) => void;

describe('whether npm start must build first', () => {
  let root: string;
  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'tally-build-'));
    fs.mkdirSync(path.join(root, 'src/server'), { recursive: true });
    fs.mkdirSync(path.join(root, 'dist'));
    fs.writeFileSync(path.join(root, 'src/server/main.ts'), 'export {};\n');
    fs.writeFileSync(path.join(root, 'package.json'), '{}\n');
  });
  afterEach(() => {
    fs.rmSync(root, { recursive: true, force: true });
  });

  /** Moves a file's modification time by `ms` from now. */
  const touch = (file: string, ms: number) => {
    const at = new Date(Date.now() + ms);
    fs.utimesSync(path.join(root, file), at, at);
  };

  it('builds when there is no finished build', () => {
    expect(stale(root)).toBe('no build yet');
  });

  it('starts at once from a build newer than every source', () => {
    touch('src/server/main.ts', -60_000);
    touch('src/server', -60_000);
    touch('src', -60_000);
    touch('package.json', -60_000);
    stamp(root);
    expect(fs.existsSync(path.join(root, BUILD_STAMP as string))).toBe(true);
    expect(stale(root)).toBeNull();
  });

  it('builds again when a source file or the dependencies changed after the build', () => {
    touch('src/server/main.ts', -60_000);
    touch('src/server', -60_000);
    touch('src', -60_000);
    touch('package.json', -60_000);
    stamp(root);
    touch('src/server/main.ts', 5_000);
    expect(stale(root)).toBe('src changed');
    touch('src/server/main.ts', -60_000);
    touch('package.json', 5_000);
    expect(stale(root)).toBe('package.json changed');
  });
});
