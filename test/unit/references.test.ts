/**
 * Everything a newcomer reads in the repository explains itself: no comment, doc, test name or
 * printed text points at an issue tracker's numbers, at documents that are not in the
 * repository, or at a past period of work. Such a pointer cannot be followed; the rule or the
 * reason itself can (or docs/product.md, docs/decisions/, docs/benchmarks.md, which are here).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SCANNED = ['src', 'test', 'docs', 'bench', 'scripts', 'README.md'];
const TEXT = /\.(ts|tsx|js|mjs|cjs|json|md|css|html|yml|yaml|sh)$/;

/**
 * The pointers that cannot be followed. Spelled in pieces so that this file does not match
 * itself. "Session" alone is a protocol term here (numbered operation ids, ADR 24) and a
 * PostgreSQL one: only a period of work is refused.
 */
const UNFOLLOWABLE: { what: string; pattern: RegExp }[] = [
  { what: 'an issue number', pattern: new RegExp(['\\bissues?', ' ?#?\\d+'].join(''), 'i') },
  { what: 'a numbered reference', pattern: /(^|[\s(])#\d+\b/ },
  { what: 'the outside specification', pattern: new RegExp(['SPEC', '( ?§|\\.md)'].join('')) },
  { what: 'the outside design document', pattern: new RegExp(['DESIGN', '\\.md'].join('')) },
  {
    what: 'a period of work',
    pattern: new RegExp(
      ['\\b(this|previous|earlier|last|next|later) ', 'sessions?\\b'].join(''),
      'i',
    ),
  },
];

function trackedFiles(): string[] {
  const listed = execFileSync('git', ['ls-files', '-co', '--exclude-standard', ...SCANNED], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  return listed
    .split('\n')
    .filter((file) => TEXT.test(file) && fs.existsSync(path.join(ROOT, file)));
}

describe('references in the repository', () => {
  const files = trackedFiles();

  it('scans the source, tests, docs, benchmarks and README', () => {
    expect(files).toContain('README.md');
    expect(files.some((file) => file.startsWith('src/server/'))).toBe(true);
    expect(files.some((file) => file.startsWith('docs/decisions/'))).toBe(true);
  });

  for (const { what, pattern } of UNFOLLOWABLE) {
    it(`names no ${what.replace(/^(a|an|the) /, '')}`, () => {
      const found: string[] = [];
      for (const file of files) {
        const lines = fs.readFileSync(path.join(ROOT, file), 'utf8').split('\n');
        lines.forEach((line, index) => {
          if (pattern.test(line)) found.push(`${file}:${String(index + 1)}: ${line.trim()}`);
        });
      }
      expect(found).toEqual([]);
    });
  }
});
