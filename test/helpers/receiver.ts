/**
 * A real HTTP receiver on a random loopback port, for what the server sends out (webhooks, push
 * messages): it records every request and every TCP connection, so a test can tell "refused
 * before connecting" from "connected and answered".
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  /** The body as sent. */
  body: Buffer;
  /** The body as UTF-8 text. */
  text: string;
}

export interface Receiver {
  port: number;
  /** http://127.0.0.1:port */
  origin: string;
  requests: Received[];
  /** TCP connections accepted, requests or not (a TLS hello to a plain server counts too). */
  connections: () => number;
  close: () => Promise<void>;
}

const open = new Set<Receiver>();

/**
 * Starts a receiver; `answer` replies to each request once it has arrived whole (by default
 * 204). Close it with `close()` or all at once with `closeReceivers()`.
 */
export async function startReceiver(
  answer: (response: http.ServerResponse, request: Received) => void = (response) => {
    response.writeHead(204).end();
  },
): Promise<Receiver> {
  const requests: Received[] = [];
  let connections = 0;
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      const received: Received = {
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        body,
        text: body.toString('utf8'),
      };
      requests.push(received);
      answer(response, received);
    });
  });
  server.on('connection', () => {
    connections += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const receiver: Receiver = {
    port,
    origin: `http://127.0.0.1:${String(port)}`,
    requests,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        open.delete(receiver);
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
  open.add(receiver);
  return receiver;
}

/** Closes every receiver still open (for afterEach). */
export async function closeReceivers(): Promise<void> {
  await Promise.all([...open].map((receiver) => receiver.close()));
}
