/**
 * A crowd's presence count across instances (ADR 33): each instance announces its members cut to
 * fit one NOTIFY payload and, beside them, how many distinct members it has; the receivers count
 * the union of what is listed plus what each cut list left out. Older instances' announcements
 * (no count) count by their list; malformed ones are ignored.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MAX_PAYLOAD_BYTES, decodePresence, encodePresence } from '../../src/server/bus/notify.js';
import type { Bus, PresenceAnnouncement } from '../../src/server/bus/types.js';
import { presenceFrame } from '../../src/server/live/hub.js';
import { PRESENCE_WINDOW_MS, PresenceBoard } from '../../src/server/live/presence.js';
import { MEMBER_NAME_MAX_LENGTH } from '../../src/shared/limits.js';
import {
  PRESENCE_LIST_MAX,
  ServerMessageSchema,
  type PresenceMember,
} from '../../src/shared/protocol.js';

const byteLength = (text: string) => Buffer.byteLength(text, 'utf8');

/**
 * `count` members with names as long as a member name may be, in several scripts (up to 4 bytes
 * a character).
 */
function crowd(prefix: string, count: number): PresenceMember[] {
  const filler = 'Ω名🙂x'.repeat(MEMBER_NAME_MAX_LENGTH);
  return Array.from({ length: count }, (_m, i) => {
    const label = `${prefix} ${String(i).padStart(4, '0')} `;
    const rest = Array.from(filler)
      .slice(0, MEMBER_NAME_MAX_LENGTH - label.length)
      .join('');
    return { id: `${prefix}-${i}`, name: label + rest };
  });
}

describe('presence announcements over NOTIFY', () => {
  it('keeps every member and says how many when the list fits', () => {
    const members = [
      { id: 'a', name: 'Ada' },
      { id: 'b', name: 'Bob' },
    ];
    expect(decodePresence(encodePresence('i1', 'g1', members))).toEqual({
      instanceId: 'i1',
      groupId: 'g1',
      members,
      count: 2,
    });
  });

  it('cuts a long list to the longest start that fits the payload bound and still counts everyone', () => {
    for (const size of [80, 1_000, 20_000]) {
      const members = crowd('m', size);
      const payload = encodePresence('instance-with-a-long-id', 'group', members);
      expect(byteLength(payload)).toBeLessThanOrEqual(MAX_PAYLOAD_BYTES);
      const decoded = decodePresence(payload);
      expect(decoded?.count).toBe(size);
      const kept = decoded?.members.length ?? 0;
      expect(kept).toBeGreaterThan(0);
      expect(kept).toBeLessThan(size);
      expect(decoded?.members).toEqual(members.slice(0, kept));
      // The longest start: one more member would not fit.
      const oneMore = JSON.stringify({
        i: 'instance-with-a-long-id',
        g: 'group',
        n: size,
        m: members.slice(0, kept + 1),
      });
      expect(byteLength(oneMore)).toBeGreaterThan(MAX_PAYLOAD_BYTES);
    }
  });

  it("reads an older instance's announcement without a count as counting its list", () => {
    const members = [{ id: 'a', name: 'Ada' }];
    expect(decodePresence(JSON.stringify({ i: 'old', g: 'g1', m: members }))).toEqual({
      instanceId: 'old',
      groupId: 'g1',
      members,
      count: 1,
    });
  });

  it('ignores malformed announcements, a count below the listed members among them', () => {
    const ada = { id: 'a', name: 'Ada' };
    const bob = { id: 'b', name: 'Bob' };
    for (const payload of [
      'not json',
      'null',
      '[]',
      JSON.stringify({ i: 'x', g: 'g', n: 1, m: [ada, bob] }),
      JSON.stringify({ i: 'x', g: 'g', n: -1, m: [] }),
      JSON.stringify({ i: 'x', g: 'g', n: 2.5, m: [ada] }),
      JSON.stringify({ i: 'x', g: 'g', n: '3', m: [ada] }),
      JSON.stringify({ i: 'x', g: 'g', n: 3, m: [{ id: 'not valid!', name: 'Eve' }] }),
      JSON.stringify({ i: 'x', n: 3, m: [ada] }),
      JSON.stringify({ i: 'x', g: 'g', n: 3 }),
    ]) {
      expect(decodePresence(payload)).toBeNull();
    }
    // The same member listed twice is one member: a count of one is not below it.
    expect(decodePresence(JSON.stringify({ i: 'x', g: 'g', n: 1, m: [ada, ada] }))?.count).toBe(1);
  });
});

