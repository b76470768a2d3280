/**
 * Tally's core operations. They take explicit, already-validated arguments (a mutation that
 * passed the shared schemas, a key string) and throw DomainError for anything a caller must hear
 * about. The REST routes, the live channel and the tests all go through here.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import {
  memberName,
  type ActivityEntry,
  type ActivityPage,
  type ActivityQuery,
  type CounterHistory,
  type CounterPeriod,
  type CounterPeriods,
  type GroupHistory,
} from '../../shared/activity.js';
import type {
  AccessLevel,
  Tally,
  TalliesQuery,
  GroupPreview,
  GroupView,
  Mutation,
  MutationResult,
  ViewKey,
} from '../../shared/api.js';
import type { ImportSummary } from '../../shared/import.js';
import {
  ACTIVITY_MEMBER_SCAN_MAX,
  ACTIVITY_PAGE_MAX,
  TALLIES_MAX_ROWS,
} from '../../shared/limits.js';
import type { ImportData } from '../domain/import.js';
import { MESSAGES } from '../../shared/messages.js';
import { isValidKeyFormat, parseGroupName } from '../../shared/rules.js';
import { LINK_MESSAGES, type TapGrant } from '../../shared/links.js';
import type { Batcher } from '../batcher.js';
import { runImport } from './importer.js';
import { grantOf } from '../domain/tap-links.js';
import { DomainError, errors } from '../errors.js';
import { GroupCreationQuota } from '../security/group-quota.js';
import { DEFAULT_STORE_QUOTAS } from '../store/quotas.js';
import { KeyGuard } from '../security/key-guard.js';
import { refuseNulCharacters, refuseNulInMemberName, wellFormedMutation } from '../security/nul.js';
import { publicGroup } from '../domain/operations.js';
import { ChainCheck, type ChainVerdict } from '../domain/log-chain.js';
import { noteEditRefusal } from '../domain/notes.js';
import type {
  AccessMutation,
  ChainEnds,
  GroupRecord,
  GroupState,
  Store,
  StoreMutation,
} from '../store/types.js';
import { digestMatches, hashKey, keyDigest, keyMatches, viewKeyOf } from './access.js';
import type { GroupAccess, GroupAccessCache } from './access-cache.js';
import { scopedEntries, scopedHistory, scopedTallies, scopedView, visibleIds } from './scope.js';
import { SnapshotCache } from './snapshots.js';

/** Where a mutation comes from: its client operation id and the member who made it. */
export interface MutationOrigin {
  /** The client's operation id: a retry with it is answered, not applied again. */
  opId?: string | undefined;
  /** The member's display name for the activity log (cleaned by memberName). */
  actor?: string | undefined;
  /** The tap link whose key made it: the commit holds it to the link's scope and rights. */
  link?: TapGrant | null | undefined;
  /** Who sent it (the client's address): the commit queue serves clients in turn (ADR 32). */
  client?: string | undefined;
}

export interface TallyServiceOptions {
  store: Store;
  /** Every mutation goes through it: group commit. */
  batcher: Batcher;
  /** Who may open each group, kept between calls (core/access-cache.ts). */
  accessCache: GroupAccessCache;
  /** Limits failed key checks per client address and per group (security/policy.ts). */
  guard?: KeyGuard;
  /** Groups each client address may create per hour (security/group-quota.ts). */
  creations?: GroupCreationQuota;
  /** The most counters a group may have (MAX_COUNTERS_PER_GROUP): an import checks it early. */
  countersPerGroup?: number;
}

export class TallyService {
  private readonly store: Store;
  private readonly batcher: Batcher;
  private readonly accessCache: GroupAccessCache;
  private readonly guard: KeyGuard;
  private readonly creations: GroupCreationQuota;
  private readonly countersPerGroup: number;

  constructor({
    store,
    batcher,
    accessCache,
    guard = new KeyGuard(),
    creations = new GroupCreationQuota(),
    countersPerGroup = DEFAULT_STORE_QUOTAS.countersPerGroup,
  }: TallyServiceOptions) {
    this.store = store;
    this.batcher = batcher;
    this.accessCache = accessCache;
    this.guard = guard;
    this.creations = creations;
    this.countersPerGroup = countersPerGroup;
  }

