/**
 * Where things are in a JSON file, for refusals that name a line: a syntax error's offset (from
 * JSON.parse's message), and where each element of the top-level object's arrays starts (one
 * pass over the text, strings skipped), so a wrong entry is named by the line it starts on.
 */
import type { Places } from './file-text.js';
import { invalidAt } from './file-text.js';
import type { DomainError } from '../errors.js';

/** JSON.parse's error as a refusal at its line and column. */
export function jsonSyntaxError(error: unknown, places: Places): DomainError {
  const message = error instanceof Error ? error.message : String(error);
  const offset = /at position (\d+)/.exec(message)?.[1];
  const problem = message.replace(/\s*in JSON at position \d+.*$/s, '').trim();
  return invalidAt(
    offset === undefined ? { line: 1, column: 1 } : places.at(Number(offset)),
    `this is not valid JSON (${problem === '' ? 'unexpected end' : problem})`,
  );
}

/**
 * The offset where each element of the named arrays of the top-level object starts. Assumes
 * text JSON.parse accepted (so strings and brackets balance).
 */
export function jsonElementOffsets(text: string, keys: readonly string[]): Map<string, number[]> {
  const found = new Map<string, number[]>(keys.map((key) => [key, []]));
  let depth = 0;
  let lastKey: string | null = null;
  let current: number[] | undefined;
  let expectElement = false;
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index];
    if (char === '"') {
      const end = stringEnd(text, index);
      if (depth === 1) lastKey = JSON.parse(text.slice(index, end + 1)) as string;
      if (expectElement && current) current.push(index);
      expectElement = false;
      index = end;
      continue;
    }
    if (char === ' ' || char === '\n' || char === '\r' || char === '\t' || char === ':') continue;
    if (expectElement && current && char !== ']') current.push(index);
    expectElement = false;
    if (char === '{' || char === '[') {
      depth += 1;
      if (char === '[' && depth === 2 && lastKey !== null) {
        current = found.get(lastKey);
        expectElement = true;
      }
    } else if (char === '}' || char === ']') {
      if (depth === 2) current = undefined;
      depth -= 1;
    } else if (char === ',' && depth === 2) {
      expectElement = true;
    }
  }
  return found;
}

/** The index of the quote that closes the string opening at `start`. */
function stringEnd(text: string, start: number): number {
  for (let index = start + 1; index < text.length; index += 1) {
    const char = text[index];
    if (char === '\\') index += 1;
    else if (char === '"') return index;
  }
  return text.length - 1;
}
