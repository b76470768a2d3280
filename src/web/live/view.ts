/**
 * What the user sees: the server's copy (./serverState.ts) with this tab's queued changes
 * (./lanes.ts) replayed on top, so taps show at once and never count twice or jump backwards.
 */
import type { Counter, Group } from '../../shared/api.js';
import type { Op } from './ops.js';
import { applyOrder } from './serverState.js';

/** A counter with its queued changes applied; null while a delete of it waits. */
export function counterWithPending(counter: Counter, ops: readonly Op[]): Counter | null {
  let view: Counter | null = counter;
  for (const op of ops) {
    if (view === null) break;
    if (op.kind === 'adjust') view = { ...view, value: view.value + op.delta };
    else if (op.kind === 'patch') view = { ...view, ...op.patch };
    else if (op.kind === 'delete') view = null;
  }
  return view;
}

/** The group with its queued changes applied (its own fields and its sections' maximums). */
export function groupWithPending(group: Group, ops: readonly Op[]): Group {
  let view = group;
  for (const op of ops) {
    if (op.kind === 'group') view = { ...view, ...op.patch };
    else if (op.kind === 'section') {
      const others = Object.entries(view.sectionLimits).filter(([name]) => name !== op.section);
      const sectionLimits = Object.fromEntries(
        op.max === null ? others : [...others, [op.section, op.max]],
      );
      view = { ...view, sectionLimits };
    }
  }
  return view;
}

/**
 * The counters' order with this tab's queued reorders applied: the latest one wins; counters it
 * does not list (created meanwhile) keep their place relative to each other, after it.
 */
export function orderWithPending(order: readonly string[], ops: readonly Op[]): readonly string[] {
  let view = order;
  for (const op of ops) if (op.kind === 'reorder') view = applyOrder(view, op.counterIds);
  return view;
}

/**
 * Each counter's view, computed again only when its server copy or its queue changed: a card
 * whose counter object stays the same is not rendered again (CounterCard is memoised).
 */
export class CounterViews {
  private readonly cache = new Map<
    string,
    { base: Counter; revision: number; view: Counter | null }
  >();

  /** @param revision changes whenever the counter's queued operations do */
  get(base: Counter, revision: number, ops: readonly Op[]): Counter | null {
    const cached = this.cache.get(base.id);
    if (cached && cached.base === base && cached.revision === revision) return cached.view;
    const view = counterWithPending(base, ops);
    this.cache.set(base.id, { base, revision, view });
    return view;
  }

  forget(id: string): void {
    this.cache.delete(id);
  }
}