  /** Large groups' latest snapshots, while current (core/snapshots.ts). */
  private readonly snapshots = new SnapshotCache();
  /** Chain checks under way, by group (verifyActivity). */
  private readonly verifying = new Map<string, Promise<ChainVerdict>>();

  /** The slug of a group name from a URL, or invalid_group_name with SPEC's message. */
  slugOf(rawName: string): string {
    const parsed = parseGroupName(rawName);
    if (!parsed.ok) throw new DomainError('invalid_group_name', parsed.message);
    return parsed.value;
  }

  /** What anyone may see of a group: its name and profile picture (the landing page). */
  async preview(rawName: string): Promise<GroupPreview> {
    const group = await this.store.findGroup(this.slugOf(rawName));
    if (!group) throw errors.groupNotFound();
    return { name: group.name, profileImageUrl: group.profileImageUrl };
  }

  /**
   * Opening a group that does not exist with a valid key creates it with that key's hash;
   * an existing group needs the right key. `client` is the caller's address (rate limits).
   */
  async join(
    rawName: string,
    key: string,
    client?: string,
  ): Promise<{ view: GroupView; created: boolean } & KeyAccess> {
    const slug = this.slugOf(rawName);
    return this.guard.check(client, slug, () => this.joinGroup(slug, key, client));
  }

  private async joinGroup(
    slug: string,
    key: string,
    client: string | undefined,
  ): Promise<{ view: GroupView; created: boolean } & KeyAccess> {
    if (!isValidKeyFormat(key))
      throw new DomainError('invalid_key_format', MESSAGES.invalidKeyFormat);
    let group = await this.store.findGroup(slug);
    let created = false;
    if (!group) {
      ({ group, created } = await this.creations.create(client, () =>
        this.store.createGroup(slug, hashKey(key)),
      ));
    }
    const access = created ? FULL : accessOf(group, key);
    const view = await this.snapshot(group.id);
    return { view: access.link ? scopedView(view, access.link) : view, created, ...access };
  }

  /**
   * Checks a key against a group, in the order a caller can act on each answer, and returns the
   * group. `need` is what the call does: a view-only key may `read` but not `write`
   * (read_only); a tap link's key may do neither (tap_only: the calls it may make check their
   * scope, authorizeScoped). `client` is the caller's address: too many failures from it or on
   * this group answer rate_limited.
   */
  async authorize(
    rawName: string,
    key: string | undefined,
    { client, need = 'write' }: { client?: string | undefined; need?: 'read' | 'write' } = {},
  ): Promise<GroupAccess> {
    const { group, access } = await this.access(rawName, key, client);
    if (access === 'tap') throw tapOnly();
    if (need === 'write' && access !== 'full')
      throw new DomainError('read_only', MESSAGES.readOnly);
    return group;
  }

  /**
   * Like authorize, for the calls a tap link may make too: `see` (the counters, their log and
   * history, which the caller filters to the link's scope) or `tap` (taps and undos, which the
   * commit holds to its scope). `link` is the tap link, null for the group's own keys.
   */
  async authorizeScoped(
    rawName: string,
    key: string | undefined,
    { client, need }: { client?: string | undefined; need: 'see' | 'tap' },
  ): Promise<{ group: GroupAccess; link: TapGrant | null }> {
    const { group, access, link } = await this.access(rawName, key, client);
    if (need === 'tap' && access === 'view') throw new DomainError('read_only', MESSAGES.readOnly);
    return { group, link };
  }

  /** The group a key opens and what it may do there (the live channel keeps both). */
  async access(
    rawName: string,
    key: string | undefined,
    client?: string,
  ): Promise<{ group: GroupAccess } & KeyAccess> {
    const slug = this.slugOf(rawName);
    return this.guard.check(client, slug, () => this.checkGroupKey(slug, key));
  }

  private async checkGroupKey(
    slug: string,
    key: string | undefined,
  ): Promise<{ group: GroupAccess } & KeyAccess> {
    if (key === undefined || key === '')
      throw new DomainError('missing_key', MESSAGES.missingNameOrKey);
    if (!isValidKeyFormat(key))
      throw new DomainError('invalid_key_format', MESSAGES.invalidKeyFormat);
    const group = await this.accessCache.get(slug);
    if (!group) throw errors.groupNotFound();
    return { group, ...accessOf(group, key) };
  }