describe("a group's count across instances", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  /** A board hearing other instances; `published` is what it announces itself. */
  function board() {
    const listeners: ((announcement: PresenceAnnouncement) => void)[] = [];
    const published: PresenceMember[][] = [];
    const bus = {
      publishPresence: (_groupId: string, members: () => readonly PresenceMember[]) => {
        published.push(structuredClone([...members()]));
      },
      onPresence: (listener: (announcement: PresenceAnnouncement) => void) => {
        listeners.push(listener);
        return () => undefined;
      },
    } as unknown as Bus;
    const presence = new PresenceBoard(bus, () => undefined);
    const hear = (instanceId: string, members: PresenceMember[], count: number) => {
      for (const listener of listeners) listener({ instanceId, groupId: 'g', members, count });
    };
    return { presence, hear, published };
  }

  it('adds the members each cut list left out to the distinct members listed', () => {
    const { presence, hear } = board();
    presence.join('g', {}, { id: 'x', name: 'Xi' });
    hear(
      'a',
      [
        { id: 'a1', name: 'A1' },
        { id: 'shared', name: 'Sam' },
      ],
      80,
    );
    hear(
      'b',
      [
        { id: 'b1', name: 'B1' },
        { id: 'shared', name: 'Sam' },
      ],
      70,
    );
    // Listed: x, a1, b1, shared (4); left out: 78 of a's, 68 of b's.
    const { members, count } = presence.presenceOf('g');
    expect(members.map((m) => m.id)).toEqual(['a1', 'b1', 'shared', 'x']);
    expect(count).toBe(4 + 78 + 68);
    presence.close();
  });

  it('counts a member on several instances once when every list holds them, as whole lists always do', () => {
    const { presence, hear } = board();
    presence.join('g', {}, { id: 'both', name: 'Bo' });
    presence.join('g', {}, { id: 'here', name: 'Hy' });
    hear(
      'a',
      [
        { id: 'both', name: 'Bo' },
        { id: 'there', name: 'Ty' },
      ],
      2,
    );
    expect(presence.presenceOf('g').count).toBe(3);
    presence.close();
  });

  it('counts a member left out of cut lists once per instance leaving them out, never fewer than are here', () => {
    const { presence, hear } = board();
    presence.join('g', {}, { id: 'both', name: 'Bo' });
    // "both" is on a too, left out of its cut list: a's 2 are counted as 1 listed and 1 more.
    hear('a', [{ id: 'a1', name: 'A1' }], 2);
    expect(presence.presenceOf('g').count).toBe(3);
    presence.close();
  });

  it('puts first in its own announcement the members other instances list, then the rest by name', () => {
    const { presence, hear, published } = board();
    hear('a', [{ id: 'zed', name: 'Zed' }], 40);
    presence.join('g', {}, { id: 'cy', name: 'Cy' });
    presence.join('g', {}, { id: 'zed', name: 'Zed' });
    presence.join('g', {}, { id: 'amy', name: 'Amy' });
    presence.join('g', {}, { id: 'cy', name: 'Cy' });
    vi.advanceTimersByTime(PRESENCE_WINDOW_MS);
    expect(published.at(-1)?.map((m) => m.id)).toEqual(['zed', 'amy', 'cy']);
    presence.close();
  });

  it('stops counting an instance that announces nobody is left', () => {
    const { presence, hear } = board();
    hear('a', [{ id: 'a1', name: 'A1' }], 500);
    expect(presence.presenceOf('g').count).toBe(500);
    hear('a', [], 0);
    expect(presence.presenceOf('g')).toEqual({ members: [], count: 0 });
    presence.close();
  });
});

describe('the presence message', () => {
  const parse = (frame: string) => ServerMessageSchema.parse(JSON.parse(frame));

  it('lists everyone without a count when all are listed', () => {
    const members = crowd('m', 3);
    expect(parse(presenceFrame({ members, count: 3 }))).toEqual({ type: 'presence', members });
  });

  it('says how many there are when fewer are listed, under the list bound too', () => {
    const members = crowd('m', 3);
    expect(parse(presenceFrame({ members, count: 150 }))).toEqual({
      type: 'presence',
      members,
      count: 150,
    });
    const many = crowd('m', PRESENCE_LIST_MAX + 1);
    expect(parse(presenceFrame({ members: many, count: many.length }))).toEqual({
      type: 'presence',
      members: many.slice(0, PRESENCE_LIST_MAX),
      count: many.length,
    });
  });
});
