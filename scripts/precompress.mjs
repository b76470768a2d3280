/* global process */
// Writes .br and .gz next to every compressible file of the built web app, so the server sends
// compressed bytes without compressing per request (@fastify/static preCompressed).
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

const root = path.resolve(import.meta.dirname, '../dist/web');
const COMPRESSIBLE = /\.(js|css|html|svg|json|webmanifest|txt)$/;

let files = 0;
for (const entry of fs.readdirSync(root, { recursive: true, withFileTypes: true })) {
  if (!entry.isFile() || !COMPRESSIBLE.test(entry.name)) continue;
  const file = path.join(entry.parentPath, entry.name);
  const data = fs.readFileSync(file);
  fs.writeFileSync(`${file}.gz`, zlib.gzipSync(data, { level: 9 }));
  fs.writeFileSync(
    `${file}.br`,
    zlib.brotliCompressSync(data, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11 } }),
  );
  files += 1;
}
process.stdout.write(`precompressed ${files} files in dist/web\n`);