  /**
   * Replaces the group's access key (`key` proven by the caller is the current one). Every link
   * with the old key, and the old view-only link, stop working at once: open sockets are closed.
   */
  async rotateKey(
    group: GroupAccess,
    { key: newKey, revokeTapLinks }: { key: string; revokeTapLinks: boolean },
    origin: MutationOrigin = {},
  ) {
    if (keyMatches(newKey, group.keyHash))
      throw new DomainError('validation_failed', MESSAGES.sameKey);
    const mutation: AccessMutation = {
      kind: 'rotateKey',
      keyHash: hashKey(newKey),
      viewKeyHash: hashKey(viewKeyOf(newKey)),
      revokeTapLinks,
    };
    return this.apply(group.id, mutation, origin);
  }

  /** Adds or removes one of the group's alert rules (core/alerts.ts makes the change). */
  async changeAlerts(
    groupId: string,
    mutation: Extract<AccessMutation, { kind: 'addAlertRule' | 'removeAlertRule' }>,
    origin: MutationOrigin = {},
  ): Promise<MutationResult> {
    return this.apply(groupId, mutation, origin);
  }

  /** Adds or revokes a tap link (core/tap-links.ts makes the change). */
  async changeTapLinks(
    groupId: string,
    mutation: Extract<AccessMutation, { kind: 'addTapLink' | 'revokeTapLink' }>,
    origin: MutationOrigin = {},
  ): Promise<MutationResult> {
    return this.apply(groupId, mutation, origin);
  }

  /** Turns the view-only link on (returns its key, derived from the access key) or off. */
  async setViewLink(group: GroupAccess, accessKey: string, on: boolean): Promise<ViewKey> {
    const viewKey = viewKeyOf(accessKey);
    const wanted = on ? hashKey(viewKey) : null;
    if (group.viewKeyHash !== wanted) {
      await this.apply(group.id, { kind: 'setViewKey', viewKeyHash: wanted }, {});
    }
    return { viewKey: on ? viewKey : null };
  }

  /** The view-only link's key, if the group has one. */
  viewLink(group: GroupAccess, accessKey: string): ViewKey {
    return { viewKey: group.viewKeyHash === null ? null : viewKeyOf(accessKey) };
  }

  /**
   * The group's state now. A group's snapshot is read (and serialised, core/snapshots.ts) once
   * per change number: for a group with a kept snapshot, a cheap read of the number first, then
   * the kept snapshot if it is still current. A change committed meanwhile only makes the answer
   * that much older, and it carries its own `seq`, so live members still get every later change.
   */
  async snapshot(groupId: string): Promise<GroupView> {
    // Only a group with a kept snapshot is worth the extra read of its change number.
    if (this.snapshots.holds(groupId)) {
      const seq = await this.store.groupSeq(groupId);
      if (seq === null) throw errors.groupNotFound();
      const kept = this.snapshots.get(groupId, seq);
      if (kept) return kept;
    }
    const state = await this.store.loadGroupState(groupId);
    if (!state) throw errors.groupNotFound();
    const view = toView(state);
    this.snapshots.remember(groupId, view);
    return view;
  }

  /** The group as stored now (the live channel re-checks open sockets' keys against it). */
  async currentGroup(groupId: string): Promise<GroupRecord | null> {
    return (await this.store.loadGroupState(groupId))?.group ?? null;
  }

  /**
   * Applies one mutation through group commit; resolves after it is durable and announced.
   */
  async mutate(
    groupId: string,
    mutation: Mutation,
    origin: MutationOrigin = {},
  ): Promise<MutationResult> {
    refuseNulCharacters(mutation);
    refuseNulInMemberName(origin.actor);
    return this.apply(groupId, wellFormedMutation(mutation), origin);
  }

  private async apply(
    groupId: string,
    mutation: StoreMutation,
    { opId, actor, link, client }: MutationOrigin,
  ): Promise<MutationResult> {
    const outcome = await this.batcher.submit(
      { groupId, opId, mutation, actor: memberName(actor), ...(link ? { link } : {}) },
      client,
    );
    if (!outcome.ok) throw new DomainError(outcome.code, outcome.message);
    return outcome.result;
  }

