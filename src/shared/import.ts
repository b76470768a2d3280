/**
 * Import (POST /api/groups/{name}/import, docs/api.md "Import"): the formats a file may be in,
 * the query, the summary a preview and an import answer with, and the bounds of a file. Defined
 * once for the server, the web app and the tests.
 */
import { z } from 'zod';

/**
 * Tally's own JSON export (or its counters CSV), BetterCounter's CSV export (one line per
 * counter: its name, then the epoch-ms time of each tap) and Simple Counter's JSON backup.
 */
export const IMPORT_FORMATS = ['tally', 'bettercounter', 'simplecounter'] as const;
export const ImportFormatSchema = z.enum(IMPORT_FORMATS, {
  error: 'format must be tally, bettercounter or simplecounter',
});
export type ImportFormat = z.infer<typeof ImportFormatSchema>;

/** The most an import's file may weigh, bytes (5 MB). */
export const IMPORT_MAX_BYTES = 5 * 1024 * 1024;
/** The most rows one file may hold: counters plus activity entries (a CSV's lines, a tap each). */
export const IMPORT_MAX_ROWS = 100_000;
/** The most warnings an answer lists; past it, the last one says how many more there were. */
export const IMPORT_WARNINGS_MAX = 20;
/** The last warning of a list cut at IMPORT_WARNINGS_MAX. */
export const IMPORT_MAX_WARNINGS_TEXT = (more: number) =>
  `And ${more.toLocaleString('en-US')} more warnings like these.`;

export const ImportQuerySchema = z.strictObject({
  /** true: only say what the import would do (the preview); false: do it. */
  dryRun: z.enum(['true', 'false'], { error: 'dryRun must be true or false' }).default('false'),
  /** The file's format; detected from its content when absent. */
  format: ImportFormatSchema.optional(),
});
export type ImportQuery = z.output<typeof ImportQuerySchema>;

/** What an import creates or changes (a preview: would create or change). */
export const ImportSummarySchema = z.object({
  /** The format the file was read as. */
  format: ImportFormatSchema,
  /** Whether this was only a preview: nothing was changed. */
  dryRun: z.boolean().meta({ examples: [true] }),
  counters: z.object({
    /** Counters the group does not have yet. */
    create: z
      .number()
      .int()
      .meta({ examples: [3] }),
    /** Counters of the group (the same id, or imported before) whose settings or value change. */
    update: z
      .number()
      .int()
      .meta({ examples: [0] }),
  }),
  /** Activity entries added to the group's log (those imported before are not counted). */
  entries: z
    .number()
    .int()
    .meta({ examples: [412] }),
  /** What the file holds that the import leaves out or reads differently, one sentence each. */
  warnings: z.array(z.string()),
});
export type ImportSummary = z.infer<typeof ImportSummarySchema>;

/** Where in a file its first problem is: a line (1-based) and, where it applies, a column. */
export interface FilePlace {
  line: number;
  column?: number | undefined;
}

/** "line 3, column 7" or "line 3". */
export const placeText = ({ line, column }: FilePlace): string =>
  column === undefined ? `line ${line}` : `line ${line}, column ${column}`;

export const IMPORT_MESSAGES = {
  fileTooLarge: `The file is over ${IMPORT_MAX_BYTES / 1024 / 1024} MB, the most an import may be.`,
  tooManyRows: (rows: number) =>
    `The file holds ${rows.toLocaleString('en-US')} rows or more; an import may hold at most ${IMPORT_MAX_ROWS.toLocaleString('en-US')}.`,
  tooManyCounters: (total: number, max: number) =>
    `This import would give the group ${total.toLocaleString('en-US')} counters; a group may have at most ${max.toLocaleString('en-US')}. Nothing was imported.`,
  tooManyEntries: (total: number, max: number) =>
    `This import would give the group's activity log ${total.toLocaleString('en-US')} entries; a group keeps at most ${max.toLocaleString('en-US')}. Import the file without its log, or into a group with fewer entries. Nothing was imported.`,
  unrecognised:
    'This file is not one Tally can import: a Tally JSON export or counters CSV, a BetterCounter CSV export or a Simple Counter backup.',
  empty: 'The file is empty.',
  problemAt: (place: FilePlace, problem: string) => `${placeText(place)}: ${problem}`,
  activityCsv:
    "A Tally activity CSV cannot be imported: its changes are written for people to read. Import the group's JSON export, which holds the whole log.",
  counterRefused: (name: string, reason: string) => `Counter "${name}": ${reason}`,
  changedMeanwhile:
    'The group changed on another server while this import was being prepared. Nothing was imported; try again.',
} as const;
