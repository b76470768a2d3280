/**
 * Latency histogram with 1 µs resolution below 1 ms, then log-spaced buckets (≈1% wide) up to
 * 60 s: constant memory however many samples a run records.
 */
const LINEAR_US = 1_000;
const LOG_BASE = 1.01;
const MAX_US = 60_000_000;
const LOG_BUCKETS = Math.ceil(Math.log(MAX_US / LINEAR_US) / Math.log(LOG_BASE)) + 1;

export class Histogram {
  private readonly counts = new Float64Array(LINEAR_US + LOG_BUCKETS);
  count = 0;
  max = 0;

  recordMicros(micros: number): void {
    const us = Math.max(0, micros);
    this.count += 1;
    if (us > this.max) this.max = us;
    const bucket = bucketOf(us);
    this.counts[bucket] = (this.counts[bucket] ?? 0) + 1;
  }

  /** The value (µs) at or below which the given share of samples falls. */
  percentile(p: number): number {
    if (this.count === 0) return Number.NaN;
    const target = Math.ceil(this.count * p);
    let seen = 0;
    for (let i = 0; i < this.counts.length; i++) {
      seen += this.counts[i] ?? 0;
      if (seen >= target) return Math.min(upperOf(i), this.max);
    }
    return this.max;
  }

  merge(other: Histogram): void {
    for (let i = 0; i < this.counts.length; i++) {
      this.counts[i] = (this.counts[i] ?? 0) + (other.counts[i] ?? 0);
    }
    this.count += other.count;
    this.max = Math.max(this.max, other.max);
  }
}

function bucketOf(us: number): number {
  if (us < LINEAR_US) return Math.floor(us);
  const index = Math.floor(Math.log(Math.min(us, MAX_US) / LINEAR_US) / Math.log(LOG_BASE));
  return LINEAR_US + index;
}

function upperOf(bucket: number): number {
  if (bucket < LINEAR_US) return bucket + 1;
  return LINEAR_US * LOG_BASE ** (bucket - LINEAR_US + 1);
}