  /**
   * Imports a file's counters and entries (read by server/import/) into the group, all or
   * nothing, without holding other groups up (core/importer.ts); with `dryRun`, answers what it
   * would do and changes nothing (the same algorithm, its writes dropped: Store.preview).
   */
  async importData(
    groupId: string,
    data: ImportData,
    { dryRun, actor, client }: { dryRun: boolean } & MutationOrigin,
  ): Promise<ImportSummary> {
    const context = {
      store: this.store,
      batcher: this.batcher,
      countersPerGroup: this.countersPerGroup,
    };
    return runImport(context, data, {
      groupId,
      dryRun,
      actor: memberName(actor),
      client,
    });
  }

  /**
   * Sets or removes the note of an entry its member made in the last 24 hours (ADR 36); a tap
   * link's holder, of its own entries on counters it sees.
   */
  async editNote(
    groupId: string,
    { entryId, note }: { entryId: number; note: string },
    { actor, link }: { actor?: string | undefined; link: TapGrant | null },
  ): Promise<ActivityEntry> {
    refuseNulInMemberName(actor);
    const entry = await this.store.activityEntry(groupId, entryId);
    if (!entry) this.missingEntry();
    if (
      link &&
      scopedEntries([entry], visibleIds(await this.snapshot(groupId), link)).length === 0
    ) {
      this.missingEntry();
    }
    const refusal = noteEditRefusal(entry, {
      actor: memberName(actor),
      linkId: link?.id ?? null,
      now: Date.now(),
    });
    if (refusal) throw new DomainError(refusal.code, refusal.message);
    const noted = await this.store.setEntryNote(groupId, entryId, note === '' ? null : note);
    return noted ?? this.missingEntry();
  }

  /** The answer for an entry id that cannot exist (not a positive whole number). */
  missingEntry(): never {
    throw new DomainError('activity_not_found', MESSAGES.activityNotFound);
  }

  /**
   * A page of the activity log, newest first (GET …/activity). For a tap link, only entries
   * about the counters it sees: a page may then hold fewer entries, and `next` still pages on.
   */
  async activity(
    groupId: string,
    query: ActivityQuery,
    link: TapGrant | null = null,
  ): Promise<ActivityPage> {
    const page = await this.activityPage(groupId, query);
    if (!link) return page;
    const visible = visibleIds(await this.snapshot(groupId), link);
    return { ...page, entries: scopedEntries(page.entries, visible) };
  }

  private async activityPage(groupId: string, query: ActivityQuery): Promise<ActivityPage> {
    const { before, after, limit, counter, member } = query;
    const noted = query.noted === 'true';
    // The name as the log writes it: cleaned, and `Someone` for a member who gave none.
    if (member !== undefined) {
      return this.memberNotes(groupId, { ...query, member: memberName(member) });
    }
    if (after !== undefined) {
      // Catching up: the oldest entries after `after` first, so a client far behind can go on
      // from the newest it got; shown newest first like every page.
      const entries = await this.store.listActivity(groupId, {
        after,
        limit,
        counterId: counter,
        noted,
        order: 'oldest',
      });
      return { entries: entries.reverse(), next: null };
    }
    const entries = await this.store.listActivity(groupId, {
      before,
      limit,
      counterId: counter,
      noted,
      order: 'newest',
    });
    const last = entries[entries.length - 1];
    return { entries, next: entries.length === limit && last ? last.id : null };
  }

  /**
   * One member's noted entries, newest first: the group's (or counter's) noted entries read a
   * page at a time and kept when the member made them, looking through at most
   * ACTIVITY_MEMBER_SCAN_MAX of them. A page cut short by that bound has `next` where the
   * looking stopped, so a member with few notes among many costs each request the same.
   */
  private async memberNotes(
    groupId: string,
    { before, limit, counter, member }: ActivityQuery & { member: string },
  ): Promise<ActivityPage> {
    const found: ActivityEntry[] = [];
    let cursor = before;
    let looked = 0;
    while (looked < ACTIVITY_MEMBER_SCAN_MAX) {
      const want = Math.min(ACTIVITY_PAGE_MAX, ACTIVITY_MEMBER_SCAN_MAX - looked);
      const page = await this.store.listActivity(groupId, {
        before: cursor,
        limit: want,
        counterId: counter,
        noted: true,
        order: 'newest',
      });
      for (const entry of page) {
        looked += 1;
        cursor = entry.id;
        if (entry.actor !== member) continue;
        found.push(entry);
        if (found.length === limit) return { entries: found, next: entry.id };
      }
      if (page.length < want) return { entries: found, next: null };
    }
    return { entries: found, next: cursor ?? null };
  }

