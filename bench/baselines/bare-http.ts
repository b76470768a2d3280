/**
 * Baseline for `npm run bench:http`: a bare `node:http` server answering every request with a
 * small JSON body shaped like a counter (what `POST …/increment` answers), nothing else. It is
 * the floor of a Node HTTP answer on this machine: no routing, no validation, no store.
 */
import http from 'node:http';

const port = Number(process.env.PORT ?? 0);
let value = 0;

http
  .createServer((request, response) => {
    // Read (and drop) any body, as a real handler must before answering.
    request.resume();
    request.on('end', () => {
      value += 1;
      const body = JSON.stringify({ id: 'c1', name: 'Counter', value, step: 1 });
      response.writeHead(200, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(body),
      });
      response.end(body);
    });
  })
  .listen(port, '127.0.0.1');
