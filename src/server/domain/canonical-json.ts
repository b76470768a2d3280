/**
 * One text per value, whatever the order its object keys were written in: what an operation id's
 * fingerprint (operation-ids.ts) and an activity entry's hash (log-chain.ts) are made from.
 * scripts/verify-export.mjs writes the same text (test/integration/activity-chain.test.ts checks a
 * real export with it).
 */

/** JSON with object keys sorted and undefined members left out: one text per value. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const members = Object.entries(value as Record<string, unknown>)
      .filter(([, member]) => member !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, member]) => `${JSON.stringify(key)}:${canonicalJson(member)}`);
    return `{${members.join(',')}}`;
  }
  // JSON.stringify answers undefined for undefined (typed as string).
  const text = JSON.stringify(value) as string | undefined;
  return text ?? 'null';
}
