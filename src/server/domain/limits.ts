/**
 * What a counter's value may become: the exact range every value stays in, a counter's own
 * minimum and maximum, and its section's maximum (the capacity shared by the section's counters,
 * group.sectionLimits); and when a change reaches a counter's goal. Taps (taps.ts), edits,
 * creations and undos (counters.ts) and section maximums (group-settings.ts) all ask here.
 */
import type { Counter } from '../../shared/api.js';
import { MAX_VALUE, MIN_VALUE } from '../../shared/limits.js';
import { MESSAGES } from '../../shared/messages.js';
import { sectionMaxOf } from '../../shared/rules.js';
import type { SectionKey } from './commit-io.js';
import type { OperationOutcome } from './operations.js';
import { invalidChange, limitReached, valueOutOfRange } from './outcomes.js';
import type { BatchState, CounterChange, CounterState } from './state.js';

/** A section with a maximum, and the total of its counters other than the one changing. */
export interface SectionBase {
  section: string;
  max: number;
  others: bigint;
}

/**
 * Whether a change from `from` to `to` reaches the counter's goal. A goal at or above the start
 * value is counted up to (from below it to at or above it); one below is counted down to. Once
 * there, later changes on the same side reach nothing; moving away and back is a new crossing.
 */
export function reaches(counter: Counter, from: bigint, to: bigint): boolean {
  if (counter.goal === null) return false;
  const target = BigInt(counter.goal);
  return counter.goal >= counter.startValue
    ? from < target && to >= target
    : from > target && to <= target;
}

/** Why the value may not move from `from` to `to`: the exact range, the counter's limits. */
export function valueRefusal(
  counter: Counter,
  from: bigint,
  to: bigint,
): OperationOutcome | undefined {
  if (to < BigInt(MIN_VALUE) || to > BigInt(MAX_VALUE)) return valueOutOfRange();
  // A move back toward the limits is never refused (a value stored outside them moves in).
  if (counter.max !== null && to > BigInt(counter.max) && to > from) {
    return limitReached(MESSAGES.limitAbove(counter.max));
  }
  if (counter.min !== null && to < BigInt(counter.min) && to < from) {
    return limitReached(MESSAGES.limitBelow(counter.min));
  }
  return undefined;
}

/**
 * The section maximum a counter's changes are checked against, and the total of the section's
 * other counters; undefined when its section has no maximum.
 */
export function sectionBase(
  batch: BatchState,
  state: CounterState,
  section = state.counter.section,
): SectionBase | undefined {
  if (section === null) return undefined;
  const limits = batch.groups.get(state.groupId)?.record.sectionLimits;
  const max = limits ? sectionMaxOf(limits, section) : null;
  if (max === null) return undefined;
  const others = sectionTotal(batch, { groupId: state.groupId, section }, state.counter.id);
  return { section, max, others };
}

/**
 * A change of one counter's value from `from` to `to` that would take its section's total past
 * the maximum. `from` is 0 for a counter that was not in the section (new, restored or moved in).
 */
export function sectionRefusal(
  base: SectionBase | undefined,
  from: bigint,
  to: bigint,
): OperationOutcome | undefined {
  if (!base) return undefined;
  const before = base.others + from;
  const after = base.others + to;
  return after > BigInt(base.max) && after > before
    ? limitReached(MESSAGES.sectionFull(base.section, base.max))
    : undefined;
}

/**
 * The section's total, of the counters the batch holds (all of them: reads.ts sectionsToRead),
 * leaving out the counter `except`.
 */
export function sectionTotal(
  batch: BatchState,
  { groupId, section }: SectionKey,
  except?: string,
): bigint {
  let total = 0n;
  for (const state of batch.counters.values()) {
    if (!state.exists || state.groupId !== groupId || state.counter.id === except) continue;
    if (state.counter.section === section) total += BigInt(state.counter.value);
  }
  return total;
}

/**
 * Why a counter may not become `after` (an edit, an undo, a new or restored counter): limits
 * out of order or excluding the value, a start value outside them, a full section.
 */
export function counterRefusal(
  batch: BatchState,
  { groupId, state, before, after }: CounterChange,
): OperationOutcome | undefined {
  const { min, max } = after;
  if (min !== null && max !== null && min > max) return invalidChange(MESSAGES.minAboveMax);
  const from = BigInt(before?.value ?? after.value);
  const to = BigInt(after.value);
  if (before !== null && from !== to) {
    const refused = valueRefusal(after, from, to);
    if (refused) return refused;
  } else if ((min !== null && to < BigInt(min)) || (max !== null && to > BigInt(max))) {
    return invalidChange(MESSAGES.limitsExcludeValue);
  }
  if (
    after.reset !== null &&
    ((min !== null && after.startValue < min) || (max !== null && after.startValue > max))
  ) {
    return invalidChange(MESSAGES.startValueOutsideLimits);
  }
  if (after.section === null) return undefined;
  const limits = batch.groups.get(groupId)?.record.sectionLimits;
  const limit = limits ? sectionMaxOf(limits, after.section) : null;
  if (limit === null) return undefined;
  const others = sectionTotal(batch, { groupId, section: after.section }, after.id);
  const wasIn = state !== undefined && before?.section === after.section;
  return sectionRefusal({ section: after.section, max: limit, others }, wasIn ? from : 0n, to);
}
