/**
 * The product's rules (docs/product.md#rules) and its messages word for word
 * (docs/product.md#messages), as src/shared/rules.ts and src/shared/messages.ts implement them.
 */
import { describe, expect, it } from 'vitest';
import { MESSAGES } from '../../src/shared/messages.js';
import {
  isValidKeyFormat,
  makeGuestName,
  normaliseGroupName,
  normaliseUrl,
  parseGroupName,
  parseIntegerInput,
  sanitizeText,
} from '../../src/shared/rules.js';

describe('group names', () => {
  it('lowercases and keeps a-z, 0-9, underscore and hyphen', () => {
    expect(normaliseGroupName('Team_A-1')).toBe('team_a-1');
  });

  it('replaces every other character with a hyphen and collapses repeats', () => {
    expect(normaliseGroupName('My  Team!!  Rocks')).toBe('my-team-rocks');
    expect(normaliseGroupName('Café ☕ Crew')).toBe('caf-crew');
    expect(normaliseGroupName('a---b')).toBe('a-b');
  });

  it('drops surrounding whitespace before normalising', () => {
    expect(normaliseGroupName('  team  ')).toBe('team');
  });

  it('says "Please enter a group name." for an empty or blank name', () => {
    expect(parseGroupName('')).toEqual({ ok: false, message: MESSAGES.emptyGroupName });
    expect(parseGroupName('   ')).toEqual({ ok: false, message: MESSAGES.emptyGroupName });
    expect(parseGroupName(undefined)).toEqual({ ok: false, message: MESSAGES.emptyGroupName });
    expect(MESSAGES.emptyGroupName).toBe('Please enter a group name.');
  });

  it('refuses a name that normalises to nothing or just a hyphen', () => {
    const expected = {
      ok: false,
      message: 'Group name must contain at least one letter or number',
    };
    expect(parseGroupName('!!!')).toEqual(expected);
    expect(parseGroupName('-')).toEqual(expected);
    expect(parseGroupName('☕')).toEqual(expected);
  });

  it('accepts a name with one letter or number and returns its slug', () => {
    expect(parseGroupName('Game Night!')).toEqual({ ok: true, value: 'game-night-' });
    expect(parseGroupName('7')).toEqual({ ok: true, value: '7' });
  });

  it('refuses a slug longer than 100 characters', () => {
    expect(parseGroupName('a'.repeat(100))).toEqual({ ok: true, value: 'a'.repeat(100) });
    expect(parseGroupName('a'.repeat(101))).toEqual({
      ok: false,
      message: MESSAGES.groupNameTooLong,
    });
  });
});

describe('access key format', () => {
  it('accepts hexadecimal keys of 16 to 128 characters, either case', () => {
    expect(isValidKeyFormat('0123456789abcdef')).toBe(true);
    expect(isValidKeyFormat('ABCDEF0123456789')).toBe(true);
    expect(isValidKeyFormat('a'.repeat(64))).toBe(true);
    expect(isValidKeyFormat('f'.repeat(128))).toBe(true);
  });

  it('refuses keys that are too short, too long, not hex or not strings', () => {
    expect(isValidKeyFormat('a'.repeat(15))).toBe(false);
    expect(isValidKeyFormat('a'.repeat(129))).toBe(false);
    expect(isValidKeyFormat('g'.repeat(32))).toBe(false);
    expect(isValidKeyFormat(`${'a'.repeat(31)} `)).toBe(false);
    expect(isValidKeyFormat('')).toBe(false);
    expect(isValidKeyFormat(1234567890123456)).toBe(false);
    expect(isValidKeyFormat(undefined)).toBe(false);
  });

  it('has the messages for bad keys on each screen', () => {
    expect(MESSAGES.landingInvalidKey).toBe('Access key not valid. Generate a new one.');
    expect(MESSAGES.invalidKeyFormat).toBe('Invalid access key format');
    expect(MESSAGES.wrongKey).toBe('Invalid access key for this group');
    expect(MESSAGES.missingNameOrKey).toBe('Missing group name or access key');
    expect(MESSAGES.groupExistsWrongKey).toBe(
      'This group already exists and the access key is incorrect. Please use the correct key or choose a different group name.',
    );
  });
});

