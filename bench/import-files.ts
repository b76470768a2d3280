/**
 * The largest files an import may be, in each format it reads (docs/benchmarks.md#import), for
 * `npm run bench:import` and `npm run bench:import-read`. Each is as close to IMPORT_MAX_BYTES
 * (5 MB) as its rows make it, or IMPORT_MAX_ROWS where that comes first:
 *
 * - `bettercounter`: one counter and 99,999 taps (100,000 rows, 1.4 MB: the rows' bound comes
 *   first), the largest BetterCounter file that is imported.
 * - `bettercounter-5mb`: 5 MB of taps (about 370,000): read whole, then refused (413) for its
 *   rows. What a client can make the server read.
 * - `tally-json`: a Tally JSON export of 5 counters and about 16,000 entries (taps, a note on
 *   every other), as GET …/export writes it.
 * - `tally-csv`: a Tally counters CSV of about 46,000 counters: read whole, then refused by the
 *   group's counters quota (1,000 by default) in the commit.
 * - `simplecounter`: a Simple Counter backup of about 60,000 counters: likewise.
 */
import { createHash } from 'node:crypto';
import { IMPORT_MAX_BYTES, IMPORT_MAX_ROWS } from '../src/shared/import.js';

export const IMPORT_FILE_KINDS = [
  'bettercounter',
  'bettercounter-5mb',
  'tally-json',
  'tally-csv',
  'simplecounter',
] as const;
export type ImportFileKind = (typeof IMPORT_FILE_KINDS)[number];

export interface ImportFile {
  body: string;
  type: 'text/csv' | 'application/json';
  /** Its rows: counters plus entries (a BetterCounter time is a row). */
  rows: number;
}

const FIRST_TIME = 1_700_000_000_000;
const iso = (index: number) => new Date(FIRST_TIME + index * 1_000).toISOString();
const uuid = (index: number) => {
  const hex = createHash('sha256').update(String(index)).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
};

/** Adds `part(i)` for i = 0, 1, … while the whole stays within `bytes` and `rows`. */
function fill(
  head: string,
  part: (index: number) => string,
  tail: string,
  { bytes = IMPORT_MAX_BYTES, rows = Number.POSITIVE_INFINITY, separator = '' } = {},
): { text: string; count: number } {
  const parts: string[] = [];
  let size = Buffer.byteLength(head) + Buffer.byteLength(tail);
  for (let index = 0; index < rows; index += 1) {
    const next = part(index);
    const grows = Buffer.byteLength(next) + (index === 0 ? 0 : separator.length);
    if (size + grows > bytes) break;
    parts.push(next);
    size += grows;
  }
  return { text: head + parts.join(separator) + tail, count: parts.length };
}

const counterOf = (index: number) => ({
  id: uuid(index),
  name: `Counter ${String(index)}`,
  description: '',
  value: index,
  incrementStep: 1,
  decrementStep: 1,
  thumbnailUrl: null,
  goal: null,
  min: null,
  max: null,
  reset: null,
  startValue: 0,
  section: 'Bar',
  periodStart: null,
  allTime: index,
  createdAt: iso(0),
  version: 1,
});

function tallyJson(): ImportFile {
  const counters = Array.from({ length: 5 }, (_, index) => counterOf(index));
  const head = JSON.stringify({
    exportedAt: iso(0),
    group: {
      id: uuid(-1),
      name: 'bench',
      displayName: 'bench',
      profileImageUrl: null,
      timeZone: 'UTC',
      weekStart: 1,
      sectionLimits: {},
    },
    counters,
    alerts: [],
    chain: { anchor: null, head: null },
  }).slice(0, -1);
  const entry = (index: number) =>
    JSON.stringify({
      kind: 'counter.adjusted',
      id: index + 1,
      seq: index + 1,
      at: iso(index),
      actor: 'Ada',
      ...(index % 2 === 0 ? { note: 'table 4' } : {}),
      undoOf: null,
      undoneBy: null,
      counterId: counters[index % counters.length]?.id,
      counterName: counters[index % counters.length]?.name,
      value: Math.floor(index / counters.length) + 1,
      delta: 1,
      increments: 1,
      decrements: 0,
      reachedGoal: null,
      hash: createHash('sha256')
        .update(`entry ${String(index)}`)
        .digest('hex'),
    });
  const { text, count } = fill(`${head},"activity":[`, entry, '],"periods":[]}', {
    rows: IMPORT_MAX_ROWS - counters.length,
    separator: ',',
  });
  return { body: text, type: 'application/json', rows: counters.length + count };
}

function tallyCsv(): ImportFile {
  const header =
    'id,name,description,value,incrementStep,decrementStep,thumbnailUrl,goal,min,max,reset,startValue,section,periodStart,allTime,createdAt\n';
  const row = (index: number) => {
    const c = counterOf(index);
    return `${c.id},${c.name},,${String(c.value)},1,1,,,,,,0,${c.section},,${String(c.allTime)},${c.createdAt}\n`;
  };
  const { text, count } = fill(header, row, '', { rows: IMPORT_MAX_ROWS });
  return { body: text, type: 'text/csv', rows: count };
}

function simpleCounter(): ImportFile {
  const counter = (index: number) =>
    JSON.stringify({
      id: index + 1,
      name: `Counter ${String(index)}`,
      value: index,
      defaultValue: 0,
      labelId: 1,
      allowNegativeValues: index % 2 === 0,
    });
  const { text, count } = fill('{"counters":[', counter, '],"labels":[{"id":1,"name":"Sport"}]}', {
    rows: IMPORT_MAX_ROWS,
    separator: ',',
  });
  return { body: text, type: 'application/json', rows: count };
}

function betterCounter(rows: number): ImportFile {
  const time = (index: number) => String(FIRST_TIME + index * 1_000);
  // One counter: its line is one row, each time another.
  const { text, count } = fill('Steps,', time, '\n', { rows: rows - 1, separator: ',' });
  return { body: text, type: 'text/csv', rows: count + 1 };
}

export function largestImportFile(kind: ImportFileKind): ImportFile {
  switch (kind) {
    case 'bettercounter':
      return betterCounter(IMPORT_MAX_ROWS);
    case 'bettercounter-5mb':
      return betterCounter(Number.POSITIVE_INFINITY);
    case 'tally-json':
      return tallyJson();
    case 'tally-csv':
      return tallyCsv();
    case 'simplecounter':
      return simpleCounter();
  }
}
