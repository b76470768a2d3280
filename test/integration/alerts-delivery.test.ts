/**
 * How alerts are delivered when things go wrong or get busy, with real receivers on loopback:
 *
 * - the server is killed (SIGKILL) while its first attempt waits for an answer: after the
 *   restart the alert is sent again, with the same webhook id, and then never again;
 * - two instances on one PostgreSQL database send each alert once;
 * - a group past its minute's deliveries has its waiting alerts folded into one (`folded`);
 * - Web Push reaches a subscribed browser encrypted, and the browser can read it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import type http from 'node:http';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  ALERT_DELIVERIES_PER_MINUTE_PER_GROUP,
  type AlertCreated,
  type AlertEventBody,
} from '../../src/shared/alerts.js';
import { AlertSender } from '../../src/server/alerts/sender.js';
import { newVapidKeys } from '../../src/server/alerts/push.js';
import { SqliteStore } from '../../src/server/store/sqlite/store.js';
import { groupAlertingEveryTap } from '../helpers/alerts.js';
import { call, createGroup, newKey } from '../helpers/client.js';
import {
  dropSchemas,
  postgresDatabase,
  postgresUrl,
  storeBackends,
  uniqueSchema,
} from '../helpers/postgres.js';
import { closeReceivers, startReceiver } from '../helpers/receiver.js';
import { startServer } from '../helpers/server.js';
import { freePort } from '../../bench/targets.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const LOOPBACK_ALLOWED = {
  allowPrivateTargets: true,
  publicUrl: undefined,
  pushContact: 'mailto:ops@tally.example',
};

afterEach(async () => {
  await closeReceivers();
});

async function eventually(check: () => boolean, ms = 15_000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a crash between the commit and the delivery', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tally-alert-crash-'));
  let child: ChildProcess | undefined;
  afterAll(() => {
    child?.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function start(port: number): Promise<void> {
    const output: string[] = [];
    child = spawn(process.execPath, ['--import', 'tsx', 'src/server/main.ts'], {
      cwd: ROOT,
      env: {
        ...process.env,
        PORT: String(port),
        HOST: '127.0.0.1',
        DATABASE_URL: `file:${path.join(dir, 'tally.sqlite')}`,
        ALERTS_ALLOW_PRIVATE_TARGETS: 'true',
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    const started = Date.now();
    for (;;) {
      if (child.exitCode !== null) throw new Error(`server exited: ${output.join('')}`);
      try {
        if ((await fetch(`http://127.0.0.1:${String(port)}/api/health`)).status === 200) return;
      } catch {
        // Not listening yet.
      }
      if (Date.now() - started > 30_000) throw new Error(`no start: ${output.join('')}`);
      await pause(25);
    }
  }

  function kill(): Promise<void> {
    const victim = child;
    if (!victim) return Promise.resolve();
    return new Promise((resolve) => {
      victim.once('exit', () => {
        resolve();
      });
      victim.kill('SIGKILL');
    });
  }

  it('sends the alert again after the restart, with the same id, and then never again', async () => {
    // The first attempt gets no answer: the server is killed while it waits.
    const hanging: http.ServerResponse[] = [];
    const receiver = await startReceiver((response) => {
      if (hanging.length === 0) hanging.push(response);
      else response.writeHead(204).end();
    });
    const port = await freePort();
    await start(port);
    const base = `http://127.0.0.1:${String(port)}`;
    const group = await createGroup(base);
    const counter = await group.addCounter({ name: 'Doors' });
    const rule = await call<AlertCreated>(base, 'POST', `${group.base}/alerts`, {
      key: group.key,
      body: {
        counterId: counter.id,
        when: { kind: 'reaches', value: 1 },
        to: { kind: 'webhook', url: receiver.origin, format: 'standard' },
      },
    });
    expect(rule.status).toBe(201);
    const tap = await call(base, 'POST', `${group.base}/counters/${counter.id}/increment`, {
      key: group.key,
    });
    expect(tap.status).toBe(200);
    await eventually(() => receiver.requests.length === 1);
    await kill();
    await start(port);
    await eventually(() => receiver.requests.length === 2);
    await pause(1_500);
    expect(receiver.requests).toHaveLength(2);
    const [first, second] = receiver.requests;
    expect(second?.headers['webhook-id']).toBe(first?.headers['webhook-id']);
    expect(JSON.parse(second?.text ?? '{}')).toMatchObject({
      type: 'counter.reached',
      counter: { id: counter.id, value: 1 },
    });
    const log = await call<{ deliveries: { outcome: string }[] }>(
      base,
      'GET',
      `${group.base}/alerts/${rule.body.rule.id}/deliveries`,
      { key: group.key },
    );
    expect(log.body.deliveries.map((delivery) => delivery.outcome)).toEqual(['delivered']);
    await kill();
  });
});

describe.skipIf(postgresUrl === undefined)('two instances on one PostgreSQL database', () => {
  const schema = uniqueSchema();
  afterAll(async () => {
    await dropSchemas([schema]);
  });

  it('deliver each alert once, whichever instance committed the tap', async () => {
    const receiver = await startReceiver();
    const [a, b] = await Promise.all([
      startServer({
        database: postgresDatabase(schema),
        alerts: LOOPBACK_ALLOWED,
        logLevel: 'warn',
      }),
      startServer({
        database: postgresDatabase(schema),
        alerts: LOOPBACK_ALLOWED,
        logLevel: 'warn',
      }),
    ]);
    try {
      const group = await createGroup(a.url);
      const counter = await group.addCounter({ name: 'Steps' });
      const rule = await call(a.url, 'POST', `${group.base}/alerts`, {
        key: group.key,
        body: {
          counterId: counter.id,
          when: { kind: 'every', value: 10 },
          to: { kind: 'webhook', url: receiver.origin, format: 'standard' },
        },
      });
      expect(rule.status).toBe(201);
      await Promise.all(
        Array.from({ length: 200 }, (_, index) =>
          call(
            index % 2 === 0 ? a.url : b.url,
            'POST',
            `${group.base}/counters/${counter.id}/increment`,
            {
              key: group.key,
            },
          ),
        ),
      );
      await eventually(() => receiver.requests.length >= 20);
      await pause(2_500);
      const multiples = receiver.requests.map(
        (request) =>
          (JSON.parse(request.text) as Extract<AlertEventBody, { type: 'counter.every' }>).multiple,
      );
      expect(multiples).toEqual(Array.from({ length: 20 }, (_, index) => (index + 1) * 10));
      expect(new Set(receiver.requests.map((request) => request.headers['webhook-id'])).size).toBe(
        20,
      );
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});

describe("a group's minute of deliveries", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tally-alert-fold-'));
  afterAll(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function storeWithAlerts(taps: number) {
    const receiver = await startReceiver();
    const store = new SqliteStore(path.join(dir, `${newKey(4)}.sqlite`));
    await store.migrate();
    const group = await groupAlertingEveryTap(store, 'receiver', receiver.origin);
    // One batch of taps: every alert is in the outbox before the sender looks.
    await group.tap(taps);
    const sender = new AlertSender({
      alerts: store.alerts,
      groupName: () => Promise.resolve('Fold test'),
      allowPrivate: true,
      vapid: { ...newVapidKeys(), subject: 'mailto:ops@tally.example' },
      logger: { warn: () => undefined },
    });
    return { receiver, store, sender, groupId: group.groupId };
  }

  it('folds what waits past the minute’s budget into one alert that counts the others', async () => {
    const taps = ALERT_DELIVERIES_PER_MINUTE_PER_GROUP + 40;
    const { receiver, store, sender } = await storeWithAlerts(taps);
    sender.start();
    try {
      await eventually(() => receiver.requests.length >= 1);
      await pause(500);
      expect(receiver.requests).toHaveLength(1);
      // ntfy's headers carry the sentence; the body says how many more alerts it stands for.
      expect(receiver.requests[0]?.text).toContain(`and ${String(taps - 1)} more`);
    } finally {
      await sender.stop();
      await store.close();
    }
  });

  it('keeps at most 100 alerts waiting for a destination: more are folded into one', async () => {
    const { store, groupId } = await storeWithAlerts(150);
    try {
      expect(await store.alerts.pendingCount(groupId)).toBe(150);
      expect(await store.alerts.compact(100)).toBe(1);
      expect(await store.alerts.pendingCount(groupId)).toBe(1);
      const [waiting] = await store.alerts.claim(Date.now(), 1_000, 10);
      expect(JSON.parse(waiting?.body ?? '{}')).toMatchObject({ folded: 149 });
    } finally {
      await store.close();
    }
  });

  it('waits, without sending, while the group has used its minute', async () => {
    const { receiver, store, sender, groupId } = await storeWithAlerts(1);
    for (let index = 0; index < ALERT_DELIVERIES_PER_MINUTE_PER_GROUP; index += 1) {
      await store.alerts.recordDelivery({
        groupId,
        destinationId: 'receiver',
        at: Date.now(),
        type: 'counter.every',
        test: false,
        outcome: 'delivered',
        status: 204,
        error: null,
        attempt: 1,
        durationMs: 1,
      });
    }
    sender.start();
    try {
      await pause(1_500);
      expect(receiver.requests).toHaveLength(0);
      expect(await store.alerts.pendingCount(groupId)).toBe(1);
    } finally {
      await sender.stop();
      await store.close();
    }
  });
});

/** http_ece, the RFC 8188 content encoding with RFC 8291's Web Push keys (it ships no types). */
interface HttpEce {
  decrypt(
    body: Buffer,
    params: { version: 'aes128gcm'; privateKey: crypto.ECDH; authSecret: string },
  ): Buffer;
}
const ece = createRequire(import.meta.url)('http_ece') as HttpEce;

