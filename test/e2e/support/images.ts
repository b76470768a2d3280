/** A local HTTP server for test images: two valid PNGs, a 404 and a non-image. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gradientPng } from './png.js';

const FILES: Record<string, { type: string; body: Buffer }> = {
  '/ok.png': { type: 'image/png', body: gradientPng(96, [99, 102, 241], [236, 72, 153]) },
  '/other.png': { type: 'image/png', body: gradientPng(96, [16, 185, 129], [59, 130, 246]) },
  '/third.png': { type: 'image/png', body: gradientPng(96, [245, 158, 11], [239, 68, 68]) },
  '/not-an-image.txt': { type: 'text/plain', body: Buffer.from('hello') },
};

export async function startImageServer(): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer((request, response) => {
    const file = FILES[(request.url ?? '/').split('?')[0] ?? '/'];
    if (!file) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    response
      .writeHead(200, { 'content-type': file.type, 'cache-control': 'no-store' })
      .end(file.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}
