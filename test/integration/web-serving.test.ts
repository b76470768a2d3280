/** The server serves the built single-page app next to the API, without blurring the two. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiError } from '../../src/shared/api.js';
import { call, createGroup } from '../helpers/client.js';
import { startServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let webRoot: string;
const INDEX = '<!doctype html><title>Tally test shell</title>';
const SW = 'const BUILD = {"version":"0","precache":["/"]};';
const MANIFEST = '{"name":"Tally","start_url":"/"}';
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

beforeAll(async () => {
  webRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'tally-web-'));
  fs.mkdirSync(path.join(webRoot, 'assets'));
  fs.writeFileSync(path.join(webRoot, 'index.html'), INDEX);
  fs.writeFileSync(path.join(webRoot, 'assets', 'app-abc123.js'), 'console.log(1)');
  fs.writeFileSync(path.join(webRoot, 'theme.js'), '/* theme */');
  // What the build writes for the installable app (vite.config.ts, src/web/public).
  fs.writeFileSync(path.join(webRoot, 'sw.js'), SW);
  fs.writeFileSync(path.join(webRoot, 'manifest.webmanifest'), MANIFEST);
  fs.writeFileSync(
    path.join(webRoot, 'manifest.webmanifest.br'),
    zlib.brotliCompressSync(MANIFEST),
  );
  fs.mkdirSync(path.join(webRoot, 'icons'));
  fs.writeFileSync(path.join(webRoot, 'icons', 'icon-192.png'), PNG_SIGNATURE);
  // What scripts/precompress.mjs writes at build time.
  fs.writeFileSync(path.join(webRoot, 'index.html.br'), zlib.brotliCompressSync(INDEX));
  fs.writeFileSync(path.join(webRoot, 'index.html.gz'), zlib.gzipSync(INDEX));
  fs.writeFileSync(
    path.join(webRoot, 'assets', 'app-abc123.js.br'),
    zlib.brotliCompressSync('console.log(1)'),
  );
  server = await startServer({ webRoot });
});
afterAll(async () => {
  await server.close();
  fs.rmSync(webRoot, { recursive: true, force: true });
});

describe('serving the web app', () => {
  it('answers / and every group route with the app shell, never cached', async () => {
    for (const route of ['/', '/game-night', '/game-night?key=abc']) {
      const response = await fetch(server.url + route);
      expect(response.status, route).toBe(200);
      expect(await response.text()).toBe(INDEX);
      expect(response.headers.get('cache-control')).toBe('no-cache');
      expect(response.headers.get('content-security-policy')).toContain("script-src 'self'");
    }
  });

  it('serves content-hashed assets as immutable and other files as revalidated', async () => {
    const asset = await fetch(`${server.url}/assets/app-abc123.js`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toContain('immutable');
    const theme = await fetch(`${server.url}/theme.js`);
    expect(await theme.text()).toBe('/* theme */');
    expect(theme.headers.get('cache-control')).toBe('no-cache');
  });

  it('serves the service worker and the manifest revalidated, with their content types', async () => {
    const worker = await fetch(`${server.url}/sw.js`);
    expect(worker.status).toBe(200);
    expect(worker.headers.get('content-type')).toMatch(/^application\/javascript/);
    // A cached sw.js would keep browsers on an old build's worker.
    expect(worker.headers.get('cache-control')).toBe('no-cache');
    expect(await worker.text()).toBe(SW);
    const manifest = await fetch(`${server.url}/manifest.webmanifest`, {
      headers: { 'accept-encoding': 'br' },
    });
    expect(manifest.headers.get('content-type')).toBe('application/manifest+json');
    expect(manifest.headers.get('content-encoding')).toBe('br');
    expect(manifest.headers.get('cache-control')).toBe('no-cache');
    expect(await manifest.json()).toEqual(JSON.parse(MANIFEST));
    const icon = await fetch(`${server.url}/icons/icon-192.png`);
    expect(icon.headers.get('content-type')).toBe('image/png');
    const csp = worker.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("worker-src 'self'");
    expect(csp).toContain("manifest-src 'self'");
  });

  it('sends the precompressed file when the browser accepts it', async () => {
    const page = await fetch(`${server.url}/game-night`, { headers: { 'accept-encoding': 'br' } });
    expect(page.headers.get('content-encoding')).toBe('br');
    expect(await page.text()).toBe(INDEX);
    const gzip = await fetch(`${server.url}/`, { headers: { 'accept-encoding': 'gzip' } });
    expect(gzip.headers.get('content-encoding')).toBe('gzip');
    expect(await gzip.text()).toBe(INDEX);
    const asset = await fetch(`${server.url}/assets/app-abc123.js`, {
      headers: { 'accept-encoding': 'br, gzip' },
    });
    expect(asset.headers.get('content-encoding')).toBe('br');
    expect(await asset.text()).toBe('console.log(1)');
    const plain = await fetch(`${server.url}/`, { headers: { 'accept-encoding': 'identity' } });
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(await plain.text()).toBe(INDEX);
  });

  it('never serves files from outside the web root', async () => {
    for (const route of ['/..%2f..%2fetc%2fpasswd', '/assets/..%2f..%2f..%2fpackage.json']) {
      const response = await fetch(server.url + route);
      expect(await response.text(), route).toBe(INDEX);
    }
  });

  it('answers a malformed URL with a 400 in the API error shape', async () => {
    const response = await call<ApiError>(server.url, 'GET', '/%E0%A4%A');
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('validation_failed');
  });

  it('keeps the API error shape with the app being served', async () => {
    const unknown = await call<ApiError>(server.url, 'GET', '/api/nope');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ error: { code: 'not_found', message: 'Not found' } });
    const member = await createGroup(server.url);
    const denied = await call<ApiError>(server.url, 'GET', `${member.base}/counters`);
    expect(denied.status).toBe(401);
    expect(denied.body.error.code).toBe('missing_key');
    const invalid = await call<ApiError>(server.url, 'POST', `${member.base}/counters`, {
      key: member.key,
      rawBody: '{oops',
    });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error.code).toBe('validation_failed');
  });

  it('does not force https on a plain-http deployment', async () => {
    const response = await fetch(server.url + '/');
    expect(response.headers.get('content-security-policy')).not.toContain(
      'upgrade-insecure-requests',
    );
  });
});
