/**
 * The benchmark's patches (bench/patches/) make a build without one feature, to measure that
 * feature's cost in the same run (docs/benchmarks.md). A patch that no longer applies would only
 * be found when someone next measures: this keeps each one applicable to the code as it is.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const patches = readdirSync(join(root, 'bench', 'patches')).filter((name) =>
  name.endsWith('.patch'),
);

describe('the benchmark patches', () => {
  it('exist', () => {
    expect(patches.length).toBeGreaterThan(0);
  });

  it.each(patches)('%s still applies to the source as it is', (name) => {
    const check = () =>
      execFileSync('git', ['apply', '--check', join('bench', 'patches', name)], {
        cwd: root,
        stdio: 'pipe',
      });
    expect(check).not.toThrow();
  });
});
