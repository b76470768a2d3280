/**
 * The import reader in its worker thread (src/server/import/read-thread.ts): a file read there
 * is what readImportFile reads on the event loop, row for row (in several slices when it is
 * large), and a file it refuses is refused with the same code and message. A reader whose worker
 * is gone fails the read under way and starts another for the next.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DomainError } from '../../src/server/errors.js';
import { readImportFile } from '../../src/server/import/read.js';
import { ImportReader, ROWS_PER_MESSAGE } from '../../src/server/import/read-thread.js';
import { IMPORT_MAX_ROWS } from '../../src/shared/import.js';
import { tallyExportWithTaps } from '../helpers/fixtures.js';

const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/import');
const reader = new ImportReader();
afterAll(() => reader.close());

/** What reading `body` gives on the event loop: its data, or its refusal's code and message. */
const onEventLoop = (body: string) =>
  readImportFile(body, undefined).then(
    (data) => ({ data }),
    (error: unknown) => ({ refused: refusalOf(error) }),
  );
const inWorker = (body: string) =>
  reader.read(body, undefined).then(
    (data) => ({ data }),
    (error: unknown) => ({ refused: refusalOf(error) }),
  );
const refusalOf = (error: unknown) =>
  error instanceof DomainError ? { code: error.code, message: error.message } : String(error);

describe('the import reader in its worker thread', () => {
  it('reads every format as the event loop reads it, a large file in several slices', async () => {
    const files = [
      fs.readFileSync(path.join(FIXTURES, 'bettercounter.csv'), 'utf8'),
      fs.readFileSync(path.join(FIXTURES, 'simplecounter.json'), 'utf8'),
      tallyExportWithTaps(ROWS_PER_MESSAGE * 2 + 7, { notes: true }),
      `Steps,${Array.from({ length: ROWS_PER_MESSAGE * 3 }, (_, index) => String(1_700_000_000_000 + index)).join(',')}\n`,
    ];
    for (const file of files) {
      const read = await inWorker(file);
      expect(read).toHaveProperty('data');
      expect(read).toEqual(await onEventLoop(file));
    }
  });

  it('refuses a bad file with the code and message the event loop gives, naming where', async () => {
    const broken = tallyExportWithTaps(3).replace('"delta":1', '"delta":"many"');
    const files = [
      '',
      '{\n  "exportedAt": "x",\n  "group": {,\n}',
      broken,
      'Coffees,1700000000000\nTeas,1700000000000,soon\n',
      'just some words\n',
      `Many,${Array.from({ length: IMPORT_MAX_ROWS + 1 }, () => '1700000000000').join(',')}\n`,
    ];
    const codes = [];
    for (const file of files) {
      const read = await inWorker(file);
      expect(read).toEqual(await onEventLoop(file));
      expect(read).toHaveProperty('refused.message');
      codes.push((read as { refused: { code: string } }).refused.code);
    }
    expect(codes).toEqual([
      'import_invalid',
      'import_invalid',
      'import_invalid',
      'import_invalid',
      'import_invalid',
      'payload_too_large',
    ]);
  });

  it('fails the read under way when its worker stops, and reads the next file in a new one', async () => {
    const own = new ImportReader();
    try {
      const failed = expect(own.read(tallyExportWithTaps(2_000), undefined)).rejects.toThrow(
        /stopped/,
      );
      await own.close();
      await failed;
      const next = await own.read('Coffees,1700000000000\n', undefined);
      expect(next.entries).toHaveLength(1);
    } finally {
      await own.close();
    }
  });
});
