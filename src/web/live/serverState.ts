/**
 * The server's view of one group as this tab knows it, and the rules that keep it from going
 * backwards: a pure reducer over what arrives (the counter list, the live channel's snapshot and
 * changes, the answers to this tab's own changes). No timers, no network, no pending changes:
 * ./groupStore.ts replays this tab's unconfirmed operations on top of it.
 *
 * Ordering rules (ADR 1): a counter's `version` is the group change number of its last change, so
 * of two copies the higher version wins. A deleted counter leaves a tombstone, the change number
 * that deleted it (Infinity until known, e.g. after this tab's own delete answer): anything about
 * it no newer than that is a late event and ignored; a newer one is the counter coming back (an
 * undo). Groups have no version: the snapshot's `seq` and each change's `seq` order them.
 *
 * Order: the server's order is the truth. The list and the snapshot come in it, and a
 * `counters.reordered` change replaces it when newer than what the order is known at. The server
 * lists the counters a reorder placed first, then the others (created since, or never reordered) by
 * creation time: a counter new to this tab joins that unplaced tail by its creation time, so a new
 * counter goes last and one an undo brings back returns to its place, as on the server.
 */
import type { Counter, CounterOrder, Group } from '../../shared/api.js';
import type { Change } from '../../shared/protocol.js';
import type { Op, OpResult } from './ops.js';

export interface ServerState {
  readonly group: Group;
  /** The change number `group` is known at. */
  readonly groupSeq: number;
  readonly counters: ReadonlyMap<string, Counter>;
  /** Counter ids in the server's order (the group's order, docs/product.md#order). */
  readonly order: readonly string[];
  /** The change number `order` is known at (-1: only from the list, no change number). */
  readonly orderSeq: number;
  /**
   * Counters a reorder gave a place (as far as this tab can tell): the others follow them on the
   * server, by creation time.
   */
  readonly placed: ReadonlySet<string>;
  /** The newest live change number this tab has seen (the snapshot's included). */
  readonly changeSeq: number;
  /** Tombstones: deleted counter id → the change number that deleted it (Infinity: unknown). */
  readonly deleted: ReadonlyMap<string, number>;
  /** The counter list has arrived (the list answer or a live snapshot). */
  readonly loaded: boolean;
}

export type ServerEvent =
  /** The first load of the counter list (HTTP). Ignored once a snapshot filled the list. */
  | { type: 'list'; counters: readonly Counter[] }
  /** The live channel's `ready`: the whole group at change number `seq`. */
  | { type: 'snapshot'; group: Group; seq: number; counters: readonly Counter[] }
  | { type: 'changes'; changes: readonly Change[] }
  /**
   * The server's answer to this tab's operation `op`. `wasPending`: no live change carrying the
   * operation had arrived before it.
   */
  | { type: 'answer'; op: Op; result: OpResult; wasPending: boolean }
  /** This tab's change found the counter gone (the server said so): seq unknown. */
  | { type: 'counterGone'; counterId: string };

export interface Reduced {
  state: ServerState;
  /** Counters deleted by this event: this tab's pending changes to them go too. */
  removed: readonly string[];
  /** This tab's operation ids that the applied changes contain: they are pending no more. */
  confirmed: readonly string[];
  /** Goals reached by the live changes of this event (never by a snapshot), once per change. */
  goals: readonly GoalReached[];
}

/** A live change took a counter to its goal. */
export interface GoalReached {
  /** The change number: one notice per change. */
  seq: number;
  member: string;
  counterId: string;
  counterName: string;
  goal: number;
}

/**
 * `order` rearranged as `counterIds` says: the ids it lists first (those `order` holds, each
 * once), then the others in their relative order.
 */
export function applyOrder(order: readonly string[], counterIds: readonly string[]): string[] {
  const present = new Set(order);
  const listed: string[] = [];
  for (const id of counterIds) {
    if (present.delete(id)) listed.push(id);
  }
  return [...listed, ...order.filter((id) => present.has(id))];
}

/**
 * The counters of a list in the server's order that a reorder placed, as far as the list tells:
 * all but its longest tail in creation order (the server sorts unplaced counters so). A group
 * never reordered is in creation order throughout: none placed.
 */
export function placedIn(counters: readonly Counter[]): Set<string> {
  let tail = counters.length - 1;
  while (tail > 0 && (counters[tail - 1]?.createdAt ?? '') <= (counters[tail]?.createdAt ?? ''))
    tail -= 1;
  return new Set(counters.slice(0, Math.max(0, tail)).map((counter) => counter.id));
}

