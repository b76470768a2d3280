/**
 * Tally's core operations. They take explicit, already-validated arguments (a mutation that
 * passed the shared schemas, a key string) and throw HttpError for anything a caller must hear
 * about. The REST routes, the live channel and the tests all go through here.
 */
import {
  memberName,
  type ActivityEntry,
  type ActivityPage,
  type ActivityQuery,
  type CounterHistory,
  type GroupHistory,
} from '../../shared/activity.js';
import type { GroupPreview, GroupSnapshot, Mutation, MutationResult } from '../../shared/api.js';
import { MESSAGES } from '../../shared/messages.js';
import { isValidKeyFormat, parseGroupName } from '../../shared/rules.js';
import type { Batcher } from '../batcher.js';
import { HttpError, errors } from '../errors.js';
import { KeyGuard } from '../security/key-guard.js';
import { refuseNulCharacters } from '../security/nul.js';
import type { GroupRecord, GroupState, Store } from '../store/types.js';
import { hashKey, keyMatches } from './access.js';

export class TallyService {
  constructor(
    private readonly store: Store,
    private readonly batcher: Batcher,
    /** Limits failed key checks per client address and per group (security/policy.ts). */
    private readonly guard = new KeyGuard(),
  ) {}

  /** The slug of a group name from a URL, or 400 with SPEC's message. */
  slugOf(rawName: string): string {
    const parsed = parseGroupName(rawName);
    if (!parsed.ok) throw new HttpError('invalid_group_name', parsed.message);
    return parsed.value;
  }

  /** What anyone may see of a group: its name and profile picture (the landing page). */
  async preview(rawName: string): Promise<GroupPreview> {
    const group = await this.store.findGroup(this.slugOf(rawName));
    if (!group) throw errors.groupNotFound();
    return { name: group.name, profileImageUrl: group.profileImageUrl };
  }

  /**
   * SPEC §4: opening a group that does not exist with a valid key creates it with that key's hash;
   * an existing group needs the right key. `client` is the caller's address (rate limits).
   */
  async join(
    rawName: string,
    key: string,
    client?: string,
  ): Promise<{ snapshot: GroupSnapshot; created: boolean }> {
    const slug = this.slugOf(rawName);
    return this.guard.check(client, slug, () => this.joinGroup(slug, key));
  }

  private async joinGroup(
    slug: string,
    key: string,
  ): Promise<{ snapshot: GroupSnapshot; created: boolean }> {
    if (!isValidKeyFormat(key))
      throw new HttpError('invalid_key_format', MESSAGES.invalidKeyFormat);
    let group = await this.store.findGroup(slug);
    let created = false;
    if (!group) {
      ({ group, created } = await this.store.createGroup(slug, hashKey(key)));
    }
    if (!created) checkKey(group, key);
    const state = await this.store.loadGroupState(group.id);
    if (!state) throw errors.groupNotFound();
    return { snapshot: toSnapshot(state), created };
  }

  /**
   * Checks a key against a group, in the order a caller can act on each answer. `client` is the
   * caller's address: too many failures from it or on this group answer 429 (rate_limited).
   */
  async authorize(rawName: string, key: string | undefined, client?: string): Promise<GroupRecord> {
    const slug = this.slugOf(rawName);
    return this.guard.check(client, slug, () => this.checkGroupKey(slug, key));
  }

  private async checkGroupKey(slug: string, key: string | undefined): Promise<GroupRecord> {
    if (key === undefined || key === '')
      throw new HttpError('missing_key', MESSAGES.missingNameOrKey);
    if (!isValidKeyFormat(key))
      throw new HttpError('invalid_key_format', MESSAGES.invalidKeyFormat);
    const group = await this.store.findGroup(slug);
    if (!group) throw errors.groupNotFound();
    checkKey(group, key);
    return group;
  }

  async snapshot(groupId: string): Promise<GroupSnapshot> {
    const state = await this.store.loadGroupState(groupId);
    if (!state) throw errors.groupNotFound();
    return toSnapshot(state);
  }

  /**
   * Applies one mutation through group commit; resolves after it is durable and announced.
   * `actor` is the member's display name for the activity log (cleaned by memberName).
   */
  async mutate(
    groupId: string,
    mutation: Mutation,
    opId?: string,
    actor?: string,
  ): Promise<MutationResult> {
    refuseNulCharacters(mutation);
    const outcome = await this.batcher.submit({
      groupId,
      opId,
      mutation,
      actor: memberName(actor),
    });
    if (!outcome.ok) throw new HttpError(outcome.code, outcome.message);
    return outcome.result;
  }

  /** The answer for an entry id that cannot exist (not a positive whole number). */
  missingEntry(): never {
    throw new HttpError('activity_not_found', MESSAGES.activityNotFound);
  }

  /** A page of the activity log, newest first (GET …/activity). */
  async activity(groupId: string, query: ActivityQuery): Promise<ActivityPage> {
    const { before, after, limit, counter } = query;
    if (after !== undefined) {
      // Catching up: the oldest entries after `after` first, so a client far behind can go on
      // from the newest it got; shown newest first like every page.
      const entries = await this.store.listActivity(groupId, {
        after,
        limit,
        counterId: counter,
        order: 'oldest',
      });
      return { entries: entries.reverse(), next: null };
    }
    const entries = await this.store.listActivity(groupId, {
      before,
      limit,
      counterId: counter,
      order: 'newest',
    });
    const last = entries[entries.length - 1];
    return { entries, next: entries.length === limit && last ? last.id : null };
  }

  async counterHistory(
    groupId: string,
    counterId: string,
    points: number,
  ): Promise<CounterHistory> {
    const history = await this.store.counterHistory(groupId, counterId, points);
    if (!history) throw errors.counterNotFound();
    return { counterId, points: history };
  }

  async recentValues(groupId: string, points: number): Promise<GroupHistory> {
    return { series: await this.store.recentValues(groupId, points) };
  }

  /** Every activity entry of a group, oldest first, read in pages (exports stream this). */
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
    }
  }
}

/** Entries read per query while exporting: bounds memory for a log of any length. */
const EXPORT_PAGE = 1_000;

function checkKey(group: GroupRecord, key: string): void {
  if (!keyMatches(key, group.keyHash)) throw new HttpError('wrong_key', MESSAGES.wrongKey);
}

function toSnapshot(state: GroupState): GroupSnapshot {
  const { keyHash: _hidden, ...group } = state.group;
  return { group, counters: state.counters, seq: state.seq };
}
