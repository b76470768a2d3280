/**
 * The operators' metrics on their own (metrics/): what a committed batch adds, per kind and
 * outcome, in one registry per app; and building many apps' metrics in one process (the tests
 * do) neither throws "already registered" nor starts the process's observers again.
 */
import { Registry, register as globalRegistry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { busyError } from '../../src/server/batcher.js';
import { DomainError } from '../../src/server/errors.js';
import { CommitMetrics, MUTATION_KINDS } from '../../src/server/metrics/commits.js';
import { TallyMetrics } from '../../src/server/metrics/metrics.js';
import { processMetrics } from '../../src/server/metrics/process.js';
import {
  StorageUnavailableError,
  StoreBusyError,
  type Operation,
  type OperationOutcome,
  type StoreMutation,
} from '../../src/server/store/types.js';
import { ErrorCodeSchema, type MutationResult } from '../../src/shared/api.js';
import { parseExposition, valueOf } from '../helpers/metrics.js';

const on = (mutation: StoreMutation): Operation => ({ groupId: 'group-id', mutation, opId: 'op' });
const tap = (direction: 'increment' | 'decrement', times: number) =>
  on({ kind: 'adjustCounter', counterId: 'c', direction, times });
const applied: OperationOutcome = {
  ok: true,
  result: {} as MutationResult,
  changes: [],
  replayed: false,
};
const replayed: OperationOutcome = { ...applied, replayed: true };

async function samplesOf(registry: Registry) {
  return parseExposition(await registry.metrics());
}

describe('commit metrics', () => {
  it('count a batch by kind and outcome, its taps by direction, its size and duration', async () => {
    const registry = new Registry();
    const metrics = new CommitMetrics(registry, 'sqlite');
    metrics.committed(
      [
        tap('increment', 3),
        tap('increment', 1),
        tap('decrement', 2),
        tap('increment', 5),
        on({ kind: 'createCounter', fields: {} }),
        on({ kind: 'deleteCounter', counterId: 'gone' }),
      ],
      [
        applied,
        applied,
        applied,
        replayed,
        applied,
        { ok: false, code: 'counter_not_found', message: 'Counter not found' },
      ],
      12,
    );
    metrics.committed([tap('increment', 1)], [applied], 3);

    const samples = await samplesOf(registry);
    const mutations = (kind: string, outcome: string) =>
      valueOf(samples, 'tally_mutations_total', { kind, outcome });
    expect(mutations('adjustCounter', 'applied')).toBe(4);
    expect(mutations('adjustCounter', 'replayed')).toBe(1);
    expect(mutations('createCounter', 'applied')).toBe(1);
    expect(mutations('deleteCounter', 'counter_not_found')).toBe(1);
    expect(mutations('deleteCounter', 'applied')).toBe(0);
    // A replayed tap was counted when it was applied: it is not a new tap.
    expect(valueOf(samples, 'tally_taps_total', { direction: 'increment' })).toBe(3 + 1 + 1);
    expect(valueOf(samples, 'tally_taps_total', { direction: 'decrement' })).toBe(2);
    expect(valueOf(samples, 'tally_commit_batch_size_count', { store: 'sqlite' })).toBe(2);
    expect(valueOf(samples, 'tally_commit_batch_size_sum', { store: 'sqlite' })).toBe(7);
    expect(valueOf(samples, 'tally_commit_batch_size_bucket', { le: '5' })).toBe(1);
    expect(valueOf(samples, 'tally_commit_duration_seconds_sum')).toBeCloseTo(0.015, 9);
    expect(valueOf(samples, 'tally_commit_duration_seconds_bucket', { le: '0.005' })).toBe(1);
  });

  it('count failed commits by store and code, and operations answered without being applied', async () => {
    const registry = new Registry();
    const metrics = new CommitMetrics(registry, 'postgres');
    metrics.commitFailed(new StoreBusyError());
    metrics.commitFailed(new StorageUnavailableError('schema gone'));
    metrics.commitFailed(new StorageUnavailableError('schema gone'));
    metrics.commitFailed(new Error('invalid byte sequence'));
    metrics.notApplied(tap('increment', 4), busyError());
    metrics.notApplied(on({ kind: 'updateGroup', patch: {} }), new Error('boom'));

    const samples = await samplesOf(registry);
    const storeErrors = (code: string) =>
      valueOf(samples, 'tally_store_errors_total', { store: 'postgres', code });
    expect(storeErrors('busy')).toBe(1);
    expect(storeErrors('storage_unavailable')).toBe(2);
    expect(storeErrors('internal_error')).toBe(1);
    expect(
      valueOf(samples, 'tally_mutations_total', { kind: 'adjustCounter', outcome: 'busy' }),
    ).toBe(1);
    expect(
      valueOf(samples, 'tally_mutations_total', {
        kind: 'updateGroup',
        outcome: 'internal_error',
      }),
    ).toBe(1);
    expect(valueOf(samples, 'tally_taps_total', { direction: 'increment' })).toBe(0);
  });

  it('start every applied-mutation, tap and store-error series at zero, so rate() has a first sample', async () => {
    const registry = new Registry();
    new CommitMetrics(registry, 'sqlite');
    const samples = await samplesOf(registry);
    for (const kind of MUTATION_KINDS) {
      expect(samples).toContainEqual({
        name: 'tally_mutations_total',
        labels: { kind, outcome: 'applied' },
        value: 0,
      });
    }
    expect(samples.filter((sample) => sample.name === 'tally_taps_total')).toHaveLength(2);
    expect(samples.filter((sample) => sample.name === 'tally_store_errors_total')).toHaveLength(3);
    expect(valueOf(samples, 'tally_commit_batch_size_count', { store: 'sqlite' })).toBe(0);
  });

  it('label only with fixed words: a DomainError code from the ErrorCode list, never a message', async () => {
    const registry = new Registry();
    const metrics = new CommitMetrics(registry, 'sqlite');
    metrics.notApplied(tap('increment', 1), new DomainError('busy', 'group secret-group is busy'));
    const text = await registry.metrics();
    expect(text).not.toContain('secret-group');
  });
});

describe("an app's metrics", () => {
  it('measure bus lag in seconds and read the socket count at each scrape', async () => {
    const metrics = new TallyMetrics('postgres');
    let open = 3;
    metrics.watchSockets(() => open);
    metrics.announcementLag(4);
    metrics.announcementLag(200);

    let samples = parseExposition(await metrics.exposition());
    expect(valueOf(samples, 'tally_bus_lag_seconds_count')).toBe(2);
    expect(valueOf(samples, 'tally_bus_lag_seconds_bucket', { le: '0.005' })).toBe(1);
    expect(valueOf(samples, 'tally_bus_lag_seconds_bucket', { le: '0.25' })).toBe(2);
    expect(valueOf(samples, 'tally_live_sockets')).toBe(3);
    open = 1;
    samples = parseExposition(await metrics.exposition());
    expect(valueOf(samples, 'tally_live_sockets')).toBe(1);
    expect(metrics.contentType).toBe('text/plain; version=0.0.4; charset=utf-8');
  });

  it('can be built many times in one process, each in its own registry, sharing the process metrics', async () => {
    const apps = Array.from({ length: 50 }, () => new TallyMetrics('sqlite'));
    apps[0]?.commits.committed([tap('increment', 2)], [applied], 1);

    const first = await apps[0]?.exposition();
    const last = await apps[49]?.exposition();
    for (const text of [first, last]) {
      // One GC histogram and one event-loop monitor per process, in every app's exposition.
      expect(text?.match(/^# TYPE nodejs_gc_duration_seconds histogram$/gm)).toHaveLength(1);
      expect(text?.match(/^# TYPE nodejs_eventloop_lag_seconds gauge$/gm)).toHaveLength(1);
    }
    expect(valueOf(parseExposition(first ?? ''), 'tally_taps_total')).toBe(2);
    expect(valueOf(parseExposition(last ?? ''), 'tally_taps_total')).toBe(0);
    expect(processMetrics()).toBe(processMetrics());
    // prom-client's global registry is never used: another library's metrics cannot collide.
    expect(globalRegistry.getMetricsAsArray()).toEqual([]);
  });

  it('stay within their documented size with every label combination there is (docs/api.md)', async () => {
    const metrics = new TallyMetrics('postgres');
    const kinds = MUTATION_KINDS.map((kind) => ({ kind }) as StoreMutation);
    for (const mutation of kinds) {
      metrics.commits.committed([on(mutation), on(mutation)], [applied, replayed], 1);
      for (const code of ErrorCodeSchema.options) {
        metrics.commits.notApplied(on(mutation), new DomainError(code, 'message'));
      }
    }
    for (const code of ErrorCodeSchema.options) {
      metrics.commits.commitFailed(new DomainError(code, 'message'));
    }
    metrics.commits.committed([tap('increment', 1), tap('decrement', 1)], [applied, applied], 1);
    metrics.announcementLag(3);

    const text = await metrics.exposition();
    const samples = parseExposition(text);
    expect(samples.length).toBeLessThanOrEqual(900);
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(64 * 1024);
  });
});
