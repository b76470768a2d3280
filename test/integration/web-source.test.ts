/**
 * The footer's source link comes from the server, from one place its operator controls: SOURCE_URL,
 * else package.json's `repository`, else the archive of its own source the build made. The server
 * names it in the app shell's <meta name="tally-source">; with none of them, the shell names none.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/server/app.js';
import {
  ConfigError,
  loadConfig,
  publicSourceUrl,
  repositoryUrl,
  type Config,
} from '../../src/server/config.js';

const INDEX = '<!doctype html><html><head><title>Tally</title></head><body></body></html>';
const opened: { app: FastifyInstance; dir: string }[] = [];

async function serve(options: { sourceUrl?: string; archive?: boolean }): Promise<FastifyInstance> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tally-source-'));
  const webRoot = path.join(dir, 'web');
  fs.mkdirSync(webRoot);
  fs.writeFileSync(path.join(webRoot, 'index.html'), INDEX);
  if (options.archive) fs.writeFileSync(path.join(webRoot, 'source.tar.gz'), zlib.gzipSync('x'));
  const config: Config = {
    port: 0,
    host: '127.0.0.1',
    database: { kind: 'sqlite', file: path.join(dir, 'tally.sqlite') },
    logLevel: 'silent',
    ...(options.sourceUrl === undefined ? {} : { sourceUrl: options.sourceUrl }),
  };
  const app = await buildApp({ config, webRoot });
  opened.push({ app, dir });
  return app;
}

afterEach(async () => {
  for (const { app, dir } of opened.splice(0)) {
    await app.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

const metaOf = (html: string) =>
  /<meta name="tally-source" content="([^"]*)" \/>/.exec(html)?.[1] ?? null;

describe('where the footer links for the source', () => {
  it('names SOURCE_URL in every page of the app, compressed as asked, never cached', async () => {
    const app = await serve({ sourceUrl: 'https://git.example.org/club/tally?x=1&y="2"' });
    for (const route of ['/', '/game-night?key=abc', '/team/display']) {
      const plain = await app.inject({ url: route });
      expect(plain.statusCode, route).toBe(200);
      expect(plain.headers['content-type']).toMatch(/^text\/html/);
      expect(plain.headers['cache-control']).toBe('no-cache');
      expect(metaOf(plain.body)).toBe('https://git.example.org/club/tally?x=1&amp;y=&quot;2&quot;');
    }
    const br = await app.inject({ url: '/', headers: { 'accept-encoding': 'gzip, br' } });
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.vary).toContain('accept-encoding');
    expect(metaOf(zlib.brotliDecompressSync(br.rawPayload).toString())).toContain(
      'git.example.org',
    );
  });

  it("falls back to the build's own source archive, and names none without one", async () => {
    // This checkout's package.json has no `repository`: the archive is next.
    expect(publicSourceUrl({}, path.resolve('package.json'))).toBeNull();
    const withArchive = await serve({ archive: true });
    expect(metaOf((await withArchive.inject({ url: '/' })).body)).toBe('/source.tar.gz');
    const archive = await withArchive.inject({ url: '/source.tar.gz' });
    expect(archive.statusCode).toBe(200);

    const without = await serve({});
    const shell = await without.inject({ url: '/' });
    expect(shell.body).toBe(INDEX);
    expect(metaOf(shell.body)).toBeNull();
  });

  it("reads package.json's repository in npm's forms, and refuses what no browser opens", () => {
    const cases: [unknown, string | null][] = [
      ['https://github.com/owner/repo', 'https://github.com/owner/repo'],
      [
        { type: 'git', url: 'git+https://github.com/owner/repo.git' },
        'https://github.com/owner/repo',
      ],
      ['git@gitlab.com:group/repo.git', 'https://gitlab.com/group/repo'],
      ['github:owner/repo', 'https://github.com/owner/repo'],
      ['owner/repo', 'https://github.com/owner/repo'],
      ['git://example.org/repo.git', 'https://example.org/repo'],
      ['file:../repo', null],
      [{ type: 'git' }, null],
      [undefined, null],
    ];
    for (const [repository, url] of cases) {
      expect(repositoryUrl({ repository }), JSON.stringify(repository)).toBe(url);
    }
    expect(repositoryUrl(null)).toBeNull();
  });

  it('SOURCE_URL must be an http(s) address, and wins over package.json', () => {
    expect(loadConfig({ SOURCE_URL: 'https://example.org/src' }).sourceUrl).toBe(
      'https://example.org/src',
    );
    expect(loadConfig({}).sourceUrl).toBeUndefined();
    expect(() => loadConfig({ SOURCE_URL: 'javascript:alert(1)' })).toThrow(ConfigError);
    expect(() => loadConfig({ SOURCE_URL: 'not a url' })).toThrow(/SOURCE_URL/);
    expect(
      publicSourceUrl({ sourceUrl: 'https://example.org/src' }, path.resolve('package.json')),
    ).toBe('https://example.org/src');
  });
});
