/**
 * CSV exports (RFC 4180 via csv-stringify: quoted where needed, CRLF, UTF-8 with a byte-order
 * mark so spreadsheet apps read names in any script correctly).
 */
import { stringify } from 'csv-stringify';
import type { Readable } from 'node:stream';
import type { ActivityEntry, CounterPeriod, FieldChange } from '../../shared/activity.js';
import type { Counter } from '../../shared/api.js';
import { COUNTER_FIELDS } from '../../shared/fields.js';

/**
 * A text cell a spreadsheet would run as a formula (=, +, -, @, tab, CR first) is prefixed
 * with an apostrophe (OWASP "CSV injection"): names come from any member of the group.
 */
export function neutraliseFormula(text: string): string {
  return /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
}

type Cell = string | number | null;

const cell = (value: Cell): Cell => (typeof value === 'string' ? neutraliseFormula(value) : value);

/** The counters table: its id, the editable fields in display order, when it was made. */
export const COUNTER_COLUMNS = [
  'id',
  ...COUNTER_FIELDS,
  'periodStart',
  'allTime',
  'createdAt',
] as const;

export function counterRecord(counter: Counter): Cell[] {
  return COUNTER_COLUMNS.map((column) => cell(counter[column]));
}

export const ACTIVITY_COLUMNS = [
  'id',
  'at',
  'actor',
  'action',
  'counterId',
  'counterName',
  'delta',
  'changes',
  'value',
  'undoOf',
  'undoneBy',
  // Appended (ADR 36), so readers of the columns before keep their places: when a change was
  // counted for if it was entered afterwards (`at` is when it was recorded), and its note.
  'countedAt',
  'note',
] as const;

const describeChange = (change: FieldChange): string =>
  `${change.field}${change.section === undefined ? '' : ` (${change.section})`}: ${String(change.from ?? '')} → ${String(change.to ?? '')}`;

export function activityRecord(entry: ActivityEntry): Cell[] {
  const changes =
    entry.kind === 'counter.updated' || entry.kind === 'group.updated'
      ? entry.changes.map(describeChange).join('; ')
      : '';
  return [
    entry.id,
    entry.at,
    entry.actor,
    entry.kind,
    entry.counterId,
    entry.counterName,
    entry.kind === 'counter.adjusted' ? entry.delta : null,
    entryDetail(entry, changes),
    entry.value,
    entry.undoOf,
    entry.undoneBy,
    entry.kind === 'counter.adjusted' ? (entry.countedAt ?? null) : null,
    entry.note ?? null,
  ].map(cell);
}

/** The `changes` cell: field changes, or what the kinds without them did. */
function entryDetail(entry: ActivityEntry, changes: string): string {
  switch (entry.kind) {
    case 'counters.reordered':
      return `order: ${entry.to.join(' ')}`;
    case 'counter.reset':
      return `period ${entry.periodStart} → ${entry.periodEnd} ended at ${entry.final}`;
    case 'counter.adjusted': {
      const goal = entry.reachedGoal === null ? '' : `reached goal ${entry.reachedGoal}`;
      const period = entry.correctedPeriod;
      return period ? `corrected period ${period.start} → ${period.end}` : goal;
    }
    default:
      return changes;
  }
}

/** The ended periods table (data=periods): one row per period of each counter that resets. */
export const PERIOD_COLUMNS = ['counterId', 'counterName', 'start', 'end', 'value'] as const;

export function periodRecord(period: CounterPeriod, names: ReadonlyMap<string, string>): Cell[] {
  return [
    period.counterId,
    names.get(period.counterId) ?? '',
    period.start,
    period.end,
    period.value,
  ].map(cell);
}

/** Streams records as CSV with a header row; the source is read as the client takes the file. */
export function csvStream(
  columns: readonly string[],
  records: AsyncIterable<Cell[]> | Iterable<Cell[]>,
): Readable {
  const stringifier = stringify({
    header: true,
    columns: [...columns],
    record_delimiter: 'windows',
    bom: true,
  });
  void (async () => {
    try {
      for await (const record of records) {
        if (!stringifier.write(record)) {
          await new Promise((resolve) => stringifier.once('drain', resolve));
        }
      }
      stringifier.end();
    } catch (error) {
      stringifier.destroy(error instanceof Error ? error : new Error(String(error)));
    }
  })();
  return stringifier;
}
