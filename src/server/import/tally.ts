/**
 * Tally's own files: the JSON export (GET …/export, shared GroupExportSchema: counters with
 * their settings and the activity log with each entry's chain hash) and the counters CSV
 * (GET …/export?format=csv, export/csv.ts COUNTER_COLUMNS). The activity CSV describes changes
 * for people to read and cannot be imported.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { parse as parseCsv } from 'csv-parse/sync';
import { z } from 'zod';
import {
  ChainedActivityEntrySchema,
  memberName,
  type ActivityEntry,
} from '../../shared/activity.js';
import { CounterSchema, NoteSchema } from '../../shared/api.js';
import { COUNTER_FIELDS, type CounterField } from '../../shared/fields.js';
import { IMPORT_MESSAGES } from '../../shared/import.js';
import { canonicalJson } from '../domain/canonical-json.js';
import type { EntryDetail } from '../domain/activity.js';
import type { ImportData, ImportedCounter, ImportedEntry } from '../domain/import.js';
import { ACTIVITY_COLUMNS, COUNTER_COLUMNS } from '../export/csv.js';
import { counterFieldsOf, firstIssue } from './counter-fields.js';
import { jsonElementOffsets } from './json-places.js';
import {
  Occurrences,
  ROWS_PER_TURN,
  fingerprintOf,
  invalidAt,
  invalidFile,
  refuseRows,
  type Places,
} from './file-text.js';

/** What a Tally JSON export must hold to be read as one (the rest is checked entry by entry). */
const ExportShapeSchema = z.object({
  exportedAt: z.string(),
  group: z.object({ id: z.string() }).loose(),
  counters: z.array(z.unknown()),
  activity: z.array(z.unknown()).default([]),
  periods: z.array(z.unknown()).default([]),
  alerts: z.array(z.unknown()).optional(),
});

/** Whether a parsed JSON file looks like a Tally export (format detection). */
export const isTallyExport = (value: unknown): boolean =>
  typeof value === 'object' &&
  value !== null &&
  'exportedAt' in value &&
  'group' in value &&
  'counters' in value;

export async function readTallyJson(
  text: string,
  value: unknown,
  places: Places,
): Promise<ImportData> {
  const shape = ExportShapeSchema.safeParse(value);
  if (!shape.success) {
    const { field, message } = firstIssue(shape.error);
    throw invalidAt({ line: 1, column: 1 }, `${field}: ${message}`);
  }
  const file = shape.data;
  refuseRows(file.counters.length + file.activity.length);
  const offsets = jsonElementOffsets(text, ['counters', 'activity']);
  const placeOf = (list: 'counters' | 'activity', index: number) =>
    places.at(offsets.get(list)?.[index] ?? 0);

  const counters: ImportedCounter[] = file.counters.map((raw, index) => {
    const parsed = CounterSchema.safeParse(raw);
    if (!parsed.success) {
      const { field, message } = firstIssue(parsed.error);
      throw invalidAt(placeOf('counters', index), `counters[${index}].${field}: ${message}`);
    }
    const counter = parsed.data;
    const checked = counterFieldsOf(counter);
    if (!checked.ok) {
      throw invalidAt(
        placeOf('counters', index),
        `counters[${index}].${checked.field}: ${checked.message}`,
      );
    }
    const createdAt = Date.parse(counter.createdAt);
    return {
      sourceId: counter.id,
      fields: checked.fields,
      createdAt: Number.isFinite(createdAt) ? createdAt : null,
      allTime: counter.allTime,
    };
  });

  const entries: ImportedEntry[] = [];
  const positions = new Map<number, number>();
  const repeats = new Occurrences();
  for (const [index, raw] of file.activity.entries()) {
    if (index > 0 && index % ROWS_PER_TURN === 0) await nextTurn();
    const parsed = ChainedActivityEntrySchema.safeParse(raw);
    if (!parsed.success) {
      const { field, message } = firstIssue(parsed.error);
      throw invalidAt(placeOf('activity', index), `activity[${index}].${field}: ${message}`);
    }
    const entry = parsed.data;
    const at = Date.parse(entry.at);
    if (!Number.isFinite(at)) {
      throw invalidAt(placeOf('activity', index), `activity[${index}].at: is not a time`);
    }
    const note = entry.note === undefined ? undefined : NoteSchema.safeParse(entry.note);
    if (note && !note.success) {
      const { message } = firstIssue(note.error);
      throw invalidAt(placeOf('activity', index), `activity[${index}].note: ${message}`);
    }
    const earlier = 'countedAt' in entry ? entry.countedAt : undefined;
    const countedAt = earlier === undefined ? undefined : Date.parse(earlier);
    if (countedAt !== undefined && !Number.isFinite(countedAt)) {
      throw invalidAt(placeOf('activity', index), `activity[${index}].countedAt: is not a time`);
    }
    positions.set(entry.id, entries.length);
    entries.push({
      ...importedEntry(entry, { at, repeats, positions }),
      // A blank note is no note, as when a member writes one.
      ...(note?.data ? { note: note.data } : {}),
      ...(countedAt === undefined ? {} : { countedAt }),
    });
  }

  const warnings: string[] = [];
  if (file.periods.length > 0) {
    warnings.push(
      `${file.periods.length.toLocaleString('en-US')} ended periods are not imported: the counters' period history starts in this group.`,
    );
  }
  if (file.alerts !== undefined && file.alerts.length > 0) {
    warnings.push('Alert rules are not imported: add them in this group’s settings.');
  }
  warnings.push(
    'The group’s own settings (time zone, week start, section maximums) are not imported.',
  );
  return { format: 'tally', counters, entries, warnings };
}

