/**
 * Alerts end to end, on each store: a real server (loopback destinations allowed, as on an
 * intranet) sends to real HTTP receivers on loopback. Rules fire once per crossing, webhooks are
 * signed as Standard Webhooks say, failures are retried with the same id until delivered, and
 * every bound and refusal of the API holds.
 */
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  MAX_ALERT_DESTINATIONS_PER_GROUP,
  MAX_ALERT_RULES_PER_GROUP,
  type AlertCreated,
  type AlertEventBody,
  type AlertList,
} from '../../src/shared/alerts.js';
import { call, createGroup } from '../helpers/client.js';
import { closeReceivers, startReceiver, type Receiver } from '../helpers/receiver.js';
import { storeBackends } from '../helpers/postgres.js';
import { startServer, type TestServer } from '../helpers/server.js';

const LOOPBACK_ALLOWED = {
  allowPrivateTargets: true,
  publicUrl: 'https://tally.example',
  pushContact: 'mailto:ops@tally.example',
};

/** Resolves once `check` holds, polling every 20 ms; fails after `ms`. */
async function eventually(check: () => boolean, ms = 10_000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const bodiesOf = (receiver: Receiver) =>
  receiver.requests.map((request) => JSON.parse(request.text) as AlertEventBody);

afterEach(async () => {
  await closeReceivers();
});

describe.each(storeBackends())('alerts on %s', (_name, database) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({
      database: database(),
      alerts: LOOPBACK_ALLOWED,
      alertRetryFirstMs: 100,
      logLevel: 'warn',
    });
  });
  afterAll(async () => {
    await server.close();
  });

  async function addRule(
    group: { base: string; key: string },
    rule: Record<string, unknown>,
  ): Promise<AlertCreated> {
    const answer = await call<AlertCreated>(server.url, 'POST', `${group.base}/alerts`, {
      key: group.key,
      body: rule,
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    return answer.body;
  }

  it('a rule fires exactly once per crossing under 200 concurrent taps, signed as Standard Webhooks say', async () => {
    const receiver = await startReceiver();
    const group = await createGroup(server.url);
    const counter = await group.addCounter({ name: 'Visitors' });
    const created = await addRule(group, {
      counterId: counter.id,
      when: { kind: 'reaches', value: 100 },
      to: { kind: 'webhook', url: `${receiver.origin}/hook`, format: 'standard' },
    });
    expect(created.secret).toMatch(/^whsec_/);
    expect(created.rule.destination).toMatchObject({
      kind: 'webhook',
      host: `127.0.0.1:${String(receiver.port)}`,
    });
    expect(JSON.stringify(created.rule)).not.toContain('/hook');

    await Promise.all(
      Array.from({ length: 200 }, (_, index) =>
        call(server.url, 'POST', `${group.base}/counters/${counter.id}/increment`, {
          key: group.key,
          headers: { 'tally-member': `Tapper ${String(index % 5)}` },
        }),
      ),
    );
    await eventually(() => receiver.requests.length >= 1);
    await pause(500);
    expect(receiver.requests).toHaveLength(1);
    const [request] = receiver.requests;
    const body = new Webhook(created.secret ?? '').verify(request?.text ?? '', {
      'webhook-id': String(request?.headers['webhook-id']),
      'webhook-timestamp': String(request?.headers['webhook-timestamp']),
      'webhook-signature': String(request?.headers['webhook-signature']),
    }) as AlertEventBody;
    expect(body).toMatchObject({
      type: 'counter.reached',
      group: group.group.name,
      counter: { id: counter.id, name: 'Visitors', value: 100 },
      rule: { id: created.rule.id, when: { kind: 'reaches', value: 100 } },
    });
    expect(body.by).toMatch(/^Tapper \d$/);
    expect(Date.parse(body.at)).not.toBeNaN();

    // Away and back is a new crossing; staying on the same side is not.
    await call(server.url, 'PATCH', `${group.base}/counters/${counter.id}`, {
      key: group.key,
      body: { value: 50 },
    });
    await call(server.url, 'PATCH', `${group.base}/counters/${counter.id}`, {
      key: group.key,
      body: { value: 150 },
    });
    await call(server.url, 'POST', `${group.base}/counters/${counter.id}/increment`, {
      key: group.key,
    });
    await eventually(() => receiver.requests.length >= 2);
    await pause(300);
    expect(bodiesOf(receiver).map((event) => event.counter.value)).toEqual([100, 150]);
    const list = await call<AlertList>(server.url, 'GET', `${group.base}/alerts`, {
      key: group.key,
    });
    expect(list.body.rules[0]?.destination.state).toBe('ok');
  });

  it('every N, falling to a value and the goal each fire once per crossing', async () => {
    const receiver = await startReceiver();
    const group = await createGroup(server.url);
    const counter = await group.addCounter({ name: 'Push-ups', goal: 30 });
    const url = `${receiver.origin}/all`;
    const to = { kind: 'webhook', url, format: 'standard' };
    await addRule(group, { when: { kind: 'every', value: 10 }, to });
    await addRule(group, { when: { kind: 'goal' }, to });
    await addRule(group, { counterId: counter.id, when: { kind: 'fallsTo', value: 5 }, to });
    await Promise.all(
      Array.from({ length: 35 }, () =>
        call(server.url, 'POST', `${group.base}/counters/${counter.id}/increment`, {
          key: group.key,
        }),
      ),
    );
    await call(server.url, 'PATCH', `${group.base}/counters/${counter.id}`, {
      key: group.key,
      body: { value: 0 },
    });
    await eventually(() => receiver.requests.length >= 5);
    await pause(300);
    const events = bodiesOf(receiver).map((event) =>
      event.type === 'counter.every' ? `every ${String(event.multiple)}` : event.type,
    );
    // In order per destination: as the changes happened.
    expect(events).toEqual(['every 10', 'every 20', 'every 30', 'counter.goal', 'counter.fell']);
    // One destination however many rules send to it, so one secret, one signature key.
    const ids = new Set(receiver.requests.map((request) => request.headers['webhook-id']));
    expect(ids.size).toBe(5);
  });

  it('a receiver that fails 3 times then succeeds gets the alert once more after each failure, then no more', async () => {
    let failures = 3;
    const receiver = await startReceiver((response) => {
      if (failures > 0) {
        failures -= 1;
        response.writeHead(500).end('not now');
      } else {
        response.writeHead(200).end('ok');
      }
    });
    const group = await createGroup(server.url);
    const counter = await group.addCounter({ name: 'Retries' });
    const created = await addRule(group, {
      counterId: counter.id,
      when: { kind: 'reaches', value: 1 },
      to: { kind: 'webhook', url: receiver.origin, format: 'standard' },
    });
    await call(server.url, 'POST', `${group.base}/counters/${counter.id}/increment`, {
      key: group.key,
    });
    await eventually(() => receiver.requests.length >= 4, 15_000);
    await pause(1_000);
    expect(receiver.requests).toHaveLength(4);
    const ids = new Set(receiver.requests.map((request) => request.headers['webhook-id']));
    expect(ids.size).toBe(1);
    const log = await call<{ deliveries: { outcome: string; status: number; attempt: number }[] }>(
      server.url,
      'GET',
      `${group.base}/alerts/${created.rule.id}/deliveries`,
      { key: group.key },
    );
    expect(
      log.body.deliveries.map(({ outcome, status, attempt }) => [outcome, status, attempt]),
    ).toEqual([
      ['delivered', 200, 4],
      ['failed', 500, 3],
      ['failed', 500, 2],
      ['failed', 500, 1],
    ]);
  });

  it('Slack, Discord and ntfy get their own formats; Send test sends one marked as a test', async () => {
    const receiver = await startReceiver();
    const group = await createGroup(server.url);
    const counter = await group.addCounter({ name: 'Hall', max: 10 });
    const formats = ['slack', 'discord', 'ntfy'] as const;
    const rules = [];
    for (const format of formats) {
      rules.push(
        await addRule(group, {
          counterId: counter.id,
          when: { kind: 'capacity', state: 'full' },
          to: { kind: 'webhook', url: `${receiver.origin}/${format}`, format },
        }),
      );
    }
    expect(rules.every((rule) => rule.secret === undefined)).toBe(true);
    await call(server.url, 'PATCH', `${group.base}/counters/${counter.id}`, {
      key: group.key,
      body: { value: 10 },
    });
    await eventually(() => receiver.requests.length >= 3);
    const byPath = new Map(receiver.requests.map((request) => [request.url, request]));
    const slack = JSON.parse(byPath.get('/slack')?.text ?? '{}') as { text: string };
    expect(slack.text).toContain('Hall is full (now 10)');
    const discord = JSON.parse(byPath.get('/discord')?.text ?? '{}') as { content: string };
    expect(discord.content).toContain('Hall is full');
    expect(byPath.get('/ntfy')?.text).toContain('Hall is full');
    expect(byPath.get('/ntfy')?.headers.title).toBeDefined();

    const slackRule = rules[0]?.rule.id ?? '';
    const test = await call<{ delivery: { outcome: string; test: boolean; status: number } }>(
      server.url,
      'POST',
      `${group.base}/alerts/${slackRule}/test`,
      { key: group.key },
    );
    expect(test.status).toBe(200);
    expect(test.body.delivery).toMatchObject({ outcome: 'delivered', test: true, status: 204 });
    expect(receiver.requests).toHaveLength(4);
  });

  it('refuses private addresses without the setting, a name resolving to 127.0.0.1 included', async () => {
    const strict = await startServer({ database: database(), logLevel: 'warn' });
    try {
      const receiver = await startReceiver();
      const group = await createGroup(strict.url);
      for (const url of [
        `http://127.0.0.1:${String(receiver.port)}/`,
        `https://localhost:${String(receiver.port)}/`,
        'https://169.254.169.254/latest/meta-data',
        'https://10.1.2.3/hook',
      ]) {
        const answer = await call<{ error: { code: string; message: string } }>(
          strict.url,
          'POST',
          `${group.base}/alerts`,
          {
            key: group.key,
            body: { when: { kind: 'goal' }, to: { kind: 'webhook', url, format: 'standard' } },
          },
        );
        expect(answer.status, url).toBe(422);
        expect(answer.body.error.code).toBe('destination_refused');
      }
      expect(receiver.connections()).toBe(0);
    } finally {
      await strict.close();
    }
  });

  it('holds its bounds: 20 rules, 10 destinations; unknown counters and rules are refused', async () => {
    const group = await createGroup(server.url);
    const receiver = await startReceiver();
    for (let index = 0; index < MAX_ALERT_DESTINATIONS_PER_GROUP; index += 1) {
      await addRule(group, {
        when: { kind: 'every', value: index + 1 },
        to: { kind: 'webhook', url: `${receiver.origin}/${String(index)}`, format: 'ntfy' },
      });
    }
    const eleventh = await call<{ error: { code: string } }>(
      server.url,
      'POST',
      `${group.base}/alerts`,
      {
        key: group.key,
        body: {
          when: { kind: 'goal' },
          to: { kind: 'webhook', url: `${receiver.origin}/x`, format: 'ntfy' },
        },
      },
    );
    expect(eleventh.status).toBe(409);
    expect(eleventh.body.error.code).toBe('too_many_alerts');
    for (
      let index = MAX_ALERT_DESTINATIONS_PER_GROUP;
      index < MAX_ALERT_RULES_PER_GROUP;
      index += 1
    ) {
      await addRule(group, {
        when: { kind: 'every', value: index + 1 },
        to: { kind: 'webhook', url: `${receiver.origin}/0`, format: 'ntfy' },
      });
    }
    const over = await call<{ error: { code: string } }>(
      server.url,
      'POST',
      `${group.base}/alerts`,
      {
        key: group.key,
        body: {
          when: { kind: 'goal' },
          to: { kind: 'webhook', url: `${receiver.origin}/0`, format: 'ntfy' },
        },
      },
    );
    expect(over.status).toBe(409);
    const list = await call<AlertList>(server.url, 'GET', `${group.base}/alerts`, {
      key: group.key,
    });
    expect(list.body.rules).toHaveLength(MAX_ALERT_RULES_PER_GROUP);

    const other = await createGroup(server.url);
    const unknownCounter = await call<{ error: { code: string } }>(
      server.url,
      'POST',
      `${other.base}/alerts`,
      {
        key: other.key,
        body: { counterId: 'nope', when: { kind: 'goal' }, to: { kind: 'push' } },
      },
    );
    expect(unknownCounter.status).toBe(404);
    expect(unknownCounter.body.error.code).toBe('counter_not_found');
    const missing = await call<{ error: { code: string } }>(
      server.url,
      'DELETE',
      `${other.base}/alerts/nope`,
      {
        key: other.key,
      },
    );
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('alert_not_found');
    const invalid = await call<{ error: { code: string; message: string } }>(
      server.url,
      'POST',
      `${other.base}/alerts`,
      {
        key: other.key,
        body: { counterId: 'a', section: 'b', when: { kind: 'goal' }, to: { kind: 'push' } },
      },
    );
    expect(invalid.status).toBe(400);
    expect(invalid.body.error.message).toContain('not both');
  });

  it('view-only keys can neither see nor change alerts; a new key keeps them; a deleted counter takes its rules', async () => {
    const group = await createGroup(server.url);
    const counter = await group.addCounter({ name: 'Gone soon' });
    const kept = await group.addCounter({ name: 'Stays' });
    await addRule(group, { counterId: counter.id, when: { kind: 'goal' }, to: { kind: 'push' } });
    await addRule(group, { counterId: kept.id, when: { kind: 'goal' }, to: { kind: 'push' } });
    const view = await call<{ viewKey: string }>(server.url, 'POST', `${group.base}/view-key`, {
      key: group.key,
    });
    for (const [method, path] of [
      ['GET', `${group.base}/alerts`],
      ['POST', `${group.base}/alerts`],
    ] as const) {
      const answer = await call<{ error: { code: string } }>(server.url, method, path, {
        key: view.body.viewKey,
        body: method === 'POST' ? { when: { kind: 'goal' }, to: { kind: 'push' } } : undefined,
      });
      expect(answer.status).toBe(403);
      expect(answer.body.error.code).toBe('read_only');
    }
    // The JSON export holds the rules for the access key only.
    const exported = await call<{ alerts?: AlertList['rules'] }>(
      server.url,
      'GET',
      `${group.base}/export?format=json`,
      { key: group.key },
    );
    expect(exported.body.alerts?.map((rule) => rule.counterId)).toEqual([counter.id, kept.id]);
    const viewExport = await call<{ alerts?: unknown }>(
      server.url,
      'GET',
      `${group.base}/export?format=json`,
      { key: view.body.viewKey },
    );
    expect(viewExport.status).toBe(200);
    expect(viewExport.body.alerts).toBeUndefined();
    const newKey = 'b'.repeat(64);
    const rotated = await call(server.url, 'POST', `${group.base}/key`, {
      key: group.key,
      body: { key: newKey },
    });
    expect(rotated.status).toBe(200);
    await call(server.url, 'DELETE', `${group.base}/counters/${counter.id}`, { key: newKey });
    const list = await call<AlertList>(server.url, 'GET', `${group.base}/alerts`, { key: newKey });
    expect(list.body.rules.map((rule) => rule.counterId)).toEqual([kept.id]);
  });
});
