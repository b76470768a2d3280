/**
 * Requests and live sockets from a chosen loopback address (127.0.0.2, 127.0.0.3, …: on Linux the
 * whole 127/8 is the loopback interface), so one test plays several clients with distinct
 * addresses, as rate limits per client address see them.
 */
import http from 'node:http';
import WebSocket from 'ws';
import { PROTOCOL_VERSION, livePath } from '../../../src/shared/protocol.js';

export interface Reply<T = unknown> {
  status: number;
  body: T;
  headers: http.IncomingHttpHeaders;
}

export function callFrom<T = unknown>(
  localAddress: string,
  baseUrl: string,
  method: string,
  path: string,
  options: { key?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<Reply<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key !== undefined) headers.authorization = `Bearer ${options.key}`;
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  if (payload !== undefined) headers['content-type'] = 'application/json';
  return new Promise((resolve, reject) => {
    const request = http.request(
      baseUrl + path,
      { method, headers, localAddress, agent: false },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString();
          resolve({
            status: response.statusCode ?? 0,
            body: (text === '' ? undefined : JSON.parse(text)) as T,
            headers: response.headers,
          });
        });
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(payload);
  });
}

/**
 * Opens a live socket from `localAddress`, sends `auth` with `key` and resolves with how it
 * ended: `ready` when the snapshot came, otherwise the close code and reason.
 */
export function liveAuthFrom(
  localAddress: string,
  wsUrl: string,
  groupName: string,
  key: string,
  /** Extra headers of the upgrade request (e.g. X-Forwarded-For, as a proxy adds it). */
  headers: Record<string, string> = {},
): Promise<{ outcome: 'ready' } | { outcome: 'closed'; code: number; reason: string }> {
  const socket = new WebSocket(wsUrl + livePath(groupName), { localAddress, headers });
  return new Promise((resolve, reject) => {
    socket.on('open', () => {
      socket.send(JSON.stringify({ type: 'auth', protocol: PROTOCOL_VERSION, key }));
    });
    socket.on('message', (data: Buffer) => {
      const message = JSON.parse(data.toString()) as { type: string };
      if (message.type === 'ready') {
        socket.close();
        resolve({ outcome: 'ready' });
      }
    });
    socket.on('close', (code, reason) => {
      resolve({ outcome: 'closed', code, reason: reason.toString() });
    });
    socket.on('error', reject);
  });
}
