/**
 * The web app reads a group link's key only from the canonical `key` parameter
 * (src/web/lib/access-key.ts): a percent-encoded or differently cased name is not the key, so a
 * link whose key the server's logs could miss is never accepted.
 */
import { describe, expect, it } from 'vitest';
import { accessKeyOf } from '../../src/web/lib/access-key.js';

const KEY = 'a'.repeat(64);

describe('accessKeyOf', () => {
  it('reads the canonical key parameter, wherever it stands in the query', () => {
    expect(accessKeyOf(`?key=${KEY}`)).toBe(KEY);
    expect(accessKeyOf(`?x=1&key=${KEY}&y=2`)).toBe(KEY);
    expect(accessKeyOf(`key=${KEY}`)).toBe(KEY);
  });

  it('takes the first key when the parameter is repeated', () => {
    expect(accessKeyOf(`?key=${KEY}&key=bbbb`)).toBe(KEY);
  });

  it('ignores a percent-encoded, differently cased or prefixed name', () => {
    for (const search of [
      `?%6Bey=${KEY}`,
      `?k%65y=${KEY}`,
      `?%6b%65%79=${KEY}`,
      `?KEY=${KEY}`,
      `?Key=${KEY}`,
      `?amp;key=${KEY}`,
      `?x=1&amp;key=${KEY}`,
      `?mykey=${KEY}`,
      `?key%3D${KEY}`,
    ]) {
      expect(accessKeyOf(search), search).toBeNull();
    }
  });

  it('finds no key in an empty query', () => {
    expect(accessKeyOf('')).toBeNull();
    expect(accessKeyOf('?')).toBeNull();
    expect(accessKeyOf('?key')).toBeNull();
  });
});
