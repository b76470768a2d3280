/**
 * Reads import files (read.ts) in a worker thread of its own (read-worker.ts): the event loop
 * that answers every group's taps never parses or checks a file. On it, parsing and checking a
 * file at the size bound held every other group's taps for as long as that took (measured in
 * docs/benchmarks.md, "Import"); a thread of its own needs no streaming parser and leaves the
 * readers as they are, their refusals word for word.
 *
 * What the worker read comes back in slices of ROWS_PER_MESSAGE rows, each asked for when the
 * one before has arrived: taking a message off the queue copies it on this thread, and the
 * largest file's rows in one message would hold the loop as long as parsing did; one slice is
 * short to copy, and since the next is only sent when asked for, this thread never finds a
 * queue of them to copy in one go. A refusal (400 import_invalid, 413) comes back as its code
 * and message and is thrown here as the same DomainError.
 *
 * One worker per server, started at its first import and kept (it holds no file between
 * imports, and an idle worker does not keep the process alive). A worker that fails or exits
 * fails the reads it held (500), and the next import starts another (module-worker.ts).
 */
import type { ErrorCode } from '../../shared/api.js';
import type { ImportFormat } from '../../shared/import.js';
import type { ImportData, ImportedCounter, ImportedEntry } from '../domain/import.js';
import { DomainError } from '../errors.js';
import { WorkerCalls, startModuleWorker } from '../module-worker.js';

/** Rows of a read file per message back: short enough to copy on the event loop unnoticed. */
export const ROWS_PER_MESSAGE = 500;

type RowList = 'counters' | 'entries';

export type ReaderRequest =
  | { kind: 'read'; id: number; body: string; format: ImportFormat | undefined }
  /** ROWS_PER_MESSAGE rows of a read file's list, from `from`. */
  | { kind: 'rows'; id: number; reading: number; list: RowList; from: number }
  /** The read file is no longer needed (`reading`: its read's id). */
  | { kind: 'release'; reading: number };

export type ReaderAnswer =
  | {
      kind: 'read';
      id: number;
      format: ImportFormat;
      warnings: string[];
      counters: number;
      entries: number;
    }
  | { kind: 'rows'; id: number; rows: ImportedCounter[] | ImportedEntry[] }
  /** The file is refused: the reader's DomainError. */
  | { kind: 'refused'; id: number; code: ErrorCode; message: string }
  | { kind: 'failed'; id: number; message: string };

export class ImportReader {
  private readonly calls = new WorkerCalls<Extract<ReaderRequest, { id: number }>, ReaderAnswer>(
    () => startModuleWorker(import.meta.url, './read-worker'),
    'The import reader',
  );

  /** The file read as readImportFile reads it, or its refusal. */
  async read(body: string, format: ImportFormat | undefined): Promise<ImportData> {
    const read = await this.ask({ kind: 'read', id: this.calls.id(), body, format });
    if (read.kind !== 'read') throw new Error('the import reader answered out of turn');
    try {
      const { id: reading } = read;
      return {
        format: read.format,
        counters: await this.rows({ reading, list: 'counters', count: read.counters }),
        entries: await this.rows({ reading, list: 'entries', count: read.entries }),
        warnings: read.warnings,
      };
    } finally {
      this.calls.tell({ kind: 'release', reading: read.id } satisfies ReaderRequest);
    }
  }

  /** Stops the worker; the reads under way fail. */
  async close(): Promise<void> {
    await this.calls.close();
  }

  /** The `count` rows of a read file's `list`, ROWS_PER_MESSAGE a message. */
  private async rows<List extends RowList>({
    reading,
    list,
    count,
  }: {
    reading: number;
    list: List;
    count: number;
  }): Promise<ImportData[List]> {
    const rows: ImportData[List][number][] = [];
    for (let from = 0; from < count; from += ROWS_PER_MESSAGE) {
      const answer = await this.ask({ kind: 'rows', id: this.calls.id(), reading, list, from });
      if (answer.kind !== 'rows') throw new Error('the import reader answered out of turn');
      // The worker answers a list's rows with rows of that list.
      for (const row of answer.rows as ImportData[List]) rows.push(row);
    }
    return rows as ImportData[List];
  }

  /** The worker's answer to `request`; a refusal thrown as the reader threw it there. */
  private async ask(request: Extract<ReaderRequest, { id: number }>): Promise<ReaderAnswer> {
    const answer = await this.calls.call(request);
    if (answer.kind === 'refused') throw new DomainError(answer.code, answer.message);
    if (answer.kind === 'failed') throw new Error(answer.message);
    return answer;
  }
}
