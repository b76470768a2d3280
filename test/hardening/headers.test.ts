/**
 * Security headers on every kind of API answer — success, each error path, rate-limited,
 * too large, unknown path, malformed URL — not only on the happy path the integration suite
 * checks: scripts only from self (no inline, no eval), images from http(s) (thumbnails are user
 * URLs), no referrer (the page URL carries the key), nosniff, no framing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createGroup, newKey } from '../helpers/client.js';
import { MESSAGES } from '../../src/shared/messages.js';
import { callFrom } from './support/from.js';
import { rawExchange } from './support/raw-http.js';
import { startHardenedServer, type HardenedServer } from './support/server.js';

let server: HardenedServer;
beforeAll(async () => {
  server = await startHardenedServer();
});
afterAll(async () => {
  await server.close();
});

function expectSecurityHeaders(headers: Headers | Record<string, unknown>, label: string) {
  const get = (name: string) =>
    headers instanceof Headers ? headers.get(name) : (headers[name] as string | undefined);
  const csp = get('content-security-policy') ?? '';
  const directives = new Map(
    csp.split(';').map((part) => {
      const [name = '', ...values] = part.trim().split(/\s+/);
      return [name, values] as const;
    }),
  );
  expect(directives.get('script-src'), label).toEqual(["'self'"]);
  expect(directives.get('img-src'), label).toEqual(expect.arrayContaining(['https:', 'http:']));
  expect(directives.get('frame-ancestors'), label).toEqual(["'none'"]);
  expect(directives.get('object-src'), label).toEqual(["'none'"]);
  // The service worker and the web app manifest come from this origin only.
  expect(directives.get('worker-src'), label).toEqual(["'self'"]);
  expect(directives.get('manifest-src'), label).toEqual(["'self'"]);
  expect(get('referrer-policy'), label).toBe('no-referrer');
  expect(get('x-content-type-options'), label).toBe('nosniff');
}

describe('security headers', () => {
  it('are on every kind of API answer, errors included', async () => {
    const member = await createGroup(server.url);
    const counter = await member.addCounter();
    const answers = {
      ok: await call(server.url, 'GET', `${member.base}/counters`, { key: member.key }),
      created: await call(server.url, 'POST', `${member.base}/counters`, { key: member.key }),
      noKey: await call(server.url, 'GET', `${member.base}/counters`),
      wrongKey: await call(server.url, 'GET', `${member.base}/counters`, { key: newKey() }),
      invalid: await call(server.url, 'PATCH', `${member.base}/counters/${counter.id}`, {
        key: member.key,
        body: { value: 'x' },
      }),
      notJson: await call(server.url, 'POST', `${member.base}/counters`, {
        key: member.key,
        headers: { 'content-type': 'text/plain' },
        rawBody: 'x',
      }),
      tooLarge: await call(server.url, 'POST', `${member.base}/counters`, {
        key: member.key,
        body: { name: 'x'.repeat(20_000) },
      }),
      unknownPath: await call(server.url, 'GET', '/api/nothing'),
      malformedUrl: await call(server.url, 'GET', '/api/groups/%E0%A4%A/counters'),
      health: await call(server.url, 'GET', '/api/health'),
    };
    for (const [label, answer] of Object.entries(answers)) {
      expect(answer.status, label).toBeGreaterThan(0);
      expectSecurityHeaders(answer.headers, label);
    }
    expect(answers.malformedUrl.status).toBe(400);
    for (let i = 0; i < 11; i++) {
      const guess = await callFrom('127.0.0.11', server.url, 'GET', `${member.base}/counters`, {
        key: newKey(),
      });
      if (guess.status === 429) {
        expectSecurityHeaders(guess.headers, 'rate limited');
        expect(guess.headers['retry-after']).toMatch(/^\d+$/);
        return;
      }
    }
    throw new Error('never rate-limited');
  });
});

describe('malformed HTTP', () => {
  const cases = {
    garbage: { bytes: 'this is not http\r\n\r\n', status: 400, code: 'validation_failed' },
    badRequestLine: {
      bytes: 'GET /api/health HTTP/9.9 extra\r\nHost: x\r\n\r\n',
      status: 400,
      code: 'validation_failed',
    },
    badHeader: {
      bytes: 'GET /api/health HTTP/1.1\r\nHost: x\r\nBad Header Line\r\n\r\n',
      status: 400,
      code: 'validation_failed',
    },
    binary: {
      bytes: Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03, 0x03]),
      status: 400,
      code: 'validation_failed',
    },
    noHost: { bytes: 'GET /api/health HTTP/1.1\r\n\r\n', status: 400, code: 'validation_failed' },
    unknownExpectation: {
      bytes: 'GET /api/health HTTP/1.1\r\nHost: x\r\nExpect: teapot\r\n\r\n',
      status: 417,
      code: 'validation_failed',
    },
    hugeHeaders: {
      bytes: `GET /api/health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(40_000)}\r\n\r\n`,
      status: 431,
      code: 'headers_too_large',
    },
  } as const;
  const messages: Record<string, string> = {
    validation_failed: MESSAGES.malformedRequest,
    headers_too_large: MESSAGES.headersTooLarge,
  };

  for (const [label, { bytes, status, code }] of Object.entries(cases)) {
    it(`answers ${label} in Tally's error shape with the security headers (${status})`, async () => {
      const answer = await rawExchange(server.url, bytes);
      expect(answer?.status, label).toBe(status);
      expect(answer?.body, label).toEqual({ error: { code, message: messages[code] } });
      expect(answer?.headers['content-type'], label).toMatch(/^application\/json/);
      expect(answer?.headers['cache-control'], label).toBe('no-store');
      expectSecurityHeaders(answer?.headers ?? {}, label);
      // The server is still fine afterwards.
      expect((await call(server.url, 'GET', '/api/health')).status).toBe(200);
    });
  }
});

describe('refused live upgrades', () => {
  const upgrade = (path: string, extra = '') =>
    `GET ${path} HTTP/1.1\r\nHost: tally\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n${extra}\r\n`;

  it('answers an unknown live path and a bad handshake in Tally’s error shape', async () => {
    const member = await createGroup(server.url);
    const answers = {
      unknownPath: await rawExchange(
        server.url,
        upgrade(
          '/api/nothing/live',
          'Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n',
        ),
      ),
      noKey: await rawExchange(
        server.url,
        upgrade(`/api/groups/${member.group.name}/live`, 'Sec-WebSocket-Version: 13\r\n'),
      ),
      badVersion: await rawExchange(
        server.url,
        upgrade(
          `/api/groups/${member.group.name}/live`,
          'Sec-WebSocket-Version: 99\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n',
        ),
      ),
    };
    expect(answers.unknownPath?.status).toBe(404);
    expect(answers.unknownPath?.body).toEqual({
      error: { code: 'not_found', message: MESSAGES.notFound },
    });
    for (const label of ['noKey', 'badVersion'] as const) {
      expect(answers[label]?.status, label).toBe(400);
      expect(answers[label]?.body, label).toEqual({
        error: { code: 'validation_failed', message: MESSAGES.malformedRequest },
      });
    }
    for (const [label, answer] of Object.entries(answers)) {
      expect(answer?.headers['content-type'], label).toMatch(/^application\/json/);
      expectSecurityHeaders(answer?.headers ?? {}, label);
    }
  });
});

describe('API caching', () => {
  it('marks every API answer no-store, successes and errors alike', async () => {
    const member = await createGroup(server.url);
    const counter = await member.addCounter();
    const answers = {
      group: await call(server.url, 'GET', member.base),
      counters: await call(server.url, 'GET', `${member.base}/counters`, { key: member.key }),
      created: await call(server.url, 'POST', `${member.base}/counters`, { key: member.key }),
      increment: await call(server.url, 'POST', `${member.base}/counters/${counter.id}/increment`, {
        key: member.key,
      }),
      join: await call(server.url, 'POST', `${member.base}/join`, { body: { key: member.key } }),
      noKey: await call(server.url, 'GET', `${member.base}/counters`),
      wrongKey: await call(server.url, 'GET', `${member.base}/counters`, { key: newKey() }),
      unknownPath: await call(server.url, 'GET', '/api/nothing'),
      malformedUrl: await call(server.url, 'GET', '/api/groups/%E0%A4%A/counters'),
      health: await call(server.url, 'GET', '/api/health'),
    };
    for (const [label, answer] of Object.entries(answers)) {
      expect(answer.headers.get('cache-control'), label).toBe('no-store');
    }
  });
});
