/**
 * Tap links as the group's owner manages them (docs/api.md#tap-links): made and revoked through
 * the commit (so they are ordered with the taps around them and every instance hears of it),
 * listed with what the activity log says of their use. Only holders of the group's access key
 * get here; the routes refuse every other key.
 */
import { randomBytes } from 'node:crypto';
import { GENERATED_KEY_BYTES } from '../../shared/limits.js';
import {
  LINK_MESSAGES,
  MAX_TAP_LINKS_PER_GROUP,
  type TapLinkBody,
  type TapLinkCreated,
  type TapLinkList,
} from '../../shared/links.js';
import { grantOf, liveLinks, type StoredTapLink } from '../domain/tap-links.js';
import { DomainError, errors } from '../errors.js';
import type { Store } from '../store/types.js';
import { hashKey } from './access.js';
import type { GroupAccess } from './access-cache.js';
import { idForOperation } from './derived-ids.js';
import type { MutationOrigin, TallyService } from './service.js';

const iso = (ms: number) => new Date(ms).toISOString();

export class TapLinkService {
  constructor(
    private readonly store: Store,
    private readonly service: TallyService,
  ) {}

  /** The group's links as stored now (not as the access cache last read them). */
  private async links(group: GroupAccess): Promise<readonly StoredTapLink[]> {
    const record = await this.store.findGroup(group.name);
    if (!record || record.id !== group.id) throw errors.groupNotFound();
    return record.tapLinks;
  }

  /** Every live link, oldest first, with its use as the activity log holds it; never a key. */
  async list(group: GroupAccess): Promise<TapLinkList> {
    const [links, usage] = await Promise.all([
      this.links(group),
      this.store.tapLinkUsage(group.id),
    ]);
    return {
      links: liveLinks(links).map((link) => {
        const used = usage.get(link.id);
        return {
          ...grantOf(link),
          createdAt: iso(link.createdAt),
          lastUsedAt: used ? iso(used.lastUsedAt) : null,
          taps: used ? Math.round(used.taps) : 0,
        };
      }),
      limits: { links: MAX_TAP_LINKS_PER_GROUP },
    };
  }

  /**
   * Makes a link with a new random key (the access keys' format), stored only as its hash and
   * answered this once. Counters a scope names must exist now.
   */
  async create(
    group: GroupAccess,
    body: TapLinkBody,
    origin: MutationOrigin,
  ): Promise<TapLinkCreated> {
    if ('counterIds' in body.scope) {
      const { counters } = await this.service.snapshot(group.id);
      const known = new Set(counters.map((counter) => counter.id));
      const unknown = body.scope.counterIds.find((id) => !known.has(id));
      if (unknown !== undefined)
        throw new DomainError('validation_failed', LINK_MESSAGES.unknownCounter(unknown));
    }
    const key = randomBytes(GENERATED_KEY_BYTES).toString('hex');
    const link: StoredTapLink = {
      id: idForOperation(group.id, origin.opId),
      label: body.label,
      scope: body.scope,
      can: body.can,
      keyHash: hashKey(key),
      createdAt: Date.now(),
      revokedAt: null,
    };
    await this.service.changeTapLinks(group.id, { kind: 'addTapLink', link }, origin);
    const stored = (await this.links(group)).find((candidate) => candidate.id === link.id);
    if (!stored || stored.revokedAt !== null) throw linkNotFound();
    // A retry of the same request finds the link made the first time: its key is not known.
    return stored.keyHash === link.keyHash ? { ...grantOf(stored), key } : grantOf(stored);
  }

  /** Revokes a link: its key stops at once on every instance and its sockets are closed. */
  async revoke(group: GroupAccess, linkId: string, origin: MutationOrigin): Promise<void> {
    await this.service.changeTapLinks(group.id, { kind: 'revokeTapLink', linkId }, origin);
  }
}

const linkNotFound = () => new DomainError('link_not_found', LINK_MESSAGES.linkNotFound);
