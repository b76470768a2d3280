/**
 * Reads an import's file into the counters and entries the commit applies (domain/import.ts):
 * the format named, or detected from the content; any problem refused with where it is (400
 * import_invalid), before anything is changed. Reading happens before the commit, so the
 * transaction only applies what was read, and off the server's event loop: the server calls this
 * in a worker thread (read-thread.ts).
 */
import {
  IMPORT_MAX_WARNINGS_TEXT,
  IMPORT_MESSAGES,
  IMPORT_WARNINGS_MAX,
  type ImportFormat,
} from '../../shared/import.js';
import type { ImportData } from '../domain/import.js';
import { looksLikeBetterCounter, readBetterCounter } from './bettercounter.js';
import { Places, invalidFile, refuseNul } from './file-text.js';
import { jsonSyntaxError } from './json-places.js';
import { isSimpleCounterBackup, readSimpleCounter } from './simplecounter.js';
import {
  TALLY_ACTIVITY_HEADER,
  TALLY_COUNTERS_HEADER,
  isTallyExport,
  readTallyCountersCsv,
  readTallyJson,
} from './tally.js';

export async function readImportFile(
  body: string,
  format: ImportFormat | undefined,
): Promise<ImportData> {
  const text = body.startsWith('\uFEFF') ? body.slice(1) : body;
  if (text.trim() === '') throw invalidFile(IMPORT_MESSAGES.empty);
  const places = new Places(text);
  refuseNul(text, places);
  const data = await readAs(text, places, format);
  return { ...data, warnings: boundedWarnings(data.warnings) };
}

async function readAs(
  text: string,
  places: Places,
  format: ImportFormat | undefined,
): Promise<ImportData> {
  const start = text.trimStart()[0];
  const json = start === '{' || start === '[';
  if (format === 'bettercounter') return readBetterCounter(text);
  if (json) {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw jsonSyntaxError(error, places);
    }
    if (format === 'tally' || (format === undefined && isTallyExport(value))) {
      return readTallyJson(text, value, places);
    }
    if (format === 'simplecounter' || isSimpleCounterBackup(value)) {
      return readSimpleCounter(text, value, places);
    }
    throw invalidFile(IMPORT_MESSAGES.unrecognised);
  }
  const firstLine = text.slice(0, text.indexOf('\n') === -1 ? undefined : text.indexOf('\n'));
  const header = firstLine.replace(/\r$/, '');
  if (header === TALLY_ACTIVITY_HEADER) throw invalidFile(IMPORT_MESSAGES.activityCsv);
  if (header === TALLY_COUNTERS_HEADER) return readTallyCountersCsv(text);
  if (format === undefined && looksLikeBetterCounter(text)) return readBetterCounter(text);
  throw invalidFile(IMPORT_MESSAGES.unrecognised);
}

/** At most IMPORT_WARNINGS_MAX warnings, the last saying how many more there were. */
function boundedWarnings(warnings: readonly string[]): string[] {
  if (warnings.length <= IMPORT_WARNINGS_MAX) return [...warnings];
  const shown = warnings.slice(0, IMPORT_WARNINGS_MAX - 1);
  return [...shown, IMPORT_MAX_WARNINGS_TEXT(warnings.length - shown.length)];
}