export function initialServerState(group: Group, seq: number): ServerState {
  return {
    group,
    groupSeq: seq,
    counters: new Map(),
    order: [],
    orderSeq: -1,
    placed: new Set(),
    changeSeq: seq,
    deleted: new Map(),
    loaded: false,
  };
}

/** The state after `event`; `state` itself is never modified. */
export function reduce(state: ServerState, event: ServerEvent): Reduced {
  if (event.type === 'list' && state.loaded)
    return { state, removed: [], confirmed: [], goals: [] };
  const draft = new Draft(state);
  const confirmed: string[] = [];
  switch (event.type) {
    case 'list':
      draft.loadList(event.counters);
      break;
    case 'snapshot':
      draft.replaceWith(event.group, event.seq, event.counters);
      break;
    case 'changes':
      for (const change of event.changes) {
        draft.apply(change);
        confirmed.push(...(change.opIds ?? []));
      }
      break;
    case 'answer':
      draft.answer(event.op, event.result, event.wasPending);
      break;
    case 'counterGone':
      draft.remove(event.counterId);
      break;
  }
  return { state: draft.done(), removed: draft.removed, confirmed, goals: draft.goals };
}

/** This counter was deleted (a late error about it is no news). */
export function wasDeleted(state: ServerState, counterId: string): boolean {
  return state.deleted.has(counterId);
}

/** A working copy of one state: each event copies the maps once, not once per change it holds. */
class Draft {
  group: Group;
  groupSeq: number;
  loaded: boolean;
  private readonly counters: Map<string, Counter>;
  private order: string[];
  private orderSeq: number;
  private placed: Set<string>;
  private changeSeq: number;
  /** The newest change number seen before this event. */
  private readonly seenSeq: number;
  private readonly deleted: Map<string, number>;
  readonly removed: string[] = [];
  readonly goals: GoalReached[] = [];

  constructor(state: ServerState) {
    this.group = state.group;
    this.groupSeq = state.groupSeq;
    this.loaded = state.loaded;
    this.counters = new Map(state.counters);
    this.order = [...state.order];
    this.orderSeq = state.orderSeq;
    this.placed = new Set(state.placed);
    this.changeSeq = state.changeSeq;
    this.seenSeq = state.changeSeq;
    this.deleted = new Map(state.deleted);
  }

  done(): ServerState {
    return {
      group: this.group,
      groupSeq: this.groupSeq,
      counters: this.counters,
      order: this.order,
      orderSeq: this.orderSeq,
      placed: this.placed,
      changeSeq: this.changeSeq,
      deleted: this.deleted,
      loaded: this.loaded,
    };
  }

  apply(change: Change): void {
    // Live changes come in commit order: one no newer than what was seen before this event is a
    // repeat (the changes of one commit share its number, so the comparison is not with each other).
    const fresh = change.seq > this.seenSeq;
    this.changeSeq = Math.max(this.changeSeq, change.seq);
    switch (change.type) {
      case 'counter.created':
        this.absorb(change.counter);
        return;
      case 'counter.updated': {
        const { counter, goalReachedBy } = change;
        if (fresh && goalReachedBy !== undefined && counter.goal !== null && !this.gone(counter)) {
          this.goals.push({
            seq: change.seq,
            member: goalReachedBy,
            counterId: counter.id,
            counterName: counter.name,
            goal: counter.goal,
          });
        }
        this.absorb(counter);
        return;
      }
      case 'counters.reordered':
        if (change.seq > this.orderSeq) this.reordered(change.counterIds, change.seq);
        return;
      case 'counter.deleted':
        this.remove(change.counterId, change.seq);
        return;
      case 'group.updated':
        if (change.seq > this.groupSeq) {
          this.group = change.group;
          this.groupSeq = change.seq;
        }
        return;
      case 'group.accessChanged':
        return;
    }
  }

  answer(op: Op, result: OpResult, wasPending: boolean): void {
    switch (op.kind) {
      case 'adjust':
      case 'patch':
      case 'create':
        // The answer is the counter right after this operation: once what is held is at least
        // that new, it contains the operation (which left its lane in the same step).
        if (result) this.absorb(result as Counter);
        return;
      case 'delete':
        // The change number of the delete is not in the answer: held against every copy until
        // the live change that deleted it arrives.
        this.remove(op.counterId);
        return;
      case 'group':
      case 'section':
        // Without a version on groups, the answer only counts while the live change that carries
        // this operation has not arrived (after it, the change stream is at least as new).
        if (wasPending) this.group = result as Group;
        return;
      case 'reorder':
        // No change number either: the same rule as the group's.
        if (wasPending && result) this.reordered((result as CounterOrder).counterIds);
        return;
    }
  }

