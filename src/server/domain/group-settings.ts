/**
 * A group's own settings: its fields (name, picture, time zone, first day of the week), the
 * order of its counters, its sections' maximums, and who may open it (access key, view-only
 * link). A new time zone or first weekday moves every resetting counter's midnight
 * (periods.ts); a section's maximum may not be set below the section's total (limits.ts).
 */
import type { GroupPatch } from '../../shared/api.js';
import { changedTapLinks, withRevoked } from './tap-links.js';
import { SECTION_LIMITS_MAX } from '../../shared/limits.js';
import { sectionMaxOf, withSectionMax } from '../../shared/rules.js';
import { MESSAGES } from '../../shared/messages.js';
import { groupEntry } from './activity.js';
import { sectionTotal } from './limits.js';
import type { OperationOutcome, StoreMutation } from './operations.js';
import {
  accessChanged,
  definedEntries,
  failed,
  groupNotFound,
  groupUpdated,
  invalidChange,
  invalidOrder,
  limitReached,
  type Applied,
} from './outcomes.js';
import { moveMidnights } from './periods.js';
import type { BatchState, CounterState, GroupState, OperationContext } from './state.js';

/** A section's maximum: a number, or null for none. */
export interface SectionMax {
  section: string;
  max: number | null;
}

/** The group's counters in their order (all of them: only for groups read whole). */
export function orderOf(batch: BatchState, groupId: string): CounterState[] {
  return [...batch.counters.values()]
    .filter((state) => state.exists && state.groupId === groupId)
    .sort(
      (a, b) =>
        (a.position === null ? 1 : 0) - (b.position === null ? 1 : 0) ||
        (a.position ?? 0) - (b.position ?? 0) ||
        a.counter.createdAt.localeCompare(b.counter.createdAt) ||
        a.createdSeq - b.createdSeq,
    );
}

/** Puts the group's counters in this order: every counter once (a reorder or its undo). */
export function reorder(context: OperationContext, counterIds: readonly string[]): Applied {
  const { batch, operation, seq } = context;
  const { groupId } = operation;
  if (!batch.wholeGroups.has(groupId)) return failed(invalidOrder());
  const current = orderOf(batch, groupId);
  const ids = new Set(counterIds);
  if (ids.size !== counterIds.length || ids.size !== current.length) {
    return failed(invalidOrder());
  }
  if (current.some((state) => !ids.has(state.counter.id))) {
    return failed(invalidOrder());
  }
  const from = current.map((state) => state.counter.id);
  counterIds.forEach((id, position) => {
    const state = batch.counters.get(id) as CounterState;
    if (state.position === position) return;
    state.position = position;
    state.changed = true;
    state.onlyValue = false;
  });
  const to = [...counterIds];
  return {
    outcome: {
      ok: true,
      result: { kind: 'order', counterIds: to },
      changes: [{ type: 'counters.reordered', seq, counterIds: to }],
      replayed: false,
    },
    drafts: [groupEntry(context, 'counters.reordered', { from, to })],
  };
}

/** The order an undo of a reorder puts back: the old one, counters since made after it. */
export function previousOrder(
  batch: BatchState,
  groupId: string,
  from: readonly string[],
): string[] {
  const existing = orderOf(batch, groupId).map((state) => state.counter.id);
  const present = new Set(existing);
  const kept = from.filter((id) => present.has(id));
  const placed = new Set(kept);
  return [...kept, ...existing.filter((id) => !placed.has(id))];
}

/** Sets or clears a section's maximum; refused below its total or past the count of sections. */
function setSectionMax(
  batch: BatchState,
  group: GroupState,
  { section, max }: SectionMax,
): OperationOutcome | undefined {
  let limits = { ...group.record.sectionLimits };
  if (max === null) {
    limits = Object.fromEntries(Object.entries(limits).filter(([name]) => name !== section));
  } else {
    if (
      sectionMaxOf(limits, section) === null &&
      Object.keys(limits).length >= SECTION_LIMITS_MAX
    ) {
      return invalidChange(MESSAGES.tooManySections(SECTION_LIMITS_MAX));
    }
    const total = sectionTotal(batch, { groupId: group.record.id, section });
    if (total > BigInt(max)) {
      return limitReached(MESSAGES.sectionLimitBelowTotal(section, Number(total)));
    }
    limits = withSectionMax(limits, section, max);
  }
  group.record = { ...group.record, sectionLimits: limits };
  group.changed = true;
  return undefined;
}

/** A section's maximum set (a number) or cleared (null). */
export function updateSection(
  context: OperationContext,
  mutation: Extract<StoreMutation, { kind: 'updateSection' }>,
): Applied {
  const { batch, operation } = context;
  const group = batch.groups.get(operation.groupId);
  if (!group) return failed(groupNotFound());
  const before = group.record;
  const refused = setSectionMax(batch, group, mutation);
  if (refused) return failed(refused);
  return groupUpdated(context, before, group.record);
}

/**
 * Sets the group's fields (`patch`), and section maximums (`sections`: an undo of a group edit
 * puts both back): all or nothing. New midnights need every counter of the group read (reads.ts).
 */
export function patchGroup(
  context: OperationContext,
  { patch, sections = [] }: { patch: GroupPatch; sections?: readonly SectionMax[] },
): Applied {
  const { batch, operation } = context;
  const group = batch.groups.get(operation.groupId);
  if (!group) return failed(groupNotFound());
  const before = group.record;
  for (const sectionMax of sections) {
    const refused = setSectionMax(batch, group, sectionMax);
    if (refused) {
      group.record = before;
      return failed(refused);
    }
  }
  group.record = {
    ...group.record,
    ...(Object.fromEntries(definedEntries(patch)) as GroupPatch),
  };
  group.changed = true;
  if (group.record.timeZone !== before.timeZone || group.record.weekStart !== before.weekStart) {
    if (!batch.wholeGroups.has(group.record.id)) {
      group.record = before;
      return failed(invalidChange(MESSAGES.invalidTimeZone));
    }
    moveMidnights(batch, group, orderOf(batch, group.record.id));
  }
  return groupUpdated(context, before, group.record);
}

/**
 * A new access key, view-only link or tap link, or a tap link revoked: announced (every
 * instance re-checks its sockets' keys), never logged.
 */
export function changeAccess(
  context: OperationContext,
  mutation: Extract<
    StoreMutation,
    { kind: 'rotateKey' | 'setViewKey' | 'addTapLink' | 'revokeTapLink' }
  >,
): Applied {
  const { batch, operation, seq } = context;
  const group = batch.groups.get(operation.groupId);
  if (!group) return failed(groupNotFound());
  const { record } = group;
  const now = batch.options.now;
  switch (mutation.kind) {
    case 'rotateKey':
      group.record = {
        ...record,
        keyHash: mutation.keyHash,
        viewKeyHash: record.viewKeyHash === null ? null : mutation.viewKeyHash,
        tapLinks: mutation.revokeTapLinks
          ? withRevoked(record.tapLinks, () => true, now)
          : record.tapLinks,
      };
      break;
    case 'setViewKey':
      group.record = { ...record, viewKeyHash: mutation.viewKeyHash };
      break;
    case 'addTapLink':
    case 'revokeTapLink': {
      const changed = changedTapLinks(record, mutation, now);
      if ('refusal' in changed) return changed.refusal;
      group.record = { ...record, tapLinks: changed.links };
      break;
    }
  }
  group.changed = true;
  return accessChanged(group.record, seq);
}
