/**
 * Generators of hostile input for the fuzz suite (fast-check): wrong types, huge and non-finite
 * numbers, huge strings, deep JSON, prototype-pollution keys, SQL fragments, script payloads,
 * unicode edge cases and invalid UTF-8 — as JSON values, as raw request text and as raw bytes.
 */
import fc from 'fast-check';
import { COUNTER_FIELDS, GROUP_FIELDS } from '../../../src/shared/fields.js';

const SQL = [
  "'; DROP TABLE counters; --",
  "' OR '1'='1",
  '1; DELETE FROM counter_groups',
  '" OR ""="',
  "Robert'); DROP TABLE operation_ids;--",
  'NULL',
  '%',
  '_',
  '\\',
  "1' UNION SELECT access_key_hash FROM counter_groups --",
];

const SCRIPT = [
  '<script>window.__xss=1</script>',
  '<scr<script></script>ipt>alert(1)</script>',
  '<img src=x onerror=alert(1)>',
  'javascript:alert(1)',
  'JaVaScRiPt:alert(1)',
  'java\tscript:alert(1)',
  'data:text/html,<script>alert(1)</script>',
  '<svg/onload=alert(1)>',
  '" onmouseover="alert(1)',
  '{{constructor.constructor("alert(1)")()}}',
];

const UNICODE = [
  '\u0000',
  '\ud800', // lone high surrogate
  '\udfff', // lone low surrogate
  '\ufeff',
  '\u202e', // right-to-left override
  '\u2028\u2029',
  'e\u0301\u0301\u0301',
  '👨‍👩‍👧‍👦',
  '𝔘𝔫𝔦𝔠𝔬𝔡𝔢',
  '\u200b\u200c\u200d',
  'İı',
  '\uffff\ufffe',
];

const URLS = [
  'javascript:alert(1)',
  ' javascript:alert(1)',
  'data:image/svg+xml,<svg onload=alert(1)>',
  'vbscript:msgbox(1)',
  'file:///etc/passwd',
  '//evil.example/x.png',
  'http://',
  'https://',
  'http://[::1',
  'https://a.example/' + 'x'.repeat(3_000),
  'localhost:8080/x.png',
  'HTTPS://EXAMPLE.COM/A.PNG',
  'https://example.com/a.png?key=abc',
];

const NUMBERS = [
  0,
  -0,
  1,
  -1,
  0.5,
  1e308,
  -1e308,
  2 ** 53,
  2 ** 53 + 2,
  -(2 ** 63),
  2 ** 64,
  1e21,
  Number.MAX_SAFE_INTEGER,
  -Number.MAX_SAFE_INTEGER,
  Number.MIN_VALUE,
  1_000_000,
  1_000_001,
  1_000_000_000,
  1_000_000_001,
];

const KEYS = [
  ...COUNTER_FIELDS,
  ...GROUP_FIELDS,
  'times',
  'opId',
  'key',
  'id',
  'version',
  'groupId',
  'seq',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
];

/** One hostile JSON-able leaf value. */
export const hostileLeaf: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(...SQL, ...SCRIPT, ...UNICODE, ...URLS),
  fc.constantFrom(...NUMBERS),
  fc.integer(),
  fc.double(), // NaN and ±Infinity become null in JSON.stringify; the raw texts below send them
  fc.boolean(),
  fc.constant(null),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.nat({ max: 20_000 }).map((n) => 'x'.repeat(n)),
  fc.stringMatching(/^[0-9a-fA-F]{10,140}$/),
);

/** A JSON body: mostly objects over the API's own field names, with hostile values. */
export const hostileJson: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 5, arbitrary: fc.dictionary(fc.constantFrom(...KEYS), hostileLeaf, { maxKeys: 4 }) },
  {
    weight: 2,
    arbitrary: fc.dictionary(
      fc.constantFrom(...KEYS),
      fc.oneof(hostileLeaf, fc.jsonValue({ maxDepth: 3 })),
      { maxKeys: 3 },
    ),
  },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 4 }) },
  { weight: 1, arbitrary: hostileLeaf },
);

/** JSON.stringify's type says string, but it gives undefined for undefined and functions. */
const stringify: (value: unknown) => string | undefined = JSON.stringify;

/** JSON text of a value; `undefined` (which JSON.stringify gives for it) as that word. */
export function jsonText(value: unknown): string {
  return stringify(value) ?? 'undefined';
}

const deep = (depth: number, open: string, close: string, leaf = '1') =>
  open.repeat(depth) + leaf + close.repeat(depth);