describe('text sanitiser', () => {
  it('removes script blocks', () => {
    expect(sanitizeText('Coffee<script>alert(1)</script> count')).toBe('Coffee count');
    expect(sanitizeText('<SCRIPT type="text/javascript">x()</SCRIPT>ok')).toBe('ok');
  });

  it('removes the javascript: scheme in any case and spacing', () => {
    expect(sanitizeText('javascript:alert(1)')).toBe('alert(1)');
    expect(sanitizeText('JaVaScRiPt:alert(1)')).toBe('alert(1)');
    expect(sanitizeText('java script:alert(1)')).toBe('alert(1)');
  });

  it('removes inline event-handler attributes', () => {
    expect(sanitizeText('<img src=x onerror="alert(1)">')).toBe('<img src=x >');
    expect(sanitizeText("<b onclick='go()'>hi</b>")).toBe('<b >hi</b>');
    expect(sanitizeText('<a onmouseover=alert(1)>x</a>')).toBe('<a >x</a>');
  });

  it('does not let nested payloads reassemble after one pass', () => {
    const result = sanitizeText('<scr<script></script>ipt>alert(1)</script>');
    expect(result.toLowerCase()).not.toContain('<script');
    expect(sanitizeText('javajavascript:script:alert(1)')).toBe('alert(1)');
  });

  it('trims and truncates to 1000 characters', () => {
    expect(sanitizeText('  hello  ')).toBe('hello');
    expect(sanitizeText('x'.repeat(1500))).toHaveLength(1000);
  });

  it('counts characters, not UTF-16 units, and never cuts an emoji in half', () => {
    const result = sanitizeText('😀'.repeat(1200));
    expect(Array.from(result)).toHaveLength(1000);
    expect(result).toBe('😀'.repeat(1000));
  });

  it('keeps ordinary text, including words that merely contain "on"', () => {
    expect(sanitizeText('Ones done = 5')).toBe('Ones done = 5');
    expect(sanitizeText('Push-ups 💪 (daily)')).toBe('Push-ups 💪 (daily)');
  });
});

describe('inline numeric fields', () => {
  it('parses integers', () => {
    expect(parseIntegerInput('42', 0)).toBe(42);
    expect(parseIntegerInput(' -7 ', 0)).toBe(-7);
    expect(parseIntegerInput('12abc', 0)).toBe(12);
  });

  it('falls back to the current value, or 0, for a non-numeric entry', () => {
    expect(parseIntegerInput('abc', 9)).toBe(9);
    expect(parseIntegerInput('', 3)).toBe(3);
    expect(parseIntegerInput('abc')).toBe(0);
  });

  it('clamps to the minimum when one is given (steps have minimum 1)', () => {
    expect(parseIntegerInput('0', 5, 1)).toBe(1);
    expect(parseIntegerInput('-3', 5, 1)).toBe(1);
    expect(parseIntegerInput('4', 5, 1)).toBe(4);
    expect(parseIntegerInput('-3', 5)).toBe(-3);
  });

  it('falls back when a number is beyond exact integer range', () => {
    expect(parseIntegerInput('99999999999999999999', 2)).toBe(2);
  });
});

