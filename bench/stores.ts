/**
 * The store comparison: an offered-rate curve in groups of M members, the first T of each group
 * tapping and the others watching. The number of groups (so of tapper sockets) grows with the
 * offered rate, each tapper offering the same taps/s, so every step loads every counter alike
 * and stays under the live channel's per-socket budget. Only watchers measure latency: on a
 * target of several instances the tappers are on other instances, so every sample crosses them.
 */
import { openLoop, populate, sleep, type LoadResult, type Population } from './load.js';
import type { Target } from './targets.js';

export interface StoresShape {
  /** Members per group. */
  members: number;
  /** Members of each group who tap; the others watch. */
  tappers: number;
  /** Taps/s each tapper offers: under the live channel's 100 messages/s per socket. */
  tapsPerTapper: number;
  /** Offered rates, taps/s, ascending. */
  ramp: number[];
  /** How long each rate is offered, ms. */
  stepMs: number;
}

export interface StoreStep {
  offered: number;
  /** Groups tapping at this rate. */
  groups: number;
  result: LoadResult;
  /** Increments lost, duplicated and never answered in this step (not in earlier ones). */
  lost: number;
  duplicated: number;
  unanswered: number;
}

/** Taps at the first rate before the curve, unrecorded, ms. */
const WARM_UP_MS = 1_000;

/** Groups needed to offer `rate` taps/s with every tapper at its share. */
export function groupsFor(shape: StoresShape, rate: number): number {
  return Math.max(1, Math.ceil(rate / (shape.tappers * shape.tapsPerTapper)));
}

export function checkStoresShape(shape: StoresShape): void {
  if (shape.tappers < 1 || shape.tappers >= shape.members) {
    throw new Error('the store comparison needs at least one tapper and one watcher per group');
  }
  if (shape.ramp.length === 0) throw new Error('the store comparison needs offered rates');
}

/** The first `groups` groups of a population and their members (clients are created group by group). */
function firstGroups(population: Population, groups: number, members: number): Population {
  return {
    clients: population.clients.slice(0, groups * members),
    groups: population.groups.slice(0, groups),
    stats: population.stats,
  };
}

/** Runs the curve on a fresh start of `target`, and stops it (dropping its data) afterwards. */
export async function storeCurve(
  target: Target,
  shape: StoresShape,
  settleMs: number,
  log: (message: string) => void,
): Promise<StoreStep[]> {
  checkStoresShape(shape);
  const running = await target.start();
  try {
    const most = groupsFor(shape, Math.max(...shape.ramp));
    log(`${target.name}: ${most} groups of ${shape.members}`);
    const population = await populate(target, running, 'stores', most, shape.members, {
      tappers: shape.tappers,
      measuredAt: 'watchers',
    });
    try {
      const steps: StoreStep[] = [];
      const first = shape.ramp[0] ?? 0;
      // Not recorded: the first taps of a fresh server also compile its hot paths (JIT).
      await openLoop(
        firstGroups(population, groupsFor(shape, first), shape.members),
        running,
        target,
        {
          members: shape.members,
          tappers: shape.tappers,
          rate: first,
          durationMs: Math.min(WARM_UP_MS, shape.stepMs),
        },
      );
      // Counters keep their values from step to step: the checks are cumulative, a step's own
      // share is the growth since the step before (the first step's includes the warm-up's).
      let before = { lost: 0, duplicated: 0, unanswered: 0 };
      for (const rate of shape.ramp) {
        const groups = groupsFor(shape, rate);
        log(
          `${target.name}: store comparison, ${rate}/s offered by ${groups * shape.tappers} tappers`,
        );
        const result = await openLoop(
          firstGroups(population, groups, shape.members),
          running,
          target,
          { members: shape.members, tappers: shape.tappers, rate, durationMs: shape.stepMs },
        );
        const now = {
          lost: result.lost ?? 0,
          duplicated: result.duplicated ?? 0,
          unanswered: result.unanswered,
        };
        steps.push({
          offered: rate,
          groups,
          result,
          lost: Math.max(0, now.lost - before.lost),
          duplicated: Math.max(0, now.duplicated - before.duplicated),
          unanswered: Math.max(0, now.unanswered - before.unanswered),
        });
        before = now;
        await sleep(settleMs);
      }
      return steps;
    } finally {
      for (const client of population.clients) client.close();
    }
  } finally {
    await running.stop();
  }
}
