/**
 * The courier's worker thread (courier-thread.ts starts it): a LocalCourier that answers each
 * request with its result, in any order (each carries its id). Requests come one or several to a
 * message; the answers ready in one turn of this thread's event loop go back in one message, so
 * the server's thread is woken once for them.
 */
import { parentPort, workerData } from 'node:worker_threads';
import {
  LocalCourier,
  type CourierAnswer,
  type CourierOptions,
  type CourierRequest,
} from './courier.js';

const port = parentPort;
if (port === null) throw new Error('The courier runs in a worker thread');
const courier = new LocalCourier((workerData as { options: CourierOptions }).options);

/** Answers not sent yet: sent together once the callbacks of this turn have run. */
let ready: CourierAnswer[] = [];

function sendReady(): void {
  const answers = ready;
  ready = [];
  port?.postMessage(answers.length === 1 ? answers[0] : answers);
}

function answer(message: CourierAnswer): void {
  ready.push(message);
  if (ready.length === 1) setImmediate(sendReady);
}

function handle(request: CourierRequest): void {
  if (request.kind === 'close') {
    // In a worker, exit ends this thread only: the loader a worker started from the sources
    // runs with would otherwise keep it alive.
    void courier.close().then(() => process.exit(0));
    return;
  }
  const sent =
    request.kind === 'webhook' ? courier.webhook(request.parcel) : courier.push(request.parcel);
  sent.then(
    (result) => {
      answer({ id: request.id, result });
    },
    (error: unknown) => {
      answer({ id: request.id, error: error instanceof Error ? error.message : String(error) });
    },
  );
}

port.on('message', (message: CourierRequest | CourierRequest[]) => {
  for (const request of Array.isArray(message) ? message : [message]) handle(request);
});
