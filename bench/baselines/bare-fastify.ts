/**
 * Baseline for `npm run bench:http`: a bare Fastify app, as Fastify's own benchmarks run it
 * (logger off), answering `GET /hello` with `{ hello: 'world' }`, and `@fastify/static` with the
 * same options as Tally serving the built web app (dist/web, precompressed) at `/`. Tally's
 * `/api/health` and `/` are measured against these.
 */
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import Fastify from 'fastify';

const port = Number(process.env.PORT ?? 0);
const webRoot = path.resolve(import.meta.dirname, '../../dist/web');

const app = Fastify({ logger: false });
app.get('/hello', (_request, reply) => reply.send({ hello: 'world' }));
await app.register(fastifyStatic, {
  root: webRoot,
  wildcard: false,
  index: false,
  preCompressed: true,
});
app.get('/', (_request, reply) => reply.sendFile('index.html'));
await app.listen({ port, host: '127.0.0.1' });
