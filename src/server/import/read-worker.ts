/**
 * The import reader's worker thread (read-thread.ts starts it): reads each file it is sent with
 * readImportFile, keeps what it read until the server has taken it, a slice of rows per request,
 * and answers a refusal with its code and message.
 */
import { parentPort } from 'node:worker_threads';
import type { ImportData } from '../domain/import.js';
import { DomainError } from '../errors.js';
import { readImportFile } from './read.js';
import { ROWS_PER_MESSAGE, type ReaderAnswer, type ReaderRequest } from './read-thread.js';

const port = parentPort;
if (port === null) throw new Error('The import reader runs in a worker thread');

/** Files read and not yet released, by their read's id. */
const readings = new Map<number, ImportData>();

function answer(message: ReaderAnswer): void {
  port?.postMessage(message);
}

port.on('message', (request: ReaderRequest) => {
  switch (request.kind) {
    case 'read':
      readImportFile(request.body, request.format).then(
        (data) => {
          readings.set(request.id, data);
          answer({
            kind: 'read',
            id: request.id,
            format: data.format,
            warnings: data.warnings,
            counters: data.counters.length,
            entries: data.entries.length,
          });
        },
        (error: unknown) => {
          answer(
            error instanceof DomainError
              ? { kind: 'refused', id: request.id, code: error.code, message: error.message }
              : { kind: 'failed', id: request.id, message: String(error) },
          );
        },
      );
      return;
    case 'rows': {
      const data = readings.get(request.reading);
      if (data === undefined) {
        answer({ kind: 'failed', id: request.id, message: 'Error: no such file read' });
        return;
      }
      const list: unknown[] = data[request.list];
      const rows = list.slice(request.from, request.from + ROWS_PER_MESSAGE);
      answer({ kind: 'rows', id: request.id, rows: rows as ImportData[typeof request.list] });
      return;
    }
    case 'release':
      readings.delete(request.reading);
      return;
  }
});
