/**
 * BetterCounter's CSV export (the Android app by albertvaka, org.kde.bettercounter): one line per
 * counter, its name and then the time of each of its entries in epoch milliseconds, oldest first,
 * with no header and no quoting: `Coffees,1700000000000,1700000360000`. A name may hold commas:
 * as the app's own import does (ViewModel.parseImportLine), the fields belong to the name until
 * one is a whole number of at least 100000000000 (a time after 1973); every field after that
 * must be one. Format read from the app's source, persistence/Exporter.kt exportAll and
 * ViewModel.parseImportLine (github.com/albertvaka/bettercounter).
 *
 * Each time is one tap of +1: the counter's value is how many it has, and each becomes an entry
 * of the log at its time, in the name of the app.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { ImportData, ImportedCounter, ImportedEntry } from '../domain/import.js';
import { counterFieldsOf } from './counter-fields.js';
import { Occurrences, ROWS_PER_TURN, fingerprintOf, invalidAt, refuseRows } from './file-text.js';

/** The smallest field the app reads as a time rather than part of a name, epoch ms. */
const FIRST_TIME = 100_000_000_000;
/** Who the log says made an imported entry. */
export const BETTERCOUNTER_ACTOR = 'BetterCounter';

/** One line of the file: the counter's name and its times, with where each time starts. */
interface CounterLine {
  line: number;
  name: string;
  times: { at: number; column: number }[];
}

/** The file's lines, read by the app's rule; throws at the first field that is not a time. */
export function betterCounterLines(text: string): CounterLine[] {
  const lines: CounterLine[] = [];
  text.split('\n').forEach((rawLine, index) => {
    const content = rawLine.endsWith('\r') ? rawLine.slice(0, -1) : rawLine;
    if (content.trim() === '') return;
    const fields = content.split(',');
    let name = fields[0] ?? '';
    let column = name.length + 2;
    let nameEnded = false;
    const times: CounterLine['times'] = [];
    for (const field of fields.slice(1)) {
      const number = /^-?\d+$/.test(field) ? Number(field) : Number.NaN;
      if (!nameEnded && (!Number.isSafeInteger(number) || number < FIRST_TIME)) {
        name += `,${field}`;
      } else if (!Number.isSafeInteger(number) || number < FIRST_TIME) {
        throw invalidAt(
          { line: index + 1, column },
          `"${field}" is not a time in milliseconds since 1970`,
        );
      } else {
        nameEnded = true;
        times.push({ at: number, column });
      }
      column += field.length + 1;
    }
    lines.push({ line: index + 1, name, times });
  });
  return lines;
}

/**
 * Whether a text reads as a BetterCounter export: one of its first lines holding a time
 * (the rest is checked as it is read, so a wrong field later is named, not taken for another
 * format).
 */
export function looksLikeBetterCounter(text: string): boolean {
  return text.split('\n', DETECTION_LINES).some((line) =>
    line
      .replace(/\r$/, '')
      .split(',')
      .slice(1)
      .some((field) => /^\d+$/.test(field) && Number(field) >= FIRST_TIME),
  );
}

/** Lines looked at to recognise the format (counters without entries may come first). */
const DETECTION_LINES = 100;

export async function readBetterCounter(text: string): Promise<ImportData> {
  const lines = betterCounterLines(text);
  refuseRows(lines.reduce((rows, line) => rows + 1 + line.times.length, 0));
  const counters: ImportedCounter[] = [];
  const entries: (ImportedEntry & { order: number })[] = [];
  const repeats = new Occurrences();
  for (const { line, name, times } of lines) {
    const checked = counterFieldsOf({ name, value: times.length });
    if (!checked.ok) throw invalidAt({ line, column: 1 }, `the counter's name ${checked.message}`);
    const sorted = [...times].sort((a, b) => a.at - b.at);
    counters.push({
      sourceId: name,
      fields: checked.fields,
      createdAt: sorted[0]?.at ?? null,
      allTime: null,
    });
    for (const [index, { at }] of sorted.entries()) {
      if (entries.length % ROWS_PER_TURN === 0) await nextTurn();
      entries.push({
        order: entries.length,
        fingerprint: fingerprintOf('bettercounter', name, at, repeats.next(`${name}\n${at}`)),
        hash: null,
        at,
        actor: BETTERCOUNTER_ACTOR,
        link: null,
        kind: 'counter.adjusted',
        counterSourceId: name,
        counterName: checked.fields.name,
        value: index + 1,
        delta: 1,
        increments: 1,
        decrements: 0,
        detail: null,
        undoOf: null,
      });
    }
  }
  // The log reads in time order across counters (the file lists them counter by counter).
  entries.sort((a, b) => a.at - b.at || a.order - b.order);
  return {
    format: 'bettercounter',
    counters,
    entries: entries.map(({ order: _order, ...entry }) => entry),
    warnings: [],
  };
}