describe('Web Push', () => {
  it('reaches a subscribed browser encrypted for it, and opens the group when clicked', async () => {
    const server = await startServer({ alerts: LOOPBACK_ALLOWED, logLevel: 'warn' });
    try {
      const pushService = await startReceiver((response) => {
        response.writeHead(201).end();
      });
      // The browser: a P-256 key pair and an auth secret, as pushManager.subscribe() makes.
      const browser = crypto.createECDH('prime256v1');
      browser.generateKeys();
      const authSecret = crypto.randomBytes(16);
      const group = await createGroup(server.url);
      const counter = await group.addCounter({ name: 'Guests' });
      const subscribed = await call(server.url, 'POST', `${group.base}/push`, {
        key: group.key,
        body: {
          endpoint: `${pushService.origin}/push/abc`,
          keys: {
            p256dh: browser.getPublicKey().toString('base64url'),
            auth: authSecret.toString('base64url'),
          },
        },
      });
      expect(subscribed.status).toBe(201);
      const created = await call<AlertCreated>(server.url, 'POST', `${group.base}/alerts`, {
        key: group.key,
        body: { counterId: counter.id, when: { kind: 'reaches', value: 2 }, to: { kind: 'push' } },
      });
      expect(created.body.rule.destination).toMatchObject({ kind: 'push', subscribers: 1 });
      for (let tap = 0; tap < 2; tap += 1) {
        await call(server.url, 'POST', `${group.base}/counters/${counter.id}/increment`, {
          key: group.key,
          headers: { 'tally-member': 'Ana' },
        });
      }
      await eventually(() => pushService.requests.length >= 1);
      const [push] = pushService.requests;
      expect(push?.url).toBe('/push/abc');
      expect(push?.headers['content-encoding']).toBe('aes128gcm');
      expect(String(push?.headers.authorization)).toMatch(/^vapid t=.+, k=/);
      const message = JSON.parse(
        ece
          .decrypt(push?.body ?? Buffer.alloc(0), {
            version: 'aes128gcm',
            privateKey: browser,
            authSecret: authSecret.toString('base64url'),
          })
          .toString('utf8'),
      ) as { title: string; body: string; url: string };
      expect(message).toEqual({
        title: group.group.displayName,
        body: `Guests reached 2 in ${group.group.displayName} (by Ana)`,
        url: `/${group.group.name}`,
        // The same, as parts a browser words in its member's language.
        words: {
          sentence: 'reached',
          counter: 'Guests',
          group: group.group.displayName,
          by: 'Ana',
          numbers: { threshold: 2 },
          test: false,
          folded: null,
        },
      });
      const key = await call<{ publicKey: string }>(server.url, 'GET', '/api/push/key');
      expect(String(push?.headers.authorization)).toContain(`k=${key.body.publicKey}`);
    } finally {
      await server.close();
    }
  });

  it('refuses a subscription whose push service is a private address without the setting', async () => {
    const server = await startServer({ logLevel: 'warn' });
    try {
      const group = await createGroup(server.url);
      const browser = crypto.createECDH('prime256v1');
      browser.generateKeys();
      const answer = await call<{ error: { code: string } }>(
        server.url,
        'POST',
        `${group.base}/push`,
        {
          key: group.key,
          body: {
            endpoint: 'https://127.0.0.1:9/push',
            keys: {
              p256dh: browser.getPublicKey().toString('base64url'),
              auth: crypto.randomBytes(16).toString('base64url'),
            },
          },
        },
      );
      expect(answer.status).toBe(422);
      expect(answer.body.error.code).toBe('destination_refused');
    } finally {
      await server.close();
    }
  });
});

