/**
 * Log redaction of request URLs (src/server/logger.ts): the key's value is replaced however the
 * query string spells the parameter's name — percent-encoded, any case, `+` or `&amp;` tricks,
 * repeated — and the rest of the URL stays readable.
 */
import { describe, expect, it } from 'vitest';
import { redactUrl } from '../../src/server/logger.js';

const KEY = '0123456789abcdef'.repeat(4);

describe('redactUrl', () => {
  it('redacts the key whatever the spelling of its parameter name', () => {
    for (const query of [
      `key=${KEY}`,
      `KEY=${KEY}`,
      `Key=${KEY}`,
      `%6Bey=${KEY}`,
      `%6bey=${KEY}`,
      `k%65y=${KEY}`,
      `%4B%45%59=${KEY}`,
      `%256Bey=${KEY}`,
      `+key=${KEY}`,
      `key+=${KEY}`,
      `x=1&amp;key=${KEY}`,
      `x=1;key=${KEY}`,
      `key=${KEY}&key=${KEY}`,
      `key=1&%6Bey=${KEY}`,
      `ke%y=1&k%65y=${KEY}`,
      `my_key=${KEY}`,
    ]) {
      const url = `/api/groups/g/counters?${query}&after=1`;
      const logged = redactUrl(url);
      expect(logged, query).not.toContain(KEY);
      expect(logged, query).toContain('[REDACTED]');
      expect(logged, query).toMatch(/^\/api\/groups\/g\/counters\?.*&after=1$/);
    }
  });

  it('leaves URLs without a key as they are', () => {
    expect(redactUrl('/api/groups/g')).toBe('/api/groups/g');
    expect(redactUrl('/api/groups/g/activity?limit=50&before=x')).toBe(
      '/api/groups/g/activity?limit=50&before=x',
    );
  });

  it('drops a fragment', () => {
    expect(redactUrl(`/g#key=${KEY}`)).not.toContain(KEY);
    expect(redactUrl(`/g?x=1#${KEY}`)).not.toContain(KEY);
  });
});
