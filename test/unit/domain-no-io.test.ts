import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const DOMAIN = path.join(import.meta.dirname, '../../src/server/domain');
const files = fs.readdirSync(DOMAIN).filter((name) => name.endsWith('.ts'));

/** SQL statements as the stores write them (keywords in capitals). */
const SQL =
  /\b(SELECT\s.+\sFROM|INSERT INTO|UPDATE\s+\w+\s+SET|DELETE FROM|CREATE (TABLE|INDEX))\b/;
/** The modules that may do I/O: files, network, processes, database drivers, the server. */
const IO =
  /from '(node:)?(fs|net|http|https|child_process|worker_threads)['/]|from '(pg|better-sqlite3|fastify|ws)'|from '\.\.\/(store|routes|live|bus)\//;

describe('the domain module', () => {
  it('has its files', () => {
    expect(files).toContain('commit.ts');
  });

  it.each(files)('%s holds no SQL and imports nothing that does I/O', (name) => {
    const text = fs.readFileSync(path.join(DOMAIN, name), 'utf8');
    expect(text).not.toMatch(SQL);
    expect(text).not.toMatch(IO);
  });
});
