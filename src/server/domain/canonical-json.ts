/**
 * One text per value, whatever the order its object keys were written in: what an operation id's
 * fingerprint (operation-ids.ts) and an activity entry's hash (log-chain.ts) are made from.
 * scripts/verify-export.mjs writes the same text (test/integration/activity-chain.test.ts checks a
 * real export with it).
 */

/** Keys as JSON strings, kept: the same few field names come back for every entry. */
const QUOTED = new Map<string, string>();
const QUOTED_MAX = 1_000;

function quoted(key: string): string {
  let text = QUOTED.get(key);
  if (text === undefined) {
    text = JSON.stringify(key);
    if (QUOTED.size < QUOTED_MAX) QUOTED.set(key, text);
  }
  return text;
}

/** JSON with object keys sorted and undefined members left out: one text per value. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    // JSON.stringify answers undefined for undefined (typed as string).
    const text = JSON.stringify(value) as string | undefined;
    return text ?? 'null';
  }
  if (Array.isArray(value)) {
    let text = '[';
    for (let index = 0; index < value.length; index += 1) {
      if (index > 0) text += ',';
      text += canonicalJson(value[index]);
    }
    return `${text}]`;
  }
  // Every activity entry's hash is made from this text: plain loops, no intermediate arrays of
  // pairs (it was most of the chain's cost per entry).
  const object = value as Record<string, unknown>;
  const keys = Object.keys(object).sort();
  let text = '{';
  for (const key of keys) {
    const member = object[key];
    if (member === undefined) continue;
    if (text.length > 1) text += ',';
    text += `${quoted(key)}:${canonicalJson(member)}`;
  }
  return `${text}}`;
}
