/**
 * HTTP at the byte level, for what a well-behaved client never sends: garbage, huge headers,
 * requests that arrive slowly, sockets held open. Sockets can be bound to a chosen loopback
 * address (127.0.0.x) to play distinct clients.
 */
import net from 'node:net';
import WebSocket from 'ws';
import { livePath } from '../../../src/shared/protocol.js';

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  /** The body parsed as JSON when it is JSON, else the text. */
  body: unknown;
}

/** A TCP connection to the server at `baseUrl` (http://host:port), from `localAddress`. */
export function openSocket(baseUrl: string, localAddress = '127.0.0.1'): Promise<net.Socket> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: hostname, port: Number(port), localAddress }, () => {
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

/** Parses the first complete answer in `data`, or undefined when it is not complete yet. */
export function parseAnswer(data: string): RawAnswer | undefined {
  const end = data.indexOf('\r\n\r\n');
  if (end === -1) return undefined;
  const [statusLine = '', ...lines] = data.slice(0, end).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const length = Number(headers['content-length'] ?? 0);
  const bodyText = data.slice(end + 4, end + 4 + length);
  if (Buffer.byteLength(bodyText) < length) return undefined;
  let body: unknown = bodyText;
  try {
    body = JSON.parse(bodyText);
  } catch {
    // not JSON: kept as text
  }
  return { status: Number(statusLine.split(' ')[1]), headers, body };
}

/**
 * Reads the socket's first answer; also reports when the socket closed (the server hung up).
 * Rejects after `timeoutMs` with neither.
 */
export function readAnswer(
  socket: net.Socket,
  timeoutMs = 10_000,
): Promise<{ answer: RawAnswer | undefined; closed: Promise<void> }> {
  const closed = new Promise<void>((resolve) => {
    socket.once('close', () => {
      resolve();
    });
  });
  return new Promise((resolve, reject) => {
    let data = '';
    const timer = setTimeout(() => {
      reject(new Error(`no answer within ${timeoutMs} ms: ${JSON.stringify(data)}`));
    }, timeoutMs);
    const done = (answer: RawAnswer | undefined) => {
      clearTimeout(timer);
      socket.off('data', onData);
      resolve({ answer, closed });
    };
    const onData = (chunk: Buffer) => {
      data += chunk.toString('latin1');
      const answer = parseAnswer(data);
      if (answer) done(answer);
    };
    socket.on('data', onData);
    socket.on('error', () => undefined);
    void closed.then(() => {
      done(parseAnswer(data));
    });
  });
}

/** Sends `bytes` on a new connection and reads the answer. */
export async function rawExchange(
  baseUrl: string,
  bytes: string | Buffer,
  localAddress = '127.0.0.1',
): Promise<RawAnswer | undefined> {
  const socket = await openSocket(baseUrl, localAddress);
  const reading = readAnswer(socket);
  socket.write(bytes);
  const { answer } = await reading;
  socket.destroy();
  return answer;
}

/**
 * Opens a live socket from `localAddress`: 'open' if the upgrade succeeded (the socket is
 * returned open), else the HTTP status the upgrade was answered with.
 */
export function openLiveFrom(
  wsUrl: string,
  groupName: string,
  localAddress: string,
  headers: Record<string, string> = {},
): Promise<{ outcome: 'open'; socket: WebSocket } | { outcome: 'refused'; status: number }> {
  const socket = new WebSocket(wsUrl + livePath(groupName), { localAddress, headers });
  return new Promise((resolve, reject) => {
    socket.once('open', () => {
      resolve({ outcome: 'open', socket });
    });
    socket.once('unexpected-response', (_request, response) => {
      resolve({ outcome: 'refused', status: response.statusCode ?? 0 });
      socket.terminate();
    });
    socket.on('error', reject);
  });
}
