/**
 * The process's own metrics (prom-client's defaults: CPU, memory, heap spaces, event-loop delay,
 * garbage collection, handles, Node's version), registered once per process. They start a
 * PerformanceObserver for GC and an event-loop delay monitor that are never stopped, so one per
 * app would leak with every app built (the tests build hundreds in one process) and would count
 * every collection once per app: every app's registry shares this one instead. Started only by
 * the first app that has metrics on (METRICS_TOKEN), so a server without metrics runs neither.
 */
import { Registry, collectDefaultMetrics } from 'prom-client';

/** Event-loop delay sampling interval, ms (prom-client's default). */
const EVENT_LOOP_RESOLUTION_MS = 10;

let shared: Registry | undefined;

export function processMetrics(): Registry {
  if (shared === undefined) {
    shared = new Registry();
    collectDefaultMetrics({
      register: shared,
      eventLoopMonitoringPrecision: EVENT_LOOP_RESOLUTION_MS,
    });
  }
  return shared;
}
