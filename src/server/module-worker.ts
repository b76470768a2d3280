/**
 * Worker threads on the server's own modules, for work that must not hold the event loop: the
 * alert courier (alerts/courier-thread.ts) and the import reader (import/read-thread.ts). A
 * worker starts the same way wherever the server runs (from the build, the module's JavaScript;
 * from the sources, tests and `npm run dev`, its TypeScript through tsx, a development
 * dependency, as the server's own modules were loaded), and is called the same way (WorkerCalls).
 */
import { Worker } from 'node:worker_threads';

/**
 * From the sources, the worker loads its module through tsx's API (`workerData.tsx`, resolved
 * from here whatever the working directory).
 */
const FROM_SOURCES_BOOTSTRAP = `
const { workerData } = require('node:worker_threads');
import(workerData.tsx).then((tsx) => tsx.tsImport(workerData.module, workerData.module));
`;

/**
 * Starts a worker on the module `name` (a path without its extension, `./courier-worker`) beside
 * the caller, whose `import.meta.url` is `near`. The worker reads `workerData` as given; the
 * keys `module` and `tsx` are this helper's.
 */
export function startModuleWorker(
  near: string,
  name: string,
  workerData: Record<string, unknown> = {},
): Worker {
  const fromSources = near.endsWith('.ts');
  const module = new URL(`${name}${fromSources ? '.ts' : '.js'}`, near);
  if (!fromSources)
    return new Worker(module, { workerData: { ...workerData, module: module.href } });
  return new Worker(FROM_SOURCES_BOOTSTRAP, {
    eval: true,
    workerData: { ...workerData, module: module.href, tsx: import.meta.resolve('tsx/esm/api') },
  });
}

interface Waiting<Answer> {
  /** The worker it was sent to: if that one fails, so does the call. */
  worker: Worker;
  resolve: (answer: Answer) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout | undefined;
}

/**
 * Calls to a worker thread started at the first call (or `warm`): each request carries an id and
 * is answered by one message with that id. While a call waits, the worker keeps the process
 * alive; idle, it does not. A worker that fails or exits fails the calls it held, and the next
 * call starts another.
 */
export class WorkerCalls<Request extends { id: number }, Answer extends { id: number }> {
  private worker: Worker | null = null;
  private readonly waiting = new Map<number, Waiting<Answer>>();
  private next = 0;

  /** `launch` starts a worker; `name` says whose it is in errors ("The import reader"). */
  constructor(
    private readonly launch: () => Worker,
    private readonly name: string,
  ) {}

  /** A worker is running (or starting). */
  get started(): boolean {
    return this.worker !== null;
  }

  /** Starts the worker now, if it is not running, rather than at the next call. */
  warm(): Worker {
    this.worker ??= this.begin();
    return this.worker;
  }

  /** A new request id. */
  id(): number {
    this.next += 1;
    return this.next;
  }

  /** Sends `request`; its answer, or a failure after `timeoutMs` without one. */
  call(request: Request, options: { timeoutMs?: number } = {}): Promise<Answer> {
    const [answer] = this.callAll([request], options);
    if (answer === undefined) throw new Error('One request has one answer');
    return answer;
  }

  /**
   * Sends the requests in one message (an array: the worker handles each), so the worker wakes
   * once for them all; the answer of each, as `call` gives it, in their order.
   */
  callAll(
    requests: readonly Request[],
    { timeoutMs }: { timeoutMs?: number } = {},
  ): Promise<Answer>[] {
    if (requests.length === 0) return [];
    const worker = this.warm();
    const answers = requests.map(
      (request) =>
        new Promise<Answer>((resolve, reject) => {
          const timer =
            timeoutMs === undefined
              ? undefined
              : setTimeout(() => {
                  this.settle(request.id)?.reject(new Error(`${this.name} did not answer`));
                }, timeoutMs);
          this.waiting.set(request.id, { worker, resolve, reject, timer });
        }),
    );
    worker.ref();
    worker.postMessage(requests.length === 1 ? requests[0] : requests);
    return answers;
  }

  /** Sends a message that has no answer, if a worker runs. */
  tell(message: unknown): void {
    this.worker?.postMessage(message);
  }

  /**
   * Stops the worker: at once, or when given a `farewell` message, once it exits after it (at
   * most `graceMs` later). The calls it held fail.
   */
  async close({
    farewell,
    graceMs = 0,
  }: { farewell?: unknown; graceMs?: number } = {}): Promise<void> {
    const worker = this.worker;
    if (worker === null) return;
    this.worker = null;
    const exited = new Promise<void>((resolve) => {
      worker.once('exit', () => {
        resolve();
      });
    });
    let stop: NodeJS.Timeout | undefined;
    if (farewell === undefined) {
      void worker.terminate();
    } else {
      stop = setTimeout(() => void worker.terminate(), graceMs);
      worker.ref();
      worker.postMessage(farewell);
    }
    await exited;
    clearTimeout(stop);
  }

  /** The call `id` taken off the waiting list, if it is still on it. */
  private settle(id: number): Waiting<Answer> | undefined {
    const waiting = this.waiting.get(id);
    if (waiting === undefined) return undefined;
    clearTimeout(waiting.timer);
    this.waiting.delete(id);
    if (this.waiting.size === 0) this.worker?.unref();
    return waiting;
  }

  private begin(): Worker {
    const worker = this.launch();
    worker.unref();
    // A worker may answer several requests in one message (an array).
    worker.on('message', (message: Answer | Answer[]) => {
      for (const answer of Array.isArray(message) ? message : [message]) {
        this.settle(answer.id)?.resolve(answer);
      }
    });
    worker.on('error', (error) => {
      this.failed(worker, error);
    });
    worker.on('exit', (code) => {
      this.failed(worker, new Error(`${this.name} stopped (exit code ${String(code)})`));
    });
    return worker;
  }

  /** A worker that failed or exited: its calls fail, and the next call starts another. */
  private failed(worker: Worker, error: Error): void {
    if (this.worker === worker) this.worker = null;
    for (const [id, waiting] of [...this.waiting]) {
      if (waiting.worker === worker) this.settle(id)?.reject(error);
    }
  }
}
