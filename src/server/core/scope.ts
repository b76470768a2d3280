/**
 * What a tap link's holder sees of a group: the counters in its scope, and of everything else
 * only what concerns them (docs/product.md#tap-links). Every answer to a tap link's key goes
 * through here; the commit holds its taps to the same scope (domain/tap-links.ts).
 */
import type { ActivityEntry, GroupHistory } from '../../shared/activity.js';
import type { GroupView, Tally } from '../../shared/api.js';
import { inScope, type TapGrant } from '../../shared/links.js';
import type { Change } from '../../shared/protocol.js';

/** The group's state as the link sees it: only its counters. Made once per view and link. */
const scoped = new WeakMap<GroupView, Map<string, GroupView>>();
export function scopedView(view: GroupView, link: TapGrant): GroupView {
  if ('all' in link.scope) return view;
  let byLink = scoped.get(view);
  if (!byLink) {
    byLink = new Map();
    scoped.set(view, byLink);
  }
  let seen = byLink.get(link.id);
  if (!seen) {
    seen = { ...view, counters: view.counters.filter((counter) => inScope(link.scope, counter)) };
    byLink.set(link.id, seen);
  }
  return seen;
}

/** The ids of the counters the link sees in this state of the group. */
export function visibleIds(view: GroupView, link: TapGrant): ReadonlySet<string> {
  return new Set(scopedView(view, link).counters.map((counter) => counter.id));
}

/** Log entries about the counters it sees (entries about the group as a whole are not). */
export function scopedEntries(
  entries: readonly ActivityEntry[],
  visible: ReadonlySet<string>,
): ActivityEntry[] {
  return entries.filter((entry) => entry.counterId !== null && visible.has(entry.counterId));
}

export function scopedHistory(history: GroupHistory, visible: ReadonlySet<string>): GroupHistory {
  return {
    series: Object.fromEntries(Object.entries(history.series).filter(([id]) => visible.has(id))),
  };
}

export function scopedTallies(tallies: readonly Tally[], visible: ReadonlySet<string>): Tally[] {
  return tallies.filter((tally) => visible.has(tally.counterId));
}

/**
 * A tap link's live feed: the group's changes as the link sees them. It remembers which
 * counters the link saw last, so a counter moved out of a section-scoped link's section reaches
 * it as deleted, and one moved in as created.
 */
export class ScopedFeed {
  private visible = new Set<string>();

  constructor(private readonly link: TapGrant) {}

  /** The snapshot the member is sent (only its counters); the feed starts from it. */
  start(view: GroupView): GroupView {
    const seen = scopedView(view, this.link);
    this.visible = new Set(seen.counters.map((counter) => counter.id));
    return seen;
  }

  /** The changes the link may see, in order; empty when none concerns it. */
  filter(changes: readonly Change[]): Change[] {
    const seen: Change[] = [];
    for (const change of changes) {
      switch (change.type) {
        case 'counter.created':
        case 'counter.updated': {
          const { counter, seq } = change;
          if (inScope(this.link.scope, counter)) {
            const known = this.visible.has(counter.id);
            this.visible.add(counter.id);
            seen.push(
              known || change.type === 'counter.created'
                ? change
                : { type: 'counter.created', seq, counter },
            );
          } else if (this.visible.delete(counter.id)) {
            seen.push({ type: 'counter.deleted', seq, counterId: counter.id });
          }
          break;
        }
        case 'counter.deleted':
          if (this.visible.delete(change.counterId)) seen.push(change);
          break;
        case 'counters.reordered':
          seen.push({
            ...change,
            counterIds: change.counterIds.filter((id) => this.visible.has(id)),
          });
          break;
        case 'group.updated':
        case 'group.accessChanged':
          seen.push(change);
          break;
      }
    }
    return seen;
  }
}