/** An entry of the export as the import adds it; `positions` maps the file's entry ids. */
function importedEntry(
  entry: ActivityEntry & { hash: string | null },
  {
    at,
    repeats,
    positions,
  }: { at: number; repeats: Occurrences; positions: ReadonlyMap<number, number> },
): ImportedEntry {
  // What recognises an entry is what its chain covered: a note may be changed afterwards.
  const { id: _id, undoOf, undoneBy: _undoneBy, hash, note: _note, ...said } = entry;
  const text = canonicalJson(said);
  const base = {
    // The source's chain hash recognises it; an entry written before the chain, what it says
    // (and which repeat of the same words it is).
    fingerprint: hash ?? fingerprintOf('tally', text, repeats.next(text)),
    hash,
    at,
    actor: memberName(entry.actor),
    link: entry.link ?? null,
    kind: entry.kind,
    counterSourceId: entry.counterId,
    counterName: entry.counterName,
    value: entry.value,
    delta: null,
    increments: null,
    decrements: null,
    undoOf: undoOf === null ? null : (positions.get(undoOf) ?? null),
  };
  switch (entry.kind) {
    case 'counter.adjusted': {
      // The goal it reached and the ended period it corrected (ADR 36), as the log keeps them.
      const period = entry.correctedPeriod;
      const detail = {
        ...(entry.reachedGoal === null ? {} : { goal: entry.reachedGoal }),
        ...(period === undefined
          ? {}
          : { period: { start: Date.parse(period.start), end: Date.parse(period.end) } }),
      };
      return {
        ...base,
        delta: entry.delta,
        increments: entry.increments,
        decrements: entry.decrements,
        detail: Object.keys(detail).length === 0 ? null : (detail as EntryDetail),
      };
    }
    case 'counter.updated':
    case 'group.updated':
      return { ...base, detail: entry.changes };
    case 'counter.created':
    case 'counter.deleted':
      return { ...base, detail: entry.counter };
    case 'counters.reordered':
      return { ...base, detail: { from: entry.from, to: entry.to } };
    case 'counter.reset':
      return {
        ...base,
        detail: {
          final: entry.final,
          periodStart: Date.parse(entry.periodStart),
          periodEnd: Date.parse(entry.periodEnd),
        },
      };
  }
}

/** The first line of a Tally counters CSV, as export/csv.ts writes it. */
export const TALLY_COUNTERS_HEADER = COUNTER_COLUMNS.join(',');
/** The first line of a Tally activity CSV. */
export const TALLY_ACTIVITY_HEADER = ACTIVITY_COLUMNS.join(',');

/** Nullable fields a CSV writes as an empty cell. */
const NULLABLE = new Set<CounterField>(['thumbnailUrl', 'goal', 'min', 'max', 'reset', 'section']);
const NUMERIC = new Set<CounterField>([
  'value',
  'incrementStep',
  'decrementStep',
  'goal',
  'min',
  'max',
  'startValue',
]);

/** A text cell written with the export's apostrophe before a formula character, without it. */
const cellText = (cell: string): string => (/^'[=+\-@\t\r]/.test(cell) ? cell.slice(1) : cell);

/** Tally's counters CSV: one counter a row, under the export's header. */
export function readTallyCountersCsv(text: string): ImportData {
  if (text.startsWith(TALLY_ACTIVITY_HEADER)) throw invalidFile(IMPORT_MESSAGES.activityCsv);
  let rows: { record: string[]; info: { lines: number } }[];
  try {
    rows = parseCsv(text, { info: true, bom: true, skip_empty_lines: true }) as unknown as {
      record: string[];
      info: { lines: number };
    }[];
  } catch (error) {
    const { lines, column } = error as { lines?: number; column?: number };
    throw invalidAt(
      { line: lines ?? 1, ...(column === undefined ? {} : { column: column + 1 }) },
      'this is not a well-formed CSV row',
    );
  }
  refuseRows(rows.length - 1);
  const counters = rows.slice(1).map(({ record, info }) => {
    const cells = new Map(COUNTER_COLUMNS.map((column, index) => [column, record[index] ?? '']));
    const raw: Partial<Record<CounterField, unknown>> = {};
    for (const field of COUNTER_FIELDS) {
      const cell = cellText(cells.get(field) ?? '');
      if (NULLABLE.has(field) && cell === '') raw[field] = null;
      else if (NUMERIC.has(field)) {
        const number = Number(cell);
        if (cell === '' || !Number.isSafeInteger(number)) {
          throw invalidAt(
            { line: info.lines, column: COUNTER_COLUMNS.indexOf(field) + 1 },
            `${field} must be a whole number`,
          );
        }
        raw[field] = number;
      } else raw[field] = cell;
    }
    const checked = counterFieldsOf(raw);
    if (!checked.ok) {
      const column = COUNTER_COLUMNS.indexOf(checked.field as CounterField);
      throw invalidAt(
        { line: info.lines, ...(column === -1 ? {} : { column: column + 1 }) },
        `${checked.field}: ${checked.message}`,
      );
    }
    const createdAt = Date.parse(cells.get('createdAt') ?? '');
    const allTime = Number(cells.get('allTime'));
    return {
      sourceId: cells.get('id') ?? '',
      fields: checked.fields,
      createdAt: Number.isFinite(createdAt) ? createdAt : null,
      allTime: Number.isSafeInteger(allTime) ? allTime : null,
    } satisfies ImportedCounter;
  });
  return {
    format: 'tally',
    counters,
    entries: [],
    warnings: ['A counters CSV holds no activity log: import the JSON export to bring the log.'],
  };
}
