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
import { WorkerCalls, startModuleWorker } from '../module-worker.js';
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

/** How long past an attempt's own timeout its answer is waited for, ms. */
const ANSWER_GRACE_MS = 10_000;
/** How long a closing worker may take to close its connections before it is stopped, ms. */
const CLOSE_GRACE_MS = 5_000;

export class ThreadCourier implements Courier {
  private readonly options: CourierOptions;
  private readonly calls: WorkerCalls<CourierRequest & { id: number }, CourierAnswer>;
  /** Tasks asked for in this turn of the event loop, handed over together at its end. */
  private gathered: {
    request: CourierTask & { id: number };
    resolve: (answer: CourierAnswer) => void;
    reject: (error: unknown) => void;
  }[] = [];

  constructor(options: CourierOptions) {
    this.options = options;
    this.calls = new WorkerCalls(
      () => startModuleWorker(import.meta.url, './courier-worker', { options }),
      'The alert courier',
    );
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
    return this.calls.started;
  }

  /** Starts the worker now, if it is not running, rather than at the next alert. */
  warm(): void {
    this.calls.warm();
  }

  /** Lets the worker close its connections, for at most CLOSE_GRACE_MS, then stops it. */
  async close(): Promise<void> {
    await this.calls.close({
      farewell: { kind: 'close' } satisfies CourierRequest,
      graceMs: CLOSE_GRACE_MS,
    });
  }

  /**
   * Hands the task over with the others asked for in the same turn of the event loop, in one
   * message: a thread woken from sleep costs far more than the little work of one alert, so the
   * sender's claim of many alerts wakes the worker once.
   */
  private async ask(task: CourierTask): Promise<DeliveryResult | PushResult> {
    const answer = await new Promise<CourierAnswer>((resolve, reject) => {
      this.gathered.push({ request: { ...task, id: this.calls.id() }, resolve, reject });
      if (this.gathered.length === 1) setImmediate(this.handOver);
    });
    if ('error' in answer) throw new Error(answer.error);
    return answer.result;
  }

  /** Sends the tasks gathered in this turn in one message. */
  private readonly handOver = (): void => {
    const gathered = this.gathered;
    this.gathered = [];
    let answers: Promise<CourierAnswer>[];
    try {
      answers = this.calls.callAll(
        gathered.map((task) => task.request),
        { timeoutMs: this.options.timeoutMs + ANSWER_GRACE_MS },
      );
    } catch (error) {
      // No worker could be started: each attempt fails and is tried again later.
      for (const task of gathered) task.reject(error);
      return;
    }
    answers.forEach((answer, index) => {
      const task = gathered[index];
      if (task) answer.then(task.resolve, task.reject);
    });
  };
}