  /** Refuses a counter a tap link does not see as the group refuses one it does not have. */
  private async requireVisible(
    groupId: string,
    counterId: string,
    link: TapGrant | null,
  ): Promise<void> {
    if (link && !visibleIds(await this.snapshot(groupId), link).has(counterId))
      throw errors.counterNotFound();
  }

  async counterHistory(
    groupId: string,
    counterId: string,
    { points, link = null }: { points: number; link?: TapGrant | null },
  ): Promise<CounterHistory> {
    await this.requireVisible(groupId, counterId, link);
    const history = await this.store.counterHistory(groupId, counterId, points);
    if (!history) throw errors.counterNotFound();
    return { counterId, points: history };
  }

  async recentValues(
    groupId: string,
    points: number,
    link: TapGrant | null = null,
  ): Promise<GroupHistory> {
    const history = { series: await this.store.recentValues(groupId, points) };
    return link ? scopedHistory(history, visibleIds(await this.snapshot(groupId), link)) : history;
  }

  /**
   * Each member's taps per counter (GET …/tallies), largest net first. One answer per group,
   * query and change number is computed once, however many members' boards ask (they all
   * refresh after the same change): at the log's cap it adds up 100,000 entries
   * (docs/benchmarks.md, "Tallies"). A new change number computes it again, so a board is never
   * behind.
   */
  async tallies(
    groupId: string,
    query: TalliesQuery,
    link: TapGrant | null = null,
  ): Promise<Tally[]> {
    const tallies = await this.groupTallies(groupId, query);
    return link ? scopedTallies(tallies, visibleIds(await this.snapshot(groupId), link)) : tallies;
  }

  private async groupTallies(groupId: string, query: TalliesQuery): Promise<Tally[]> {
    const seq = await this.store.groupSeq(groupId);
    const key = `${groupId}\u0000${seq ?? ''}\u0000${query.counterId ?? ''}\u0000${query.since ?? ''}\u0000${query.by}`;
    const kept = this.talliesKept.get(key);
    if (kept) return kept.answer;
    const answer = this.store.tallies(groupId, { ...query, limit: TALLIES_MAX_ROWS });
    this.talliesKept.set(key, { answer });
    // Map order is insertion order: the first key is the least recently computed one.
    if (this.talliesKept.size > TALLIES_KEPT) {
      const oldest = this.talliesKept.keys().next().value;
      if (oldest !== undefined) this.talliesKept.delete(oldest);
    }
    answer.catch(() => {
      if (this.talliesKept.get(key)?.answer === answer) this.talliesKept.delete(key);
    });
    return answer;
  }

  /** Recent tallies answers by group and query (see tallies). */
  private readonly talliesKept = new Map<string, { answer: Promise<Tally[]> }>();

  /** A counter's ended periods, newest first (GET …/counters/{id}/periods). */
  async counterPeriods(
    groupId: string,
    counterId: string,
    { limit, link = null }: { limit: number; link?: TapGrant | null },
  ): Promise<CounterPeriods> {
    await this.requireVisible(groupId, counterId, link);
    const periods = await this.store.counterPeriods(groupId, counterId, limit);
    if (!periods) throw errors.counterNotFound();
    return { counterId, periods };
  }

  /** Every ended period of the group's counters, oldest first (exports). */
  groupPeriods(groupId: string): Promise<CounterPeriod[]> {
    return this.store.groupPeriods(groupId);
  }

  /**
   * Re-computes the group's activity chain (ADR 30) up to its head as it was when the check
   * began (entries made since are not waited for). One check per group runs at a time: a second
   * call while one runs gets its answer.
   */
  async verifyActivity(groupId: string): Promise<ChainVerdict> {
    const running = this.verifying.get(groupId);
    if (running) return running;
    const check = this.checkChain(groupId).finally(() => this.verifying.delete(groupId));
    this.verifying.set(groupId, check);
    return check;
  }

