/**
 * The API's own description: `GET /api/openapi.json` (the OpenAPI 3.1 document, built once at
 * start from operations.ts) and `GET /api/docs`, a reference page (Swagger UI) that runs under
 * Tally's Content-Security-Policy as it is: its scripts and styles come from this server, and
 * its stylesheet's inline images are served as files (inline-images.ts). Nothing of it is part
 * of the web app's bundle.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import swagger, { type StaticDocumentSpec } from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { errorBody } from './errors.js';
import { MESSAGES } from '../../shared/messages.js';
import { moveInlineImages } from './inline-images.js';
import { buildOpenApiDocument } from './openapi.js';

export const OPENAPI_PATH = '/api/openapi.json';
export const DOCS_PATH = '/api/docs';
/** Where Swagger UI's plugin serves its files (its own prefix under DOCS_PATH). */
const UI_STATIC = `${DOCS_PATH}/static`;
/** Where the stylesheet's inline images are served, relative to the stylesheet. */
const IMAGES_DIR = 'images/';

/** package.json's version: this file is three folders below it, in src/ and in dist/ alike. */
function tallyVersion(): string {
  const file = new URL('../../../package.json', import.meta.url);
  const { version } = JSON.parse(fs.readFileSync(file, 'utf8')) as { version: string };
  return version;
}

export async function registerApiDocs(app: FastifyInstance): Promise<void> {
  const document = buildOpenApiDocument(tallyVersion());
  const documentJson = JSON.stringify(document);
  app.get(OPENAPI_PATH, (_request, reply) =>
    reply.type('application/json; charset=utf-8').send(documentJson),
  );

  // Swagger UI's stylesheet, with its data: images moved to files (CSP img-src has no data:).
  // These exact routes take precedence over the plugin's wildcard static route.
  const uiFiles = path.join(
    path.dirname(createRequire(import.meta.url).resolve('@fastify/swagger-ui')),
    'static',
  );
  const { css, images } = moveInlineImages(
    fs.readFileSync(path.join(uiFiles, 'swagger-ui.css'), 'utf8'),
    IMAGES_DIR,
  );
  app.get(`${UI_STATIC}/swagger-ui.css`, (_request, reply) =>
    reply.type('text/css; charset=utf-8').send(css),
  );
  app.get<{ Params: { file: string } }>(`${UI_STATIC}/${IMAGES_DIR}:file`, (request, reply) => {
    const image = images.get(request.params.file);
    if (image === undefined) return reply.code(404).send(errorBody('not_found', MESSAGES.notFound));
    return reply.type(image.type).send(image.body);
  });

  // Swagger UI needs @fastify/swagger's `swagger()` decorator; static mode hands it the document
  // as built, without looking at the routes.
  await app.register(swagger, {
    mode: 'static',
    specification: { document: document as unknown as StaticDocumentSpec['document'] },
  });
  await app.register(swaggerUi, {
    routePrefix: DOCS_PATH,
    theme: { title: 'Tally API' },
    uiConfig: {
      // No top bar: it only offers loading another document (and draws its logo from a data: URL).
      layout: 'BaseLayout',
      deepLinking: true,
      // A key typed into "Authorize" stays in the page's memory, never in localStorage.
      persistAuthorization: false,
    },
    validatorUrl: false,
  });
}
