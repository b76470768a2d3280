/**
 * The courier in a worker thread of its own (courier-worker.ts), started when a group gets an
 * alert rule (warm) or at the first alert, whichever comes first (it takes a few hundred ms):
 * writing, signing and sending an alert run beside the event loop that commits taps, not on it
 * (ADR 29). Requests and answers are small messages (an alert's event is at most 4 KB).
 *
 * A worker that fails or exits fails the attempts it held (the sender retries them like any
 * failed attempt), and the next alert starts a new one. A worker that stops answering fails an
 * attempt ANSWER_GRACE_MS after the attempt's own timeout.
 */
import { Worker } from 'node:worker_threads';
import type { DeliveryResult } from './outbound.js';
import type { PushRequestInput, PushResult } from './push.js';
import type {
  Courier,
  CourierAnswer,
  CourierOptions,
  CourierRequest,
  CourierTask,
  WebhookParcel,
} from './courier.js';

/**
 * The worker's module: its TypeScript source when the server runs from the sources (tests,
 * `npm run dev`), the build's JavaScript otherwise.
 */
const FROM_SOURCES = import.meta.url.endsWith('.ts');
const WORKER_MODULE = new URL(
  FROM_SOURCES ? './courier-worker.ts' : './courier-worker.js',
  import.meta.url,
);
/**
 * From the sources, the worker loads its module through tsx (a development dependency), as the
 * server's were loaded; `tsx` is tsx's API, found from here whatever the working directory.
 */
const FROM_SOURCES_BOOTSTRAP = `
const { workerData } = require('node:worker_threads');
import(workerData.tsx).then((tsx) => tsx.tsImport(workerData.module, workerData.module));
`;

/** How long past an attempt's own timeout its answer is waited for, ms. */
const ANSWER_GRACE_MS = 10_000;
/** How long a closing worker may take to close its connections before it is stopped, ms. */
const CLOSE_GRACE_MS = 5_000;

interface Waiting {
  /** The worker it was handed to: if that one fails, so does the attempt. */
  worker: Worker;
  resolve: (result: DeliveryResult | PushResult) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

export class ThreadCourier implements Courier {
  private readonly options: CourierOptions;
  private worker: Worker | null = null;
  private readonly waiting = new Map<number, Waiting>();
  private next = 0;

  constructor(options: CourierOptions) {
    this.options = options;
  }

  async webhook(parcel: WebhookParcel): Promise<DeliveryResult> {
    // The worker answers a webhook task with a webhook's result.
    return (await this.ask({ kind: 'webhook', parcel })) as DeliveryResult;
  }

  async push(parcel: PushRequestInput): Promise<PushResult> {
    return await this.ask({ kind: 'push', parcel });
  }

  /** A worker is running (or starting). */
  get started(): boolean {
    return this.worker !== null;
  }

  /** Starts the worker now, if it is not running, rather than at the next alert. */
  warm(): void {
    this.worker ??= this.start();
  }

  async close(): Promise<void> {
    const worker = this.worker;
    if (worker === null) return;
    this.worker = null;
    const exited = new Promise<void>((resolve) => {
      worker.once('exit', () => {
        resolve();
      });
    });
    const stop = setTimeout(() => void worker.terminate(), CLOSE_GRACE_MS);
    worker.ref();
    worker.postMessage({ kind: 'close' } satisfies CourierRequest);
    await exited;
    clearTimeout(stop);
  }

  private ask(task: CourierTask): Promise<DeliveryResult | PushResult> {
    const worker = this.worker ?? this.start();
    const id = ++this.next;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.settle(id)?.reject(new Error('The alert courier did not answer'));
      }, this.options.timeoutMs + ANSWER_GRACE_MS);
      this.waiting.set(id, { worker, resolve, reject, timer });
      // While an attempt is under way the worker keeps the process alive; idle, it must not.
      if (this.waiting.size === 1) worker.ref();
      worker.postMessage({ ...task, id } satisfies CourierRequest);
    });
  }

  /** The attempt `id` taken off the waiting list, if it is still on it. */
  private settle(id: number): Waiting | undefined {
    const waiting = this.waiting.get(id);
    if (waiting === undefined) return undefined;
    clearTimeout(waiting.timer);
    this.waiting.delete(id);
    if (this.waiting.size === 0) this.worker?.unref();
    return waiting;
  }

  private start(): Worker {
    const workerData = { module: WORKER_MODULE.href, options: this.options };
    const worker = FROM_SOURCES
      ? new Worker(FROM_SOURCES_BOOTSTRAP, {
          eval: true,
          workerData: {
            ...workerData,
            tsx: import.meta.resolve('tsx/esm/api'),
          },
        })
      : new Worker(WORKER_MODULE, { workerData });
    worker.unref();
    worker.on('message', (answer: CourierAnswer) => {
      const waiting = this.settle(answer.id);
      if ('error' in answer) waiting?.reject(new Error(answer.error));
      else waiting?.resolve(answer.result);
    });
    worker.on('error', (error) => {
      this.failed(worker, error);
    });
    worker.on('exit', (code) => {
      this.failed(worker, new Error(`The alert courier stopped (exit code ${String(code)})`));
    });
    this.worker = worker;
    return worker;
  }

  /** A worker that failed or exited: its attempts fail, and the next alert starts another. */
  private failed(worker: Worker, error: Error): void {
    if (this.worker === worker) this.worker = null;
    for (const [id, waiting] of [...this.waiting]) {
      if (waiting.worker === worker) this.settle(id)?.reject(error);
    }
  }
}
