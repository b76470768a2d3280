/**
 * Cross-instance announcements (PostgreSQL NOTIFY payloads stay under 8,000 bytes): a batch's
 * changes are split, and a change too large on its own travels as a reference. A hot counter
 * tapped thousands of times in one batch makes one change with thousands of operation ids: it
 * must still be announced (without the ids), never fail the commit that made it.
 */
import { describe, expect, it } from 'vitest';
import {
  MAX_PAYLOAD_BYTES,
  decodeAnnouncement,
  encodeAnnouncements,
} from '../../src/server/bus/notify.js';
import type { Change } from '../../src/shared/protocol.js';
import { noPurpose } from '../helpers/fixtures.js';

const counter = {
  id: 'c1',
  name: 'Coffees',
  description: '',
  value: 2_000,
  incrementStep: 1,
  decrementStep: 1,
  thumbnailUrl: null,
  ...noPurpose(2_000),
  createdAt: '2026-11-23T00:00:00.000Z',
  version: 7,
};

const updated = (opIds: string[]): Change => ({ type: 'counter.updated', seq: 7, opIds, counter });

describe('announcements over NOTIFY', () => {
  it('keeps a change and its operation ids when they fit', () => {
    const [payload, ...rest] = encodeAnnouncements({ instanceId: 'i1', groupId: 'g1' }, [
      updated(['a', 'b']),
    ]);
    expect(rest).toEqual([]);
    expect(decodeAnnouncement(payload ?? '')?.c).toEqual([updated(['a', 'b'])]);
  });

  it('announces a change with thousands of operation ids as a reference without them', () => {
    const opIds = Array.from({ length: 2_000 }, (_, i) => `tab-1234567_${i}`);
    const payloads = encodeAnnouncements({ instanceId: 'i1', groupId: 'g1' }, [updated(opIds)]);
    expect(payloads).toHaveLength(1);
    for (const payload of payloads) {
      expect(Buffer.byteLength(payload)).toBeLessThanOrEqual(MAX_PAYLOAD_BYTES);
    }
    const announcement = decodeAnnouncement(payloads[0] ?? '');
    expect(announcement?.c).toEqual([]);
    expect(announcement?.r).toEqual([{ type: 'counter.updated', seq: 7, counterId: 'c1' }]);
  });

  it('says when it was sent, ms since the epoch, in every payload (the receivers measure the lag)', () => {
    const opIds = Array.from({ length: 2_000 }, (_, i) => `tab-1234567_${i}`);
    const sentAt = 1_795_000_000_123;
    const changes = [updated(['a']), updated(opIds), updated(['b'])];
    const payloads = encodeAnnouncements({ instanceId: 'i1', groupId: 'g1', sentAt }, changes);
    expect(payloads.length).toBeGreaterThan(1);
    for (const payload of payloads) {
      expect(Buffer.byteLength(payload)).toBeLessThanOrEqual(MAX_PAYLOAD_BYTES);
      expect(decodeAnnouncement(payload)?.t).toBe(sentAt);
    }
    const now = Date.now();
    const [fresh] = encodeAnnouncements({ instanceId: 'i1', groupId: 'g1' }, [updated(['a'])]);
    expect(decodeAnnouncement(fresh ?? '')?.t).toBeGreaterThanOrEqual(now);
  });

  it('still reads payloads without a time (instances older than the bus-lag metric) or with a malformed one', () => {
    const old = JSON.stringify({ i: 'i1', g: 'g1', c: [updated(['a'])] });
    expect(decodeAnnouncement(old)).toEqual({ i: 'i1', g: 'g1', c: [updated(['a'])] });
    const malformed = JSON.stringify({ i: 'i1', g: 'g1', t: 'yesterday', c: [updated(['a'])] });
    expect(decodeAnnouncement(malformed)).toEqual({ i: 'i1', g: 'g1', c: [updated(['a'])] });
  });
});