describe('image URLs', () => {
  it('clears on a blank value', () => {
    expect(normaliseUrl('')).toEqual({ ok: true, value: null });
    expect(normaliseUrl('   ')).toEqual({ ok: true, value: null });
    expect(normaliseUrl(null)).toEqual({ ok: true, value: null });
  });

  it('prepends https:// when the scheme is missing', () => {
    expect(normaliseUrl('example.com/cat.png')).toEqual({
      ok: true,
      value: 'https://example.com/cat.png',
    });
    expect(normaliseUrl('localhost:8080/a.png')).toEqual({
      ok: true,
      value: 'https://localhost:8080/a.png',
    });
  });

  it('keeps http and https URLs', () => {
    expect(normaliseUrl('http://127.0.0.1:9000/a.png')).toEqual({
      ok: true,
      value: 'http://127.0.0.1:9000/a.png',
    });
    expect(normaliseUrl('https://example.com/a b')).toEqual({
      ok: false,
      message: 'Please enter a valid URL',
    });
  });

  it('refuses javascript:, data: and other schemes with "Please enter a valid URL"', () => {
    for (const bad of [
      'javascript:alert(1)',
      'data:image/png;base64,AAAA',
      'ftp://example.com/x',
      'vbscript:x',
    ]) {
      expect(normaliseUrl(bad)).toEqual({ ok: false, message: MESSAGES.invalidUrl });
    }
    expect(MESSAGES.invalidUrl).toBe('Please enter a valid URL');
  });

  it('resolves a path on this site against the page address it is given', () => {
    expect(normaliseUrl('/icons/icon-192.png', 'https://tally.example')).toEqual({
      ok: true,
      value: 'https://tally.example/icons/icon-192.png',
    });
    expect(normaliseUrl(' /a.png?v=2 ', 'http://127.0.0.1:8080')).toEqual({
      ok: true,
      value: 'http://127.0.0.1:8080/a.png?v=2',
    });
    // A full address is not touched by the base.
    expect(normaliseUrl('https://cdn.example/a.png', 'https://tally.example')).toEqual({
      ok: true,
      value: 'https://cdn.example/a.png',
    });
  });

  it('refuses a path without a page address instead of reading its first part as a host', () => {
    expect(normaliseUrl('/icons/icon-192.png')).toEqual({
      ok: false,
      message: MESSAGES.invalidUrl,
    });
    // "//host/x" names a host: it keeps working.
    expect(normaliseUrl('//cdn.example/a.png')).toEqual({
      ok: true,
      value: 'https://cdn.example/a.png',
    });
  });

  it('refuses text that is not a URL', () => {
    expect(normaliseUrl('not a url')).toEqual({ ok: false, message: MESSAGES.invalidUrl });
    expect(normaliseUrl('https://')).toEqual({ ok: false, message: MESSAGES.invalidUrl });
  });

  it('has the messages for images that fail to load and the format hint', () => {
    expect(MESSAGES.counterImageFailed).toBe(
      'Failed to load image - URL may be invalid or image may not exist',
    );
    expect(MESSAGES.profileImageFailed).toBe(
      'Could not load image from this URL. Please check the link and try again.',
    );
    expect(MESSAGES.thumbnailHint).toBe('Supports JPG, PNG, GIF, WebP, SVG');
  });
});

describe('guest names', () => {
  it('are Guest plus a number from 1 to 9999', () => {
    expect(makeGuestName(() => 0)).toBe('Guest1');
    expect(makeGuestName(() => 0.99999999)).toBe('Guest9999');
    for (let i = 0; i < 200; i++) expect(makeGuestName()).toMatch(/^Guest([1-9]\d{0,3})$/);
  });
});

describe('error messages of the landing and group screens', () => {
  it('formats the landing errors and keeps the fallbacks word for word', () => {
    expect(MESSAGES.errorCheckingGroup('boom')).toBe('Error checking group: boom');
    expect(MESSAGES.errorValidatingAccess('boom')).toBe('Error validating group access: boom');
    expect(MESSAGES.failedToLoadCounters).toBe('Failed to load counters');
    expect(MESSAGES.failedToCreateCounter).toBe('Failed to create counter');
    expect(MESSAGES.failedToUpdateCounter).toBe('Failed to update counter');
    expect(MESSAGES.failedToDeleteCounter).toBe('Failed to delete counter');
    expect(MESSAGES.copyFailed).toBe('Failed to copy URL to clipboard. Please copy manually.');
    expect(MESSAGES.deleteConfirm).toBe('Are you sure you want to delete this counter?');
  });
});
