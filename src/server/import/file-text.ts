/**
 * What every import reader needs of the file's text: where an offset is (line and column), a
 * refusal that names it, fingerprints, and turns of the event loop between chunks of rows. The
 * readers run in the import reader's worker thread (read-thread.ts), where those turns let it
 * hand out another import's rows while it reads a large file.
 */
import { createHash } from 'node:crypto';
import { IMPORT_MAX_ROWS, IMPORT_MESSAGES, type FilePlace } from '../../shared/import.js';
import { DomainError } from '../errors.js';

/** Rows read between two turns of the event loop. */
export const ROWS_PER_TURN = 2_000;

/** Line and column (1-based) of each offset of one text: line starts found once. */
export class Places {
  private readonly lineStarts: number[] = [0];

  constructor(text: string) {
    for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) {
      this.lineStarts.push(index + 1);
    }
  }

  at(offset: number): Required<FilePlace> {
    let low = 0;
    let high = this.lineStarts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if ((this.lineStarts[middle] ?? 0) <= offset) low = middle;
      else high = middle - 1;
    }
    return { line: low + 1, column: offset - (this.lineStarts[low] ?? 0) + 1 };
  }
}

/** The file cannot be imported: 400 import_invalid, naming where its first problem is. */
export function invalidAt(place: FilePlace, problem: string): DomainError {
  return new DomainError('import_invalid', IMPORT_MESSAGES.problemAt(place, problem));
}

export const invalidFile = (message: string): DomainError =>
  new DomainError('import_invalid', message);

/** A file over the bound of rows: 413, before anything else is read. */
export function refuseRows(rows: number): void {
  if (rows > IMPORT_MAX_ROWS) {
    throw new DomainError('payload_too_large', IMPORT_MESSAGES.tooManyRows(IMPORT_MAX_ROWS + 1));
  }
}

/** SHA-256 of the parts, one a line, hex: what recognises a row when its file comes again. */
export function fingerprintOf(...parts: readonly (string | number)[]): string {
  return createHash('sha256').update(parts.join('\n')).digest('hex');
}

/**
 * Numbers the repeats of one key (the second identical row of a file is a second row, not the
 * first again): the first is 0.
 */
export class Occurrences {
  private readonly seen = new Map<string, number>();

  next(key: string): number {
    const count = this.seen.get(key) ?? 0;
    this.seen.set(key, count + 1);
    return count;
  }
}

/** NUL never reaches a database (PostgreSQL refuses it in text): refused where it is. */
export function refuseNul(text: string, places: Places): void {
  const at = text.indexOf('\u0000');
  if (at !== -1) throw invalidAt(places.at(at), 'the file holds a NUL character');
}