/** Raw request text that JSON.stringify cannot produce. */
export const hostileText: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    'NaN',
    'Infinity',
    '{"value": NaN}',
    '{"value": Infinity}',
    '{"value": -Infinity}',
    '{"times": 1e999}',
    '{"value": 1e999}',
    '{"value": 123456789012345678901234567890}',
    '{"incrementStep": 1.0000000000000002}',
    '{"__proto__": {"polluted": true}}',
    '{"constructor": {"prototype": {"polluted": true}}}',
    '{"name": "a", "name": "b"}',
    '{"name": "\\ud800"}',
    '{"name": "\\u0000"}',
    '{"name": "a"',
    '{"name": "a"}}',
    "{'name': 'a'}",
    '{name: "a"}',
    '[]',
    'null',
    'true',
    '0',
    '""',
    ' ',
    '\u0000',
    '{"times": "1"}',
    '{"times": [1]}',
    '{"times": {"valueOf": 5}}',
  ),
  fc.nat({ max: 12_000 }).map((n) => deep(n, '[', ']')),
  fc.nat({ max: 3_000 }).map((n) => deep(n, '{"a":', '}')),
  fc.nat({ max: 3_000 }).map((n) => `{"name":${deep(n, '[', ']', '"x"')}}`),
  fc.string({ maxLength: 60 }),
  hostileJson.map(jsonText),
);

/** A JSON object whose string is cut by invalid UTF-8 bytes (lone continuation, overlong, …). */
export const invalidUtf8: fc.Arbitrary<Uint8Array> = fc
  .tuple(
    fc.constantFrom('name', 'description', 'displayName', 'thumbnailUrl', 'opId'),
    fc.array(
      fc.constantFrom(
        [0xff],
        [0xfe],
        [0xc0, 0x80],
        [0xe0, 0x80, 0x80],
        [0xed, 0xa0, 0x80],
        [0x80],
        [0xf8, 0x88, 0x80, 0x80, 0x80],
        [0xf4, 0x90, 0x80, 0x80],
        [0x61],
      ),
      { minLength: 1, maxLength: 8 },
    ),
  )
  .map(([field, chunks]) =>
    Uint8Array.from([...Buffer.from(`{"${field}":"`), ...chunks.flat(), ...Buffer.from('"}')]),
  );

/** A body as sent on the wire. */
export type WireBody =
  | { kind: 'json'; value: unknown }
  | { kind: 'text'; text: string }
  | { kind: 'bytes'; bytes: Uint8Array };

export const wireBody: fc.Arbitrary<WireBody> = fc.oneof(
  { weight: 6, arbitrary: hostileJson.map((value) => ({ kind: 'json' as const, value })) },
  { weight: 3, arbitrary: hostileText.map((text) => ({ kind: 'text' as const, text })) },
  { weight: 1, arbitrary: invalidUtf8.map((bytes) => ({ kind: 'bytes' as const, bytes })) },
);

export const hostileContentType: fc.Arbitrary<string | undefined> = fc.oneof(
  { weight: 12, arbitrary: fc.constant('application/json') },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      undefined,
      'text/plain',
      'application/json; charset=utf-16',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/JSON',
    ),
  },
);

/** Counter ids as they may appear in a path: the real one, another group's, garbage. */
export const hostileId: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...SQL, ...SCRIPT, ...UNICODE, '..', '../..', '%00', ' ', '-1', '0', 'null'),
  fc.string({ maxLength: 80 }),
  fc.nat({ max: 400 }).map((n) => 'a'.repeat(n + 1)),
);

export const hostileOpId: fc.Arbitrary<string | undefined> = fc.oneof(
  { weight: 4, arbitrary: fc.constant(undefined) },
  {
    weight: 1,
    arbitrary: fc.oneof(
      fc.stringMatching(/^[A-Za-z0-9_-]{1,64}$/),
      // Numbered ids (ADR 24): a few sessions with small numbers, so that retries, gaps and
      // numbers a window behind occur; and any text of the numbered shape, valid or not.
      fc
        .tuple(fc.constantFrom('fuzzTab01', 'fuzzTab02'), fc.integer({ min: 1, max: 1_500 }))
        .map(([session, n]) => `${session}.${String(n)}`),
      fc.stringMatching(/^[A-Za-z0-9_-]{6,42}\.-?[0-9]{1,17}$/),
      fc.string({
        unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
        maxLength: 100,
      }),
    ),
  },
);
