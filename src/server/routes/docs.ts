/**
 * The API's own description: `GET /api/openapi.json` (the OpenAPI 3.1 document, built once at
 * start from operations.ts) and `GET /api/docs`, a reference page drawn by Swagger UI from that
 * document. The page runs under Tally's Content-Security-Policy as it is: a page without inline
 * script, its files from this server (`GET /api/docs/{file}`), and the stylesheet's inline images
 * served as files (inline-images.ts). Nothing of it is part of the web app's bundle.
 *
 * Swagger UI's files come from the @fastify/swagger-ui package, which ships them; its Fastify
 * plugin is not used (ADR 16): it would need @fastify/swagger as well, load both at every start,
 * and add six public routes and a second copy of the document.
 */
import fs from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { MESSAGES } from '../../shared/messages.js';
import { errorBody } from './errors.js';
import { moveInlineImages } from './inline-images.js';
import { buildOpenApiDocument } from './openapi.js';

export const OPENAPI_PATH = '/api/openapi.json';
export const DOCS_PATH = '/api/docs';

/** Where @fastify/swagger-ui keeps Swagger UI's built files. */
const SWAGGER_UI_FILES = path.join(
  path.dirname(createRequire(import.meta.url).resolve('@fastify/swagger-ui')),
  'static',
);

/**
 * How long a browser may keep the page's files without asking again, seconds. They change only
 * when Tally's dependencies do; the document itself is never cached (no-store, like all of /api/).
 */
const FILE_MAX_AGE_S = 3_600;

/** The page: Swagger UI's files, its starter and an empty element for it; no inline script. */
const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Tally API</title>
    <link rel="stylesheet" href="${DOCS_PATH}/swagger-ui.css">
    <link rel="icon" type="image/png" href="${DOCS_PATH}/favicon-32x32.png">
    <style>body { margin: 0; background: #fafafa; }</style>
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="${DOCS_PATH}/swagger-ui-bundle.js"></script>
    <script src="${DOCS_PATH}/start.js"></script>
  </body>
</html>
`;

/**
 * Starts Swagger UI on the document. Without the standalone layout's top bar, which only offers
 * loading another document. A key typed into "Authorize" stays in the page's memory, never in
 * localStorage (persistAuthorization off).
 */
const START = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: ${JSON.stringify(OPENAPI_PATH)},
    dom_id: '#swagger-ui',
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
    validatorUrl: null,
    persistAuthorization: false,
  });
});
`;

interface PageFile {
  type: string;
  body: Buffer | string;
  /** The body gzipped once, for text files (Swagger UI's bundle: 1.5 MB → about 0.45 MB). */
  gzipped?: Buffer;
}

const gzipAsync = promisify(gzip);

/** Gzips each text file once, off the event loop (zlib's thread pool). */
async function withGzip(files: Map<string, PageFile>): Promise<Map<string, PageFile>> {
  await Promise.all(
    [...files.values()]
      .filter((file) => file.type.startsWith('text/'))
      .map(async (file) => {
        file.gzipped = await gzipAsync(file.body);
      }),
  );
  return files;
}

/** package.json's version: this file is three folders below it, in src/ and in dist/ alike. */
function tallyVersion(): string {
  const file = new URL('../../../package.json', import.meta.url);
  const { version } = JSON.parse(readFileSync(file, 'utf8')) as { version: string };
  return version;
}

/**
 * The page's files by name. Read on the first request for one (about 1.9 MB), so a server
 * whose reference nobody opens neither reads nor holds them.
 */
async function loadPageFiles(): Promise<Map<string, PageFile>> {
  const [bundle, stylesheet, icon] = await Promise.all([
    fs.readFile(path.join(SWAGGER_UI_FILES, 'swagger-ui-bundle.js')),
    fs.readFile(path.join(SWAGGER_UI_FILES, 'swagger-ui.css'), 'utf8'),
    fs.readFile(path.join(SWAGGER_UI_FILES, 'favicon-32x32.png')),
  ]);
  // img-src has no data: the stylesheet's images become files beside it.
  const { css, images } = moveInlineImages(stylesheet, 'image-');
  const files = new Map<string, PageFile>([
    ['swagger-ui-bundle.js', { type: 'text/javascript; charset=utf-8', body: bundle }],
    ['swagger-ui.css', { type: 'text/css; charset=utf-8', body: css }],
    ['start.js', { type: 'text/javascript; charset=utf-8', body: START }],
    // The page's own icon, so the browser does not ask for /favicon.ico outside /api/.
    ['favicon-32x32.png', { type: 'image/png', body: icon }],
  ]);
  for (const [name, image] of images) files.set(`image-${name}`, image);
  return withGzip(files);
}

export function registerApiDocs(app: FastifyInstance): void {
  const documentJson = JSON.stringify(buildOpenApiDocument(tallyVersion()));
  app.get(OPENAPI_PATH, (_request, reply) =>
    reply.type('application/json; charset=utf-8').send(documentJson),
  );

  app.get(DOCS_PATH, (_request, reply) => reply.type('text/html; charset=utf-8').send(PAGE));

  let pageFiles: Promise<Map<string, PageFile>> | undefined;
  app.get<{ Params: { file: string } }>(`${DOCS_PATH}/:file`, async (request, reply) => {
    // A failed read (a broken install) is tried again on the next request.
    pageFiles ??= loadPageFiles().catch((error: unknown) => {
      pageFiles = undefined;
      throw error;
    });
    const file = (await pageFiles).get(request.params.file);
    if (file === undefined) {
      return reply.code(404).send(errorBody('not_found', MESSAGES.notFound));
    }
    void reply
      .type(file.type)
      .header('cache-control', `public, max-age=${FILE_MAX_AGE_S}`)
      .header('vary', 'accept-encoding');
    const acceptsGzip = /\bgzip\b/.test(request.headers['accept-encoding'] ?? '');
    if (file.gzipped && acceptsGzip) {
      return reply.header('content-encoding', 'gzip').send(file.gzipped);
    }
    return reply.send(file.body);
  });
}
