/**
 * The courier's worker thread (courier-thread.ts starts it): a LocalCourier that answers each
 * request with its result, in any order (each carries its id).
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

function answer(message: CourierAnswer): void {
  port?.postMessage(message);
}

port.on('message', (request: CourierRequest) => {
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
});
