/**
 * Simple Counter's backup (the Android app by quicksc0p3r, org.quicksc0p3r.simplecounter): a
 * JSON file, `{"counters":[…],"labels":[…]}`, written by the app's json/GenerateJson.kt from its
 * database rows (db/CounterDb.kt Counter: id, name, value, defaultValue, labelId,
 * allowNegativeValues; db/LabelDb.kt Label: id, name, …). The app keeps no history: counters
 * come with their values and no log. Format read from the app's source
 * (github.com/quicksc0p3r/simplecounter); the app's export is JSON, not CSV.
 *
 * A counter's label becomes its section; `defaultValue`, what the app resets it to, its start
 * value; a counter that may not go below zero gets a minimum of 0.
 */
import { z } from 'zod';
import type { ImportData, ImportedCounter } from '../domain/import.js';
import { counterFieldsOf, firstIssue } from './counter-fields.js';
import { jsonElementOffsets } from './json-places.js';
import { invalidAt, refuseRows, type Places } from './file-text.js';

const SimpleCounterSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  value: z.number().int(),
  defaultValue: z.number().int().default(0),
  labelId: z.number().int().nullable().default(null),
  allowNegativeValues: z.boolean().default(false),
});

const BackupSchema = z.object({
  counters: z.array(z.unknown()),
  labels: z.array(z.object({ id: z.number().int(), name: z.string() }).loose()).default([]),
});

/** Whether a parsed JSON file looks like a Simple Counter backup (format detection). */
export function isSimpleCounterBackup(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || !('counters' in value)) return false;
  const { counters } = value;
  return (
    Array.isArray(counters) &&
    counters.every(
      (counter) =>
        typeof counter === 'object' && counter !== null && 'allowNegativeValues' in counter,
    )
  );
}

export function readSimpleCounter(text: string, value: unknown, places: Places): ImportData {
  const backup = BackupSchema.safeParse(value);
  if (!backup.success) {
    const { field, message } = firstIssue(backup.error);
    throw invalidAt({ line: 1, column: 1 }, `${field}: ${message}`);
  }
  refuseRows(backup.data.counters.length);
  const offsets = jsonElementOffsets(text, ['counters']).get('counters') ?? [];
  const labels = new Map(backup.data.labels.map((label) => [label.id, label.name]));
  const warnings: string[] = [
    'Simple Counter keeps no history: the counters come with their values and no activity log.',
  ];
  const counters: ImportedCounter[] = backup.data.counters.map((raw, index) => {
    const place = places.at(offsets[index] ?? 0);
    const parsed = SimpleCounterSchema.safeParse(raw);
    if (!parsed.success) {
      const { field, message } = firstIssue(parsed.error);
      throw invalidAt(place, `counters[${index}].${field}: ${message}`);
    }
    const counter = parsed.data;
    const belowZero = counter.value < 0 || counter.defaultValue < 0;
    if (!counter.allowNegativeValues && belowZero) {
      warnings.push(
        `Counter "${counter.name}" is below zero although it may not go there: it gets no minimum.`,
      );
    }
    const checked = counterFieldsOf({
      name: counter.name,
      value: counter.value,
      startValue: counter.defaultValue,
      min: counter.allowNegativeValues || belowZero ? null : 0,
      section: counter.labelId === null ? null : (labels.get(counter.labelId) ?? null),
    });
    if (!checked.ok) {
      throw invalidAt(place, `counters[${index}].${checked.field}: ${checked.message}`);
    }
    return { sourceId: String(counter.id), fields: checked.fields, createdAt: null, allTime: null };
  });
  return { format: 'simplecounter', counters, entries: [], warnings };
}
