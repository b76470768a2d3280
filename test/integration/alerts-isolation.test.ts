/**
 * One group at the bounds of its alerts holds back only its own alerts, on each store: a real
 * server sends to real receivers on loopback. While one group's receiver keeps a request
 * unanswered and more than 100 of its alerts wait behind it, or while the group has spent its
 * minute of deliveries, another group's taps are all answered and its alerts arrive. The
 * assertions are on what happened before what (the other group's alerts arrive while the first
 * group's request is still held), never on how long anything took.
 */
import type http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ALERT_DELIVERIES_PER_MINUTE_PER_GROUP,
  type AlertCreated,
  type AlertEventBody,
} from '../../src/shared/alerts.js';
import { call, createGroup } from '../helpers/client.js';
import { storeBackends } from '../helpers/postgres.js';
import { closeReceivers, startReceiver, type Receiver } from '../helpers/receiver.js';
import { startServer, type TestServer } from '../helpers/server.js';

const LOOPBACK_ALLOWED = {
  allowPrivateTargets: true,
  publicUrl: 'https://tally.example',
  pushContact: 'mailto:ops@tally.example',
};

/** Resolves once `check` holds, polling every 20 ms; fails after `ms`. */
async function eventually(check: () => boolean | Promise<boolean>, ms = 15_000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

afterEach(async () => {
  await closeReceivers();
});

/** A group with one counter and a `standard` rule firing at every tap, sent to `receiver`. */
async function groupAlertingEveryTap(server: TestServer, receiver: Receiver) {
  const group = await createGroup(server.url);
  const counter = await group.addCounter({ name: 'Taps' });
  const created = await call<AlertCreated>(server.url, 'POST', `${group.base}/alerts`, {
    key: group.key,
    body: {
      counterId: counter.id,
      when: { kind: 'every', value: 1 },
      to: { kind: 'webhook', url: `${receiver.origin}/hook`, format: 'standard' },
    },
  });
  expect(created.status).toBe(201);
  /** Taps the counter `times` times at once; resolves with each answer's status. */
  const tap = (times: number) =>
    Promise.all(
      Array.from(
        { length: times },
        async () =>
          (
            await call(server.url, 'POST', `${group.base}/counters/${counter.id}/increment`, {
              key: group.key,
            })
          ).status,
      ),
    );
  return { group, rule: created.body.rule, tap };
}

describe.each(storeBackends())('a group at the bounds of its alerts, on %s', (_name, database) => {
  const start = () =>
    startServer({ database: database(), alerts: LOOPBACK_ALLOWED, logLevel: 'warn' });

  it('a receiver that holds its request, with 150 alerts waiting behind it, delays neither another group’s taps nor its alerts', async () => {
    const events: string[] = [];
    const held: http.ServerResponse[] = [];
    const stuck = await startReceiver((response) => {
      held.push(response);
      response.on('close', () => events.push('stuck request closed'));
    });
    const healthy = await startReceiver((response) => {
      events.push('healthy alert arrived');
      response.writeHead(204).end();
    });
    const server = await start();
    try {
      const first = await groupAlertingEveryTap(server, stuck);
      const other = await groupAlertingEveryTap(server, healthy);

      // The first alert is held by the receiver; 150 more wait behind it.
      expect(await first.tap(1)).toEqual([200]);
      await eventually(() => stuck.requests.length === 1);
      expect(await first.tap(150)).toEqual(Array(150).fill(200));
      const { alerts } = server.app.tally.store;
      // 151, or 1 if the sender's compaction (every 10 s) has already folded them.
      expect([151, 1]).toContain(await alerts.pendingCount(first.group.group.id));

      expect(await other.tap(5)).toEqual(Array(5).fill(200));
      await eventually(() => healthy.requests.length === 5);

      // All of it happened while the first group's receiver still held its request.
      expect(events).toEqual(Array(5).fill('healthy alert arrived'));
      expect(stuck.requests).toHaveLength(1);
      const values = healthy.requests.map(
        (request) => (JSON.parse(request.text) as AlertEventBody).counter.value,
      );
      expect(values).toEqual([1, 2, 3, 4, 5]);
    } finally {
      for (const response of held) response.destroy();
      await server.close();
    }
  });

  it('a group that spent its minute of deliveries delays neither another group’s taps nor its alerts', async () => {
    const receiver = await startReceiver();
    const other = await startReceiver();
    const server = await start();
    try {
      const spent = await groupAlertingEveryTap(server, receiver);
      // "Send test" counts in the group's minute like any delivery.
      for (let sent = 0; sent < ALERT_DELIVERIES_PER_MINUTE_PER_GROUP; sent += 1) {
        const test = await call<{ delivery: { outcome: string } }>(
          server.url,
          'POST',
          `${spent.group.base}/alerts/${spent.rule.id}/test`,
          { key: spent.group.key },
        );
        expect(test.body.delivery.outcome).toBe('delivered');
      }
      expect(receiver.requests).toHaveLength(ALERT_DELIVERIES_PER_MINUTE_PER_GROUP);
      expect(await spent.tap(3)).toEqual([200, 200, 200]);

      const healthy = await groupAlertingEveryTap(server, other);
      expect(await healthy.tap(3)).toEqual([200, 200, 200]);
      await eventually(() => other.requests.length === 3);

      // The spent group's alerts still wait for its next minute; nothing more reached it.
      const { alerts } = server.app.tally.store;
      expect(await alerts.pendingCount(spent.group.group.id)).toBeGreaterThan(0);
      expect(receiver.requests).toHaveLength(ALERT_DELIVERIES_PER_MINUTE_PER_GROUP);
    } finally {
      await server.close();
    }
  });
});