  private async checkChain(groupId: string, retries = 1): Promise<ChainVerdict> {
    const ends = await this.store.activityChainEnds(groupId);
    if (!ends) throw errors.groupNotFound();
    const check = new ChainCheck(groupId, ends.anchor);
    let after = 0;
    for (;;) {
      const page = await this.store.activityChain(groupId, after, EXPORT_PAGE);
      const headAt = page.findIndex((row) => row.hash !== null && row.hash === ends.head);
      check.add(headAt === -1 ? page : page.slice(0, headAt + 1));
      const last = page[page.length - 1];
      if (headAt !== -1 || !last || page.length < EXPORT_PAGE) break;
      after = last.entry.id;
      await nextTurn();
    }
    const verdict = check.verdict(ends.head);
    if (verdict.ok || retries === 0) return verdict;
    // Old entries pruned, or the first chained entry written, while it was read: once more.
    const now = await this.store.activityChainEnds(groupId);
    const moved = now?.anchor !== ends.anchor || (ends.head === null && now.head !== null);
    return moved ? this.checkChain(groupId, retries - 1) : verdict;
  }

  /** The ends of the group's activity chain (the JSON export carries them). */
  async activityChainEnds(groupId: string): Promise<ChainEnds> {
    const ends = await this.store.activityChainEnds(groupId);
    if (!ends) throw errors.groupNotFound();
    return ends;
  }

  /** The whole log with each entry's hash, oldest first, page by page (the JSON export). */
  async *chainedActivity(groupId: string): AsyncGenerator<ActivityEntry & { hash: string | null }> {
    let after = 0;
    for (;;) {
      const page = await this.store.activityChain(groupId, after, EXPORT_PAGE);
      for (const { entry, hash } of page) yield { ...entry, hash };
      const last = page[page.length - 1];
      if (!last || page.length < EXPORT_PAGE) return;
      after = last.entry.id;
      await nextTurn();
    }
  }

  /** Every activity entry of a group, oldest first, read in pages (the CSV export streams this). */
  async *allActivity(groupId: string): AsyncGenerator<ActivityEntry> {
    let after = 0;
    for (;;) {
      const page = await this.store.listActivity(groupId, {
        after,
        limit: EXPORT_PAGE,
        order: 'oldest',
      });
      yield* page;
      const last = page[page.length - 1];
      if (!last || page.length < EXPORT_PAGE) return;
      after = last.id;
      await nextTurn();
    }
  }
}

/** Most tallies answers kept (each at most TALLIES_MAX_ROWS rows). */
const TALLIES_KEPT = 200;

/**
 * Entries read per query while exporting: bounds memory for a log of any length, and how long
 * one page's read and writing hold the event loop (SQLite reads synchronously): a few ms. The
 * loop gets a turn between two pages (nextTurn): a page's entries go out through promises that
 * settle at once, so without it a long read would run page after page while taps wait.
 */
const EXPORT_PAGE = 250;

/** What a key opens: its level and, for a tap link's key, the link. */
export interface KeyAccess {
  access: AccessLevel;
  link: TapGrant | null;
}

const FULL: KeyAccess = Object.freeze({ access: 'full', link: null });
const VIEW: KeyAccess = Object.freeze({ access: 'view', link: null });

/**
 * `full` for the access key, `view` for the view-only link's key, `tap` for a live tap link's
 * key; anything else is wrong_key, a revoked link's key with a sentence that says so.
 */
export function accessOf(group: GroupAccess, key: string): KeyAccess {
  const digest = keyDigest(key);
  if (digestMatches(digest, group.keyHash)) return FULL;
  if (group.viewKeyHash !== null && digestMatches(digest, group.viewKeyHash)) return VIEW;
  for (const link of group.tapLinks) {
    if (!digestMatches(digest, link.keyHash)) continue;
    if (link.revokedAt !== null) throw new DomainError('wrong_key', LINK_MESSAGES.revoked);
    return { access: 'tap', link: grantOf(link) };
  }
  throw new DomainError('wrong_key', MESSAGES.wrongKey);
}

const tapOnly = () => new DomainError('tap_only', LINK_MESSAGES.tapOnly);

function toView(state: GroupState): GroupView {
  return { group: publicGroup(state.group), counters: state.counters, seq: state.seq };
}
