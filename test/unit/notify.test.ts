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

const counter = {
  id: 'c1',
  name: 'Coffees',
  description: '',
  value: 2_000,
  incrementStep: 1,
  decrementStep: 1,
  thumbnailUrl: null,
  createdAt: '2026-11-23T00:00:00.000Z',
  version: 7,
};

const updated = (opIds: string[]): Change => ({ type: 'counter.updated', seq: 7, opIds, counter });

describe('announcements over NOTIFY', () => {
  it('keeps a change and its operation ids when they fit', () => {
    const [payload, ...rest] = encodeAnnouncements('i1', 'g1', [updated(['a', 'b'])]);
    expect(rest).toEqual([]);
    expect(decodeAnnouncement(payload ?? '')?.c).toEqual([updated(['a', 'b'])]);
  });

  it('announces a change with thousands of operation ids as a reference without them', () => {
    const opIds = Array.from({ length: 2_000 }, (_, i) => `tab-1234567_${i}`);
    const payloads = encodeAnnouncements('i1', 'g1', [updated(opIds)]);
    expect(payloads).toHaveLength(1);
    for (const payload of payloads) {
      expect(Buffer.byteLength(payload)).toBeLessThanOrEqual(MAX_PAYLOAD_BYTES);
    }
    const announcement = decodeAnnouncement(payloads[0] ?? '');
    expect(announcement?.c).toEqual([]);
    expect(announcement?.r).toEqual([{ type: 'counter.updated', seq: 7, counterId: 'c1' }]);
  });
});
