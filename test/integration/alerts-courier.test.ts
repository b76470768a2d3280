/**
 * The alert courier in its worker thread (src/server/alerts/courier-thread.ts): what a
 * destination receives is what the sender asked for, written, signed and sent by the worker
 * over one kept connection, with the same safety checks as on the server's own thread. The
 * receivers are real HTTP servers on loopback.
 */
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { alertRuleSummary, type AlertEventBody } from '../../src/shared/alerts.js';
import { ThreadCourier } from '../../src/server/alerts/courier-thread.js';
import type { WebhookParcel } from '../../src/server/alerts/courier.js';
import { newWebhookSecret } from '../../src/server/alerts/formats.js';
import { closeReceivers, startReceiver, type Receiver } from '../helpers/receiver.js';

afterEach(closeReceivers);

const event: AlertEventBody = {
  type: 'counter.reached',
  group: 'game-night',
  by: 'Ada',
  at: '2026-11-27T18:30:00.000Z',
  counter: { id: 'c1', name: 'Visitors', value: 200 },
  rule: alertRuleSummary({
    id: 'rule-1',
    counterId: null,
    section: null,
    when: { kind: 'reaches', value: 200 },
    to: { kind: 'webhook', url: 'https://hooks.example/secret-path', format: 'standard' },
  }),
};

function parcel(receiver: Receiver, secret: string, id = 'alert_1'): WebhookParcel {
  return {
    key: 'group-1/destination-1',
    attempt: {
      id,
      event,
      groupName: 'Game night',
      groupUrl: 'https://tally.example/game-night',
      target: { format: 'standard', url: `${receiver.origin}/hook`, secret },
    },
  };
}

describe('the alert courier in its worker thread', () => {
  it('sends signed alerts that verify, over one kept connection', async () => {
    const receiver = await startReceiver();
    const secret = newWebhookSecret();
    const courier = new ThreadCourier({ allowPrivate: true, timeoutMs: 5_000 });
    try {
      const first = await courier.webhook(parcel(receiver, secret, 'alert_1'));
      const second = await courier.webhook(parcel(receiver, secret, 'alert_2'));
      expect(first).toMatchObject({ ok: true, status: 204 });
      expect(second).toMatchObject({ ok: true, status: 204 });
      expect(receiver.requests.map((request) => request.headers['webhook-id'])).toEqual([
        'alert_1',
        'alert_2',
      ]);
      for (const request of receiver.requests) {
        const headers = request.headers as Record<string, string>;
        expect(new Webhook(secret).verify(request.body, headers)).toEqual(event);
      }
      expect(receiver.connections()).toBe(1);
    } finally {
      await courier.close();
    }
  });

  it('hands alerts asked for together to the worker at once, and answers each with its own result', async () => {
    // Each destination answers with its own status: a result given to the wrong alert would show.
    const statuses = [204, 500, 202, 404, 200];
    const receivers = await Promise.all(
      statuses.map((status) =>
        startReceiver((response) => {
          response.writeHead(status).end();
        }),
      ),
    );
    const secret = newWebhookSecret();
    const courier = new ThreadCourier({ allowPrivate: true, timeoutMs: 5_000 });
    try {
      const results = await Promise.all(
        receivers.map((receiver, index) =>
          courier.webhook({
            ...parcel(receiver, secret, `alert_${String(index)}`),
            key: `group-1/destination-${String(index)}`,
          }),
        ),
      );
      expect(results.map((result) => result.status)).toEqual(statuses);
      expect(results.map((result) => result.ok)).toEqual([true, false, true, false, true]);
      receivers.forEach((receiver, index) => {
        expect(receiver.requests.map((request) => request.headers['webhook-id'])).toEqual([
          `alert_${String(index)}`,
        ]);
      });
    } finally {
      await courier.close();
    }
  });

  it('refuses a loopback destination without the setting, before connecting', async () => {
    const receiver = await startReceiver();
    const courier = new ThreadCourier({ allowPrivate: false, timeoutMs: 5_000 });
    try {
      const result = await courier.webhook(parcel(receiver, newWebhookSecret()));
      expect(result).toMatchObject({ ok: false, code: 'destination_refused' });
      expect(receiver.connections()).toBe(0);
    } finally {
      await courier.close();
    }
  });

  it('rejects an attempt it cannot write, with the reason, and goes on sending', async () => {
    const receiver = await startReceiver();
    const secret = newWebhookSecret();
    const courier = new ThreadCourier({ allowPrivate: true, timeoutMs: 5_000 });
    try {
      await expect(courier.webhook(parcel(receiver, secret, 'an id with spaces'))).rejects.toThrow(
        'A webhook id is 1 to 255 printable characters',
      );
      expect(await courier.webhook(parcel(receiver, secret))).toMatchObject({ ok: true });
      expect(receiver.requests).toHaveLength(1);
    } finally {
      await courier.close();
    }
  });

  it('starts a new worker for the next alert once closed, with a new connection', async () => {
    const receiver = await startReceiver();
    const secret = newWebhookSecret();
    const courier = new ThreadCourier({ allowPrivate: true, timeoutMs: 5_000 });
    try {
      expect(await courier.webhook(parcel(receiver, secret, 'alert_1'))).toMatchObject({
        ok: true,
      });
      await courier.close();
      expect(await courier.webhook(parcel(receiver, secret, 'alert_2'))).toMatchObject({
        ok: true,
      });
      expect(receiver.requests).toHaveLength(2);
      expect(receiver.connections()).toBe(2);
    } finally {
      await courier.close();
    }
  });

  it('starts its worker when warmed, before any alert, and sends on that worker', async () => {
    const receiver = await startReceiver();
    const courier = new ThreadCourier({ allowPrivate: true, timeoutMs: 5_000 });
    try {
      expect(courier.started).toBe(false);
      courier.warm();
      expect(courier.started).toBe(true);
      courier.warm();
      expect(await courier.webhook(parcel(receiver, newWebhookSecret(), 'alert_1'))).toMatchObject({
        ok: true,
      });
      await courier.close();
      expect(courier.started).toBe(false);
    } finally {
      await courier.close();
    }
  });
});
