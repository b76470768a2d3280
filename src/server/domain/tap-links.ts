/**
 * A group's tap links as its row keeps them, and the rules a link's holder is held to in the
 * commit: a tap on a counter outside the link's scope finds no counter, a tap in a direction it
 * may not count or any other change is `tap_only`, and an undo takes back only the link's own
 * taps. Links are made and revoked through the commit (ordered with the taps around them, and
 * announced as an access change, so every instance closes a revoked link's sockets).
 *
 * The row keeps live links and the most recently revoked ones (REMEMBERED_REVOKED_LINKS), so a
 * revoked link's holder can be told it was revoked rather than that the key is wrong.
 */
import {
  LINK_MESSAGES,
  MAX_TAP_LINKS_PER_GROUP,
  REMEMBERED_REVOKED_LINKS,
  inScope,
  type TapGrant,
  type TapRight,
} from '../../shared/links.js';
import type { ActivityEntry } from '../../shared/activity.js';
import type { Counter } from '../../shared/api.js';
import type { GroupRecord } from './operations.js';
import { counterNotFound, failed, type Applied } from './outcomes.js';
import type { OperationOutcome } from './operations.js';

/** A tap link as the group's row keeps it: the grant, its key's SHA-256, when it was made. */
export interface StoredTapLink extends TapGrant {
  /** SHA-256 of the link's key, hex. Never leaves the server. */
  keyHash: string;
  /** Epoch ms. */
  createdAt: number;
  /** Epoch ms when it was revoked; null while it works. */
  revokedAt: number | null;
}

export const NO_TAP_LINKS: readonly StoredTapLink[] = Object.freeze([]);

/** The links as stored: null when the group has none. Kept per list: a tap rewrites the row. */
const textOf = new WeakMap<readonly StoredTapLink[], string | null>();
export function tapLinksText(links: readonly StoredTapLink[]): string | null {
  let text = textOf.get(links);
  if (text === undefined) {
    text = links.length === 0 ? null : JSON.stringify(links);
    textOf.set(links, text);
  }
  return text;
}

/** The links from their stored text (written by `tapLinksText` only). */
export function parseTapLinks(text: string | null): readonly StoredTapLink[] {
  if (text === null || text === '') return NO_TAP_LINKS;
  const parsed = JSON.parse(text) as unknown;
  const links = Array.isArray(parsed) ? (parsed as StoredTapLink[]) : [];
  textOf.set(links, text);
  return links;
}

export const liveLinks = (links: readonly StoredTapLink[]): StoredTapLink[] =>
  links.filter((link) => link.revokedAt === null);

/** What the link's holder is: the grant without the key's hash and the dates. */
export const grantOf = ({ id, label, scope, can }: StoredTapLink): TapGrant => ({
  id,
  label,
  scope,
  can,
});

/** A new link, or the group's links with one revoked (or all of them: a rotation may ask). */
export type TapLinkMutation =
  { kind: 'addTapLink'; link: StoredTapLink } | { kind: 'revokeTapLink'; linkId: string };

const tooManyLinks = (): OperationOutcome => ({
  ok: false,
  code: 'too_many_links',
  message: LINK_MESSAGES.tooManyLinks,
});
const linkNotFound = (): OperationOutcome => ({
  ok: false,
  code: 'link_not_found',
  message: LINK_MESSAGES.linkNotFound,
});

export const tapOnly = (): OperationOutcome => ({
  ok: false,
  code: 'tap_only',
  message: LINK_MESSAGES.tapOnly,
});

/**
 * The group's links after the change, or the refusal. Adding a link whose id is there already
 * (a retry with the same operation id) leaves them as they are.
 */
export function changedTapLinks(
  record: GroupRecord,
  mutation: TapLinkMutation,
  now: number,
): { links: readonly StoredTapLink[] } | { refusal: Applied } {
  const links = record.tapLinks;
  if (mutation.kind === 'addTapLink') {
    if (links.some((link) => link.id === mutation.link.id)) return { links };
    if (liveLinks(links).length >= MAX_TAP_LINKS_PER_GROUP)
      return { refusal: failed(tooManyLinks()) };
    return { links: [...links, mutation.link] };
  }
  const target = links.find((link) => link.id === mutation.linkId && link.revokedAt === null);
  if (!target) return { refusal: failed(linkNotFound()) };
  return { links: withRevoked(links, (link) => link.id === mutation.linkId, now) };
}

/** Revokes the links `which` picks, keeping only the newest REMEMBERED_REVOKED_LINKS revoked. */
export function withRevoked(
  links: readonly StoredTapLink[],
  which: (link: StoredTapLink) => boolean,
  now: number,
): readonly StoredTapLink[] {
  const marked = links.map((link) =>
    link.revokedAt === null && which(link) ? { ...link, revokedAt: now } : link,
  );
  const revoked = marked
    .filter((link) => link.revokedAt !== null)
    .sort((a, b) => (b.revokedAt ?? 0) - (a.revokedAt ?? 0))
    .slice(0, REMEMBERED_REVOKED_LINKS);
  const kept = new Set(revoked);
  return marked.filter((link) => link.revokedAt === null || kept.has(link));
}

/**
 * Whether a link's holder may tap this counter in this direction: null if so; the refusal if
 * not (a counter outside its scope does not exist for it).
 */
export function tapRefusal(
  link: TapGrant,
  counter: Pick<Counter, 'id' | 'section'>,
  direction: TapRight,
): OperationOutcome | null {
  if (!inScope(link.scope, counter)) return counterNotFound();
  return link.can.includes(direction) ? null : tapOnly();
}

/** Whether a link's holder may take back this entry: only the link's own taps. */
export function mayUndo(link: TapGrant, entry: ActivityEntry): boolean {
  return entry.kind === 'counter.adjusted' && entry.link?.id === link.id;
}