describe.each(storeBackends())('a destination no rule uses any more, on %s', (_name, database) => {
  it('takes its delivery log and waiting alerts with it', async () => {
    const receiver = await startReceiver();
    const server = await startServer({
      database: database(),
      alerts: LOOPBACK_ALLOWED,
      logLevel: 'warn',
    });
    try {
      const group = await createGroup(server.url);
      const counter = await group.addCounter({ name: 'Kept logs' });
      const created = await call<AlertCreated>(server.url, 'POST', `${group.base}/alerts`, {
        key: group.key,
        body: {
          counterId: counter.id,
          when: { kind: 'goal' },
          to: { kind: 'webhook', url: receiver.origin, format: 'discord' },
        },
      });
      await call(server.url, 'POST', `${group.base}/alerts/${created.body.rule.id}/test`, {
        key: group.key,
      });
      const { alerts } = server.app.tally.store;
      const destination = created.body.rule.destination.id;
      expect(await alerts.deliveries(group.group.id, destination, 10)).toHaveLength(1);
      // Deleting the counter deletes its rule, and the rule was the destination's last.
      await call(server.url, 'DELETE', `${group.base}/counters/${counter.id}`, {
        key: group.key,
      });
      expect(await alerts.deliveries(group.group.id, destination, 10)).toHaveLength(0);
    } finally {
      await server.close();
    }
  });
});
