/**
 * HTTP and WebSocket clients bound to one loopback source address (127.x.y.z): the server sees
 * each as a different client address, so one machine plays an attacker and a member at once.
 */
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import WebSocket from 'ws';

/** An HTTP call that has not answered in this time is counted as failed, ms. */
export const REQUEST_TIMEOUT_MS = 15_000;
/** The client accepts frames up to this size, bytes: far above any snapshot, so the server's own bounds are what is measured. */
const MAX_FRAME_BYTES = 512 * 2 ** 20;

export interface Answer {
  status: number;
  /** The body as text, or '' when it was discarded. */
  body: string;
  bytes: number;
}

export interface CallOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: unknown;
  /** Count the body's bytes but keep none of it (exports and snapshots of many MB). */
  discard?: boolean;
  timeoutMs?: number;
}

/** A client at one source address: keep-alive connections unless `fresh` (one per call). */
export class AddressClient {
  readonly agent: http.Agent;

  constructor(
    readonly origin: URL,
    readonly localAddress: string,
    fresh = false,
    maxSockets = 16,
  ) {
    this.agent = new http.Agent({ keepAlive: !fresh, localAddress, maxSockets });
  }

  call(path: string, options: CallOptions = {}): Promise<Answer> {
    const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
    const headers: Record<string, string> = { ...options.headers };
    if (payload !== undefined) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = String(Buffer.byteLength(payload));
    }
    return new Promise<Answer>((resolve, reject) => {
      const request = http.request(
        {
          host: this.origin.hostname,
          port: this.origin.port,
          path,
          method: options.method ?? (payload === undefined ? 'GET' : 'POST'),
          headers,
          agent: this.agent,
          localAddress: this.localAddress,
        },
        (response) => {
          const chunks: Buffer[] = [];
          let bytes = 0;
          response.on('data', (chunk: Buffer) => {
            bytes += chunk.length;
            if (options.discard !== true) chunks.push(chunk);
          });
          response.on('end', () => {
            resolve({
              status: response.statusCode ?? 0,
              body: Buffer.concat(chunks).toString('utf8'),
              bytes,
            });
          });
          response.on('error', reject);
        },
      );
      request.setTimeout(options.timeoutMs ?? REQUEST_TIMEOUT_MS, () => {
        request.destroy(new Error('request timed out'));
      });
      request.on('error', reject);
      request.end(payload);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

export const newKey = () => randomBytes(32).toString('hex');
export const newGroupName = (prefix: string) => `${prefix}-${randomBytes(6).toString('hex')}`;
export const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

/** A live socket from `localAddress`; `auth` is sent as soon as it opens. */
export function openLive(
  origin: URL,
  localAddress: string,
  group: string,
  auth: Record<string, unknown> | undefined,
): WebSocket {
  const socket = new WebSocket(`ws://${origin.host}/api/groups/${group}/live`, {
    localAddress,
    perMessageDeflate: false,
    maxPayload: MAX_FRAME_BYTES,
  });
  socket.on('open', () => {
    if (auth !== undefined) socket.send(JSON.stringify({ type: 'auth', protocol: 1, ...auth }));
  });
  return socket;
}

/**
 * Resolves when the socket's first frame arrives ('ready' or 'error' text), or with the close
 * code when it closes first, or 'timeout'.
 */
export function firstFrame(socket: WebSocket, timeoutMs: number): Promise<string> {
  return new Promise((resolve) => {
    const done = (outcome: string) => {
      clearTimeout(timer);
      socket.off('message', onMessage);
      socket.off('close', onClose);
      socket.off('error', onError);
      resolve(outcome);
    };
    const onMessage = (data: Buffer) => {
      const head = data.subarray(0, 40).toString('utf8');
      done(/"type":"(\w+)"/.exec(head)?.[1] ?? 'frame');
    };
    const onClose = (code: number) => {
      done(`close ${String(code)}`);
    };
    const onError = () => undefined;
    const timer = setTimeout(() => {
      done('timeout');
    }, timeoutMs);
    socket.on('message', onMessage);
    socket.on('close', onClose);
    socket.on('error', onError);
  });
}

/** Creates (or joins) a group from `client`'s address and returns its key. */
export async function createGroup(client: AddressClient, name: string): Promise<string> {
  const key = newKey();
  const answer = await client.call(`/api/groups/${name}/join`, { body: { key } });
  if (answer.status !== 201 && answer.status !== 200) {
    throw new Error(`creating group ${name}: HTTP ${String(answer.status)} ${answer.body}`);
  }
  return key;
}

/** Creates a counter and returns its id. */
export async function createCounter(
  client: AddressClient,
  group: string,
  key: string,
  fields: Record<string, unknown> = {},
): Promise<string> {
  const answer = await client.call(`/api/groups/${group}/counters`, {
    headers: bearer(key),
    body: fields,
  });
  if (answer.status !== 201) {
    throw new Error(`creating a counter in ${group}: HTTP ${String(answer.status)}`);
  }
  return (JSON.parse(answer.body) as { id: string }).id;
}

export const sleep = (ms: number) =>
  new Promise<void>((resolve) => {
    setTimeout(resolve, ms);
  });

/** Counts outcomes by label (HTTP status, close code, error code). */
export class Tally {
  readonly counts = new Map<string, number>();
  add(label: string, n = 1): void {
    this.counts.set(label, (this.counts.get(label) ?? 0) + n);
  }
  get(label: string): number {
    return this.counts.get(label) ?? 0;
  }
  toJSON(): Record<string, number> {
    return Object.fromEntries(this.counts);
  }
}
