/**
 * A counter's fields as any file gives them, checked by the same rules as a counter created
 * through the API (the shared CreateCounterBodySchema: text cleaned, numbers in range, limits in
 * order), with a new counter's defaults for what the file does not say.
 */
import type { z } from 'zod';
import { CreateCounterBodySchema, type Counter } from '../../shared/api.js';
import { COUNTER_FIELDS, type CounterField } from '../../shared/fields.js';
import { withCounterDefaults } from '../domain/counters.js';

export type CounterFields = Pick<Counter, CounterField>;

/** The fields, or the first problem's field and message. */
export function counterFieldsOf(
  raw: Partial<Record<CounterField, unknown>>,
): { ok: true; fields: CounterFields } | { ok: false; field: string; message: string } {
  const given = Object.fromEntries(
    COUNTER_FIELDS.filter((field) => raw[field] !== undefined).map((field) => [field, raw[field]]),
  );
  const parsed = CreateCounterBodySchema.safeParse(given);
  if (!parsed.success) return { ok: false, ...firstIssue(parsed.error) };
  return { ok: true, fields: withCounterDefaults(parsed.data) };
}

/** A zod error's first problem: where (a dotted path) and what. */
export function firstIssue(error: z.ZodError): { field: string; message: string } {
  const issue = error.issues[0];
  return {
    field: issue?.path.map(String).join('.') ?? '',
    message: issue?.message ?? 'is not valid',
  };
}
