/**
 * The access key of a group link: `/{groupName}?key=…`. Only the canonical parameter counts, a name
 * written literally `key` in the query: URLSearchParams would also read `?%6Bey=…` or `?k%65y=…` as
 * `key`, spellings the server's log redaction (redactUrl in src/server/logger.ts) would then have
 * to guess. The first `key=` wins, as URLSearchParams.get has it.
 */
export function accessKeyOf(search: string): string | null {
  const query = search.startsWith('?') ? search.slice(1) : search;
  for (const part of query.split('&')) {
    if (part.startsWith('key=')) return new URLSearchParams(part).get('key');
  }
  return null;
}