  /**
   * A `ready` snapshot replaces what is held, except what is provably newer than it: counters
   * (and the group) this tab already saw at a later version through an HTTP answer.
   */
  replaceWith(group: Group, seq: number, counters: readonly Counter[]): void {
    const next = new Map<string, Counter>();
    const order: string[] = [];
    for (const counter of counters) {
      if (this.gone(counter)) continue;
      this.deleted.delete(counter.id);
      const held = this.counters.get(counter.id);
      // The copy held already is kept when newer, and also when it says the same: every card
      // whose counter object stays the same skips rendering again (a join, a reconnect).
      const keep = held && (held.version > counter.version || sameJson(held, counter));
      next.set(counter.id, keep ? held : counter);
      order.push(counter.id);
    }
    for (const id of this.order) {
      const held = this.counters.get(id);
      if (!held || next.has(id)) continue;
      if (held.version > seq) {
        // Created after the snapshot was taken (this tab saw it in an HTTP answer first).
        next.set(id, held);
        order.push(id);
      } else {
        this.deleted.set(id, seq);
        this.removed.push(id);
      }
    }
    this.counters.clear();
    for (const [id, counter] of next) this.counters.set(id, counter);
    // A reorder newer than the snapshot (seen live before it) still holds for what it listed.
    if (seq >= this.orderSeq) {
      this.order = order;
      this.placed = placedIn(counters);
      this.orderSeq = seq;
    } else {
      this.order = applyOrder(order, this.order);
    }
    this.changeSeq = Math.max(this.changeSeq, seq);
    if (seq >= this.groupSeq) {
      if (!sameJson(this.group, group)) this.group = group;
      this.groupSeq = seq;
    }
    this.loaded = true;
  }

  /** The first load of the list (HTTP), in the server's order. */
  loadList(counters: readonly Counter[]): void {
    for (const id of placedIn(counters)) this.placed.add(id);
    for (const counter of counters) this.absorb(counter);
    this.loaded = true;
  }

  /** The server put its counters in this order (a reorder); `seq`: its change number, if known. */
  private reordered(counterIds: readonly string[], seq?: number): void {
    this.order = applyOrder(this.order, counterIds);
    this.placed = new Set(counterIds);
    if (seq !== undefined) this.orderSeq = seq;
  }

  /**
   * Inserts a counter (skipping duplicates) or applies it if newer than the one held. A counter
   * new here joins the unplaced tail by creation time, as on the server: last when just created,
   * back in its place when an undo restores it.
   */
  absorb(counter: Counter): void {
    if (this.gone(counter)) return;
    this.deleted.delete(counter.id);
    const held = this.counters.get(counter.id);
    if (held) {
      if (counter.version > held.version) this.counters.set(counter.id, counter);
      return;
    }
    this.counters.set(counter.id, counter);
    let index = this.order.length;
    while (index > 0) {
      const previous = this.order[index - 1] ?? '';
      const held = this.counters.get(previous);
      if (!held || this.placed.has(previous) || held.createdAt <= counter.createdAt) break;
      index -= 1;
    }
    this.order.splice(index, 0, counter.id);
  }

  /** Deleted at or after this counter's version: it is a late event of a deleted counter. */
  private gone(counter: Counter): boolean {
    return counter.version <= (this.deleted.get(counter.id) ?? -1);
  }

  /** `seq`: the change number that deleted it; Infinity when unknown (an HTTP answer). */
  remove(id: string, seq = Infinity): void {
    this.deleted.set(id, Math.min(seq, this.deleted.get(id) ?? seq));
    this.counters.delete(id);
    // Restored by an undo, it has no place of its own on the server any more.
    this.placed.delete(id);
    this.order = this.order.filter((other) => other !== id);
    this.removed.push(id);
  }
}

/** Whether two values parsed from JSON hold the same data (objects compared key by key). */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const aKeys = Object.keys(a);
  if (aKeys.length !== Object.keys(b).length) return false;
  const aRecord = a as Record<string, unknown>;
  const bRecord = b as Record<string, unknown>;
  return aKeys.every((key) => Object.hasOwn(bRecord, key) && sameJson(aRecord[key], bRecord[key]));
}
