/**
 * The wire format of cross-instance announcements on PostgreSQL NOTIFY. A notification payload
 * must stay under 8,000 bytes, so a batch's changes are split into several payloads; a single
 * change too big on its own (a counter with long multi-byte texts) travels as a reference that
 * the receiving instances resolve by reading the row.
 */
import { z } from 'zod';
import { PresenceMemberSchema, type Change, type PresenceMember } from '../../shared/protocol.js';
import type { PresenceAnnouncement } from './types.js';

/** Postgres refuses payloads of 8,000 bytes or more; keep a margin, bytes. */
export const MAX_PAYLOAD_BYTES = 7_800;

export interface ChangeReference {
  type: 'counter.created' | 'counter.updated';
  seq: number;
  counterId: string;
  opIds?: string[] | undefined;
}

export interface Announcement {
  /** The instance that committed (it has delivered the changes already and skips its own). */
  i: string;
  /** Group id. */
  g: string;
  /**
   * When the sender encoded it in its commit transaction, ms since the epoch (Date.now()): the
   * receivers measure the bus lag from it (metrics). Absent in payloads of instances from before
   * the bus lag was measured, which are still accepted; such older instances ignore it.
   */
  t?: number;
  /** Changes in commit order. */
  c: Change[];
  /** Changes too large for a payload, to be read from the database. */
  r?: ChangeReference[];
}

const byteLength = (text: string) => Buffer.byteLength(text, 'utf8');

/** Who sends an announcement, for which group, and when (ms since the epoch; now unless given). */
export interface AnnouncementHead {
  instanceId: string;
  groupId: string;
  sentAt?: number;
}

export function encodeAnnouncements(
  { instanceId, groupId, sentAt = Date.now() }: AnnouncementHead,
  changes: readonly Change[],
): string[] {
  const payloads: string[] = [];
  const head = { i: instanceId, g: groupId, t: sentAt };
  const overhead = byteLength(JSON.stringify({ ...head, c: [], r: [] }));
  let current: Change[] = [];
  let currentBytes = overhead;
  const flush = () => {
    if (current.length > 0) payloads.push(JSON.stringify({ ...head, c: current }));
    current = [];
    currentBytes = overhead;
  };
  for (const change of changes) {
    const size = byteLength(JSON.stringify(change)) + 1;
    if (overhead + size > MAX_PAYLOAD_BYTES) {
      flush();
      const reference = referenceTo(change);
      let payload = JSON.stringify({ ...head, c: [], r: [reference] });
      // Thousands of taps of one hot counter in one batch make one change with thousands of
      // operation ids: past the limit they are left out (they only let a sender recognise its own
      // change early; its answer carries the same row), never the change itself.
      if (byteLength(payload) > MAX_PAYLOAD_BYTES) {
        const { opIds: _left, ...withoutOpIds } = reference;
        payload = JSON.stringify({ ...head, c: [], r: [withoutOpIds] });
      }
      payloads.push(payload);
      continue;
    }
    if (currentBytes + size > MAX_PAYLOAD_BYTES) flush();
    current.push(change);
    currentBytes += size;
  }
  flush();
  return payloads;
}

function referenceTo(change: Change): ChangeReference {
  // Only counter rows can outgrow a payload: a group row's texts are bounded well below it.
  if (change.type !== 'counter.created' && change.type !== 'counter.updated') {
    throw new Error(`change ${change.type} cannot exceed a notification payload`);
  }
  return { type: change.type, seq: change.seq, counterId: change.counter.id, opIds: change.opIds };
}

export function decodeAnnouncement(payload: string): Announcement | null {
  try {
    const parsed = JSON.parse(payload) as Partial<Announcement>;
    if (typeof parsed.i !== 'string' || typeof parsed.g !== 'string' || !Array.isArray(parsed.c)) {
      return null;
    }
    // A malformed time only costs the lag measurement, not the changes.
    if (parsed.t !== undefined && !Number.isFinite(parsed.t)) delete parsed.t;
    return parsed as Announcement;
  } catch {
    return null;
  }
}

/** Presence has a channel of its own next to the changes' one. */
export const presenceChannelOf = (channel: string) => `${channel}_presence`;

/**
 * One instance's members of a group: how many distinct members it has (`n`) and as many of them
 * as fit one payload (`m`), in the order given (the board puts first the ones other instances
 * list too, then the rest by name: live/presence.ts). `n` is what lets the receivers count a
 * crowd whose list is cut (ADR 33); `members` must hold each member id once.
 */
export function encodePresence(
  instanceId: string,
  groupId: string,
  members: readonly PresenceMember[],
): string {
  const head = { i: instanceId, g: groupId, n: members.length };
  // `{…,"m":[]}` plus each member's JSON and one comma between two, bytes.
  let bytes = byteLength(JSON.stringify({ ...head, m: [] }));
  let kept = 0;
  for (const member of members) {
    const size = byteLength(JSON.stringify(member)) + (kept > 0 ? 1 : 0);
    if (bytes + size > MAX_PAYLOAD_BYTES) break;
    bytes += size;
    kept += 1;
  }
  return JSON.stringify({ ...head, m: members.slice(0, kept) });
}

/**
 * `n` is absent from instances of before it was announced (a rolling deploy): their list is all
 * that is known of them, so their count is its length. Those instances read this payload too: a
 * zod object drops keys it does not know. A count below the list's distinct members is
 * malformed, like any other wrong field: the whole announcement is ignored.
 */
const PresencePayloadSchema = z
  .object({
    i: z.string(),
    g: z.string(),
    n: z.number().int().nonnegative().optional(),
    m: z.array(PresenceMemberSchema),
  })
  .refine(
    (payload) =>
      payload.n === undefined || payload.n >= new Set(payload.m.map((member) => member.id)).size,
  );

export function decodePresence(payload: string): PresenceAnnouncement | null {
  try {
    const parsed = PresencePayloadSchema.safeParse(JSON.parse(payload));
    if (!parsed.success) return null;
    const { i, g, n, m } = parsed.data;
    return { instanceId: i, groupId: g, members: m, count: n ?? m.length };
  } catch {
    return null;
  }
}
