/**
 * Refusals at the edge are logged once per address and reason per minute
 * (src/server/security/refusal-log.ts), with only the address and reason, and the record of what
 * was logged stays bounded however many addresses are refused.
 */
import type { FastifyBaseLogger } from 'fastify';
import { describe, expect, it } from 'vitest';
import { REFUSAL_LOG_EVERY_MS, RefusalLog } from '../../src/server/security/refusal-log.js';

function capture() {
  const lines: unknown[] = [];
  const log = { warn: (object: unknown) => lines.push(object) } as unknown as FastifyBaseLogger;
  return { lines, log };
}

describe('RefusalLog', () => {
  it('logs an address once a minute per reason', () => {
    let now = 0;
    const { lines, log } = capture();
    const refusals = new RefusalLog(REFUSAL_LOG_EVERY_MS, 100, () => now);
    refusals.useLogger(log);
    for (let i = 0; i < 50; i++) refusals.note('127.0.0.1', 'too_many_connections');
    refusals.note('127.0.0.1', 'request_timeout');
    refusals.note('127.0.0.2', 'too_many_connections');
    expect(lines).toEqual([
      { address: '127.0.0.1', reason: 'too_many_connections' },
      { address: '127.0.0.1', reason: 'request_timeout' },
      { address: '127.0.0.2', reason: 'too_many_connections' },
    ]);
    now += REFUSAL_LOG_EVERY_MS - 1;
    refusals.note('127.0.0.1', 'too_many_connections');
    expect(lines).toHaveLength(3);
    now += 1;
    refusals.note('127.0.0.1', 'too_many_connections');
    expect(lines).toHaveLength(4);
  });

  it('remembers a bounded number of addresses', () => {
    const { lines, log } = capture();
    const refusals = new RefusalLog(REFUSAL_LOG_EVERY_MS, 100, () => 0);
    refusals.useLogger(log);
    for (let i = 0; i < 10_000; i++)
      refusals.note(`10.0.${i >> 8}.${i & 255}`, 'too_many_connections');
    expect(refusals.size).toBeLessThanOrEqual(100);
    expect(lines).toHaveLength(10_000);
  });
});
