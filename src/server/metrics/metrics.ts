/**
 * One app's metrics for operators (GET /metrics, Prometheus text format), in a registry of its
 * own: several apps in one process (the tests) never share or re-register a metric. Exists only
 * when METRICS_TOKEN is set; without it nothing is created and nothing is measured.
 *
 * The exposition is this app's metrics (commits, live sockets, bus lag) plus the process's
 * (process.ts). Every label comes from a fixed set, so its size is bounded whatever the load or
 * the data: docs/api.md, Metrics.
 */
import { Gauge, Histogram, Registry } from 'prom-client';
import type { BackendObservers } from '../backend.js';
import type { Store } from '../store/types.js';
import { CommitMetrics } from './commits.js';
import { processMetrics } from './process.js';

/**
 * Commit on one instance to delivery on another, seconds: LISTEN/NOTIFY takes milliseconds; the
 * upper buckets show a stalled listener or clocks out of step.
 */
const BUS_LAG_SECONDS_BUCKETS = [
  0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
];

export class TallyMetrics implements BackendObservers {
  readonly commits: CommitMetrics;
  private readonly own = new Registry();
  /** This app's metrics and the process's, as one exposition. */
  private readonly exposed: Registry;
  private readonly busLag: Histogram;
  private countSockets: () => number = () => 0;

  constructor(storeKind: Store['kind']) {
    const registers = [this.own];
    this.commits = new CommitMetrics(this.own, storeKind);
    this.busLag = new Histogram({
      name: 'tally_bus_lag_seconds',
      help: "Time from another instance's commit to its announcement arriving here, seconds (PostgreSQL only).",
      buckets: BUS_LAG_SECONDS_BUCKETS,
      registers,
    });
    const sockets = () => this.countSockets();
    new Gauge({
      name: 'tally_live_sockets',
      help: 'Open live WebSockets on this instance, signed in or not.',
      registers,
      collect() {
        this.set(sockets());
      },
    });
    this.exposed = Registry.merge([processMetrics(), this.own]);
  }

  /** Where the live-socket gauge reads its value at each scrape (the hub, built after this). */
  watchSockets(count: () => number): void {
    this.countSockets = count;
  }

  announcementLag(lagMs: number): void {
    this.busLag.observe(lagMs / 1_000);
  }

  /** `text/plain; version=0.0.4; charset=utf-8` */
  get contentType(): string {
    return this.exposed.contentType;
  }

  exposition(): Promise<string> {
    return this.exposed.metrics();
  }
}
