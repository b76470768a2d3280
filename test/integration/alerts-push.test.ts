/**
 * Web Push for alerts (src/server/alerts/push.ts), with the browser and the push service played
 * for real:
 *
 * - the browser's subscription is made as a browser makes it: a P-256 ECDH key pair and a
 *   16-byte auth secret, and an endpoint at its push service;
 * - the push service is an HTTP server on loopback that records every request and connection;
 * - what it received is checked as a push service checks it (the VAPID JWT's ES256 signature,
 *   verified with node:crypto against the key in the Authorization header, its audience and
 *   expiry) and read as the browser reads it: decrypted with the browser's private key by
 *   http_ece (RFC 8188/8291), and again step by step with node:crypto alone, as RFC 8291 writes
 *   the derivation, so the result does not rest on the library web-push encrypts with.
 *
 * The push goes through deliver() (outbound.ts): a loopback push service is reached only with
 * `allowPrivate: true`, as an intranet's would be.
 */
import crypto from 'node:crypto';
import { createRequire } from 'node:module';
import { afterEach, describe, expect, it } from 'vitest';
import type { AlertEventBody } from '../../src/shared/alerts.js';
import { closeReceivers, startReceiver, type Receiver } from '../helpers/receiver.js';
import {
  PUSH_MESSAGES,
  PUSH_PAYLOAD_MAX_BYTES,
  type PushAlert,
  PushRequestError,
  type PushRequestInput,
  PushSubscriptionSchema,
  type PushSubscriptionInput,
  type VapidDetails,
  fitPushAlert,
  newVapidKeys,
  pushAlertOf,
  pushAlertBytes,
  pushRequest,
  sendPush,
} from '../../src/server/alerts/push.js';

/** http_ece, the RFC 8188 content encoding with RFC 8291's Web Push keys (it ships no types). */
interface HttpEce {
  decrypt(
    body: Buffer,
    params: { version: 'aes128gcm'; privateKey: crypto.ECDH; authSecret: string },
  ): Buffer;
}
const ece = createRequire(import.meta.url)('http_ece') as HttpEce;

const SUBJECT = 'mailto:alerts@tally.example';
const ALERT: PushAlert = {
  title: 'Main hall is full',
  body: 'Visitors reached 250 of 250 — 12:04 by Ana',
  url: 'https://tally.example/team-42',
};

// ---- The push service --------------------------------------------------------------------------

afterEach(closeReceivers);

/** A push service on a random loopback port: records each request and answers `status` (201,
 * "Created", is what push services answer a message they accepted). */
const startPushService = (status = 201): Promise<Receiver> =>
  startReceiver((response) => {
    response.writeHead(status).end();
  });

// ---- The browser -------------------------------------------------------------------------------

interface Browser {
  /** The key pair the browser keeps; its public half is the subscription's p256dh. */
  ecdh: crypto.ECDH;
  authSecret: Buffer;
  subscription: PushSubscriptionInput;
}

/** A browser subscribing at `endpoint`: what pushManager.subscribe() makes, as its JSON. */
function subscribe(endpoint: string): Browser {
  const ecdh = crypto.createECDH('prime256v1');
  ecdh.generateKeys();
  const authSecret = crypto.randomBytes(16);
  return {
    ecdh,
    authSecret,
    subscription: {
      endpoint,
      keys: {
        p256dh: ecdh.getPublicKey().toString('base64url'),
        auth: authSecret.toString('base64url'),
      },
    },
  };
}

/** A fresh endpoint path at a push service, as push services make them (opaque, per browser). */
function endpointAt(origin: string): string {
  return `${origin}/wpush/v2/${crypto.randomBytes(24).toString('base64url')}`;
}

/** The message read with http_ece, as the browser's push stack reads it. */
function decryptWithEce(browser: Browser, body: Buffer): string {
  return ece
    .decrypt(body, {
      version: 'aes128gcm',
      privateKey: browser.ecdh,
      authSecret: browser.authSecret.toString('base64url'),
    })
    .toString('utf8');
}

const hkdf = (
  ikm: Buffer,
  { salt, info, length }: { salt: Buffer; info: Buffer; length: number },
): Buffer => Buffer.from(crypto.hkdfSync('sha256', ikm, salt, info, length));

/**
 * The message read with node:crypto alone, RFC 8291 section 3.4's derivation written out: the
 * aes128gcm header (salt, record size, the sender's ephemeral public key), the ECDH secret mixed
 * with the auth secret, the content key and nonce, and one AES-128-GCM record ending in the
 * 0x02 delimiter.
 */
function decryptByHand(browser: Browser, body: Buffer): { text: string; senderKey: Buffer } {
  const salt = body.subarray(0, 16);
  const recordSize = body.readUInt32BE(16);
  const keyIdLength = body.readUInt8(20);
  const senderKey = body.subarray(21, 21 + keyIdLength);
  const record = body.subarray(21 + keyIdLength);
  expect(keyIdLength).toBe(65);
  expect(record.length).toBeLessThanOrEqual(recordSize);

  const ecdhSecret = browser.ecdh.computeSecret(senderKey);
  const keyInfo = Buffer.concat([
    Buffer.from('WebPush: info\0'),
    browser.ecdh.getPublicKey(),
    senderKey,
  ]);
  const ikm = hkdf(ecdhSecret, { salt: browser.authSecret, info: keyInfo, length: 32 });
  const contentKey = hkdf(ikm, {
    salt,
    info: Buffer.from('Content-Encoding: aes128gcm\0'),
    length: 16,
  });
  const nonce = hkdf(ikm, { salt, info: Buffer.from('Content-Encoding: nonce\0'), length: 12 });

  const decipher = crypto.createDecipheriv('aes-128-gcm', contentKey, nonce);
  decipher.setAuthTag(record.subarray(record.length - 16));
  const padded = Buffer.concat([
    decipher.update(record.subarray(0, record.length - 16)),
    decipher.final(),
  ]);
  const delimiter = padded.lastIndexOf(0x02);
  expect(padded.subarray(delimiter + 1).every((byte) => byte === 0)).toBe(true);
  return { text: padded.subarray(0, delimiter).toString('utf8'), senderKey };
}

// ---- The push service's view of VAPID ----------------------------------------------------------

interface Vapid {
  header: { typ?: string; alg?: string };
  claims: { aud?: string; exp?: number; sub?: string };
  /** The ES256 signature verifies with the key the header names. */
  verified: boolean;
  /** The key the header names (`k=`). */
  key: string;
}

/** A raw P-256 public key (65 bytes, uncompressed) as a node:crypto key. */
function p256Key(raw: Buffer): crypto.KeyObject {
  return crypto.createPublicKey({
    key: {
      kty: 'EC',
      crv: 'P-256',
      x: raw.subarray(1, 33).toString('base64url'),
      y: raw.subarray(33, 65).toString('base64url'),
    },
    format: 'jwk',
  });
}

/** Reads `vapid t=<jwt>, k=<public key>` (RFC 8292) and checks the JWT's signature. */
function readVapid(authorization: string | undefined): Vapid {
  const match = /^vapid t=([\w-]+)\.([\w-]+)\.([\w-]+), k=([\w-]+)$/.exec(authorization ?? '');
  if (match === null) throw new Error(`Not a VAPID Authorization: ${String(authorization)}`);
  const [, header = '', claims = '', signature = '', key = ''] = match;
  const verified = crypto.verify(
    'sha256',
    Buffer.from(`${header}.${claims}`),
    { key: p256Key(Buffer.from(key, 'base64url')), dsaEncoding: 'ieee-p1363' },
    Buffer.from(signature, 'base64url'),
  );
  return {
    header: JSON.parse(Buffer.from(header, 'base64url').toString('utf8')) as Vapid['header'],
    claims: JSON.parse(Buffer.from(claims, 'base64url').toString('utf8')) as Vapid['claims'],
    verified,
    key,
  };
}

function vapidDetails(): VapidDetails {
  return { ...newVapidKeys(), subject: SUBJECT };
}

function push(browser: Browser, overrides: Partial<PushRequestInput> = {}): PushRequestInput {
  return {
    subscription: browser.subscription,
    payload: ALERT,
    vapid: vapidDetails(),
    ttlSeconds: 3_600,
    ...overrides,
  };
}

/** What pushRequest throws for the input, as its code and sentence. */
function refusal(input: PushRequestInput): { code: string; message: string } {
  try {
    pushRequest(input);
  } catch (error) {
    if (error instanceof PushRequestError) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('The push was not refused');
}

// ---- Tests -------------------------------------------------------------------------------------

describe('VAPID keys', () => {
  it('are a P-256 key pair, base64url without padding, new each time', () => {
    const keys = newVapidKeys();
    const publicKey = Buffer.from(keys.publicKey, 'base64url');
    expect(publicKey).toHaveLength(65);
    expect(publicKey[0]).toBe(0x04);
    expect(Buffer.from(keys.privateKey, 'base64url')).toHaveLength(32);
    expect(keys.publicKey + keys.privateKey).toMatch(/^[\w-]+$/);

    const pair = crypto.createECDH('prime256v1');
    pair.setPrivateKey(Buffer.from(keys.privateKey, 'base64url'));
    expect(pair.getPublicKey().equals(publicKey)).toBe(true);
    expect(newVapidKeys().privateKey).not.toBe(keys.privateKey);
  });

  it('that do not belong together, or a subject push services refuse, are refused', () => {
    const browser = subscribe('https://push.example/wpush/abc');
    const mismatched = { ...vapidDetails(), privateKey: newVapidKeys().privateKey };
    expect(refusal(push(browser, { vapid: mismatched }))).toEqual({
      code: 'invalid_vapid',
      message: PUSH_MESSAGES.vapidKeysMismatch,
    });
    for (const subject of ['https://localhost/contact', 'http://tally.example', 'alerts']) {
      expect(refusal(push(browser, { vapid: { ...vapidDetails(), subject } }))).toEqual({
        code: 'invalid_vapid',
        message: PUSH_MESSAGES.vapidSubjectInvalid,
      });
    }
  });
});

describe('a browser subscription as the API takes it', () => {
  it("takes what a browser's subscription.toJSON() gives and keeps only the endpoint and keys", () => {
    const browser = subscribe('https://fcm.googleapis.com:443/fcm/send/abc:def');
    const padded = `${browser.authSecret.toString('base64url')}==`;
    const parsed = PushSubscriptionSchema.parse({
      ...browser.subscription,
      expirationTime: null,
      keys: { ...browser.subscription.keys, auth: padded },
    });
    expect(parsed).toEqual({
      endpoint: 'https://fcm.googleapis.com/fcm/send/abc:def',
      keys: {
        p256dh: browser.ecdh.getPublicKey().toString('base64url'),
        auth: browser.authSecret.toString('base64url'),
      },
    });
  });

  const valid = subscribe('https://push.example/wpush/abc').subscription;
  const offCurve = Buffer.from(valid.keys.p256dh, 'base64url');
  offCurve[64] = (offCurve[64] ?? 0) ^ 1;

  it.each([
    ['an http:// endpoint', { ...valid, endpoint: 'http://push.example/a' }, 'endpointInvalid'],
    ['an endpoint that is not a URL', { ...valid, endpoint: 'push.example/a' }, 'endpointInvalid'],
    [
      'an endpoint with credentials',
      { ...valid, endpoint: 'https://user:pw@push.example/a' },
      'endpointInvalid',
    ],
    [
      'an endpoint of more than 2,048 characters',
      { ...valid, endpoint: `https://push.example/${'a'.repeat(2_048)}` },
      'endpointInvalid',
    ],
    [
      'an endpoint at the retired GCM service',
      { ...valid, endpoint: 'https://android.googleapis.com/gcm/send/abc' },
      'endpointRetired',
    ],
    [
      'a p256dh key of 33 bytes (compressed)',
      { ...valid, keys: { ...valid.keys, p256dh: crypto.randomBytes(33).toString('base64url') } },
      'p256dhInvalid',
    ],
    [
      'a p256dh key off the curve',
      { ...valid, keys: { ...valid.keys, p256dh: offCurve.toString('base64url') } },
      'p256dhInvalid',
    ],
    [
      'a p256dh key in standard base64',
      { ...valid, keys: { ...valid.keys, p256dh: `+/${valid.keys.p256dh.slice(2)}` } },
      'p256dhInvalid',
    ],
    [
      'an auth secret of 15 bytes',
      { ...valid, keys: { ...valid.keys, auth: crypto.randomBytes(15).toString('base64url') } },
      'authInvalid',
    ],
    [
      'an auth secret of 1,000 characters',
      { ...valid, keys: { ...valid.keys, auth: 'A'.repeat(1_000) } },
      'authInvalid',
    ],
    ['no keys', { endpoint: valid.endpoint }, 'keysMissing'],
  ] as const)('refuses %s', (_what, subscription, message) => {
    const result = PushSubscriptionSchema.safeParse(subscription);
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => issue.message)).toEqual([PUSH_MESSAGES[message]]);
  });
});

describe('an alert pushed to a browser', () => {
  it('reaches the push service signed with VAPID, and only the browser can read it', async () => {
    const service = await startPushService();
    const browser = subscribe(endpointAt(service.origin));
    const vapid = vapidDetails();
    const sentAt = Math.floor(Date.now() / 1000);

    const result = await sendPush(push(browser, { vapid, ttlSeconds: 3_600 }), {
      allowPrivate: true,
    });

    expect(result).toMatchObject({ ok: true, status: 201 });
    expect(result.code).toBeUndefined();
    expect(service.requests).toHaveLength(1);
    const [received] = service.requests;
    if (received === undefined) throw new Error('Nothing was received');
    expect(received.method).toBe('POST');
    expect(service.origin + received.url).toBe(browser.subscription.endpoint);
    expect(received.headers['content-encoding']).toBe('aes128gcm');
    expect(received.headers['content-type']).toBe('application/octet-stream');
    expect(received.headers.ttl).toBe('3600');
    expect(received.headers['content-length']).toBe(String(received.body.length));

    // The push service's check: a JWT signed by the key it names, for its own origin.
    const signed = readVapid(received.headers.authorization);
    expect(signed.key).toBe(vapid.publicKey);
    expect(signed.verified).toBe(true);
    expect(signed.header).toEqual({ typ: 'JWT', alg: 'ES256' });
    expect(signed.claims.aud).toBe(service.origin);
    expect(signed.claims.sub).toBe(SUBJECT);
    const expiresIn = (signed.claims.exp ?? 0) - sentAt;
    expect(expiresIn).toBeGreaterThan(0);
    expect(expiresIn).toBeLessThanOrEqual(24 * 60 * 60);

    // The body is no plain text: it reads only with the browser's private key and auth secret.
    expect(received.body.includes(Buffer.from('Main hall'))).toBe(false);
    expect(JSON.parse(decryptWithEce(browser, received.body))).toEqual(ALERT);
    const byHand = decryptByHand(browser, received.body);
    expect(JSON.parse(byHand.text)).toEqual(ALERT);
    // The sender's key in the header is a fresh one for this message, not the VAPID key.
    expect(byHand.senderKey.toString('base64url')).not.toBe(vapid.publicKey);

    const stranger = subscribe(browser.subscription.endpoint);
    expect(() => decryptWithEce(stranger, received.body)).toThrow();
  });

  it('reads the same when it is exactly the largest message allowed', async () => {
    const service = await startPushService();
    const browser = subscribe(endpointAt(service.origin));
    const base = { ...ALERT, body: '' };
    const room = PUSH_PAYLOAD_MAX_BYTES - pushAlertBytes(base);
    // Two-byte characters, so that the bound is counted in bytes, not characters.
    const largest = { ...base, body: 'é'.repeat(Math.floor(room / 2)) + 'x'.repeat(room % 2) };
    expect(pushAlertBytes(largest)).toBe(PUSH_PAYLOAD_MAX_BYTES);

    const result = await sendPush(push(browser, { payload: largest }), { allowPrivate: true });

    expect(result.ok).toBe(true);
    const body = service.requests[0]?.body ?? Buffer.alloc(0);
    expect(body.length).toBeLessThanOrEqual(4_096);
    expect(JSON.parse(decryptWithEce(browser, body))).toEqual(largest);
  });

  it.each([410, 404])('is "subscription_gone" when the push service answers %i', async (status) => {
    const service = await startPushService(status);
    const browser = subscribe(endpointAt(service.origin));

    const result = await sendPush(push(browser), { allowPrivate: true });

    expect(result).toMatchObject({
      ok: false,
      status,
      code: 'subscription_gone',
      error: PUSH_MESSAGES.gone,
    });
    expect(service.requests).toHaveLength(1);
  });

  it('is an ordinary failed delivery, not "gone", when the push service fails otherwise', async () => {
    const service = await startPushService(503);
    const browser = subscribe(endpointAt(service.origin));

    const result = await sendPush(push(browser), { allowPrivate: true });

    expect(result).toMatchObject({ ok: false, status: 503, code: 'http_status' });
  });

  it('is not sent to a push service at a private address unless private addresses are allowed', async () => {
    const service = await startPushService();
    const https = subscribe(`https://127.0.0.1:${service.port}/wpush/abc`);
    const plain = subscribe(endpointAt(service.origin));

    const overHttps = await sendPush(push(https), { allowPrivate: false });
    const overHttp = await sendPush(push(plain), { allowPrivate: false });

    expect(overHttps).toMatchObject({
      ok: false,
      code: 'destination_refused',
      range: 'loopback',
    });
    expect(overHttp).toMatchObject({ ok: false, code: 'destination_refused' });
    expect(service.connections()).toBe(0);
    expect(JSON.stringify([overHttps, overHttp])).not.toContain('/wpush/');
  });

  it('is refused before any connection when the subscription has bad keys', async () => {
    const service = await startPushService();
    const browser = subscribe(endpointAt(service.origin));
    const badKeys = {
      ...browser.subscription,
      keys: { p256dh: 'not-a-key', auth: crypto.randomBytes(8).toString('base64url') },
    };

    expect(refusal(push(browser, { subscription: badKeys }))).toEqual({
      code: 'invalid_subscription',
      message: `${PUSH_MESSAGES.p256dhInvalid} ${PUSH_MESSAGES.authInvalid}`,
    });
    const result = await sendPush(push(browser, { subscription: badKeys }), { allowPrivate: true });

    expect(result).toMatchObject({ ok: false, code: 'invalid_subscription' });
    expect(result.error).toContain('p256dh');
    expect(service.connections()).toBe(0);
  });

  it('is refused before any connection when the message is over the bound', async () => {
    const service = await startPushService();
    const browser = subscribe(endpointAt(service.origin));
    const base = { ...ALERT, body: '' };
    const tooLarge = {
      ...base,
      body: 'x'.repeat(PUSH_PAYLOAD_MAX_BYTES - pushAlertBytes(base) + 1),
    };
    expect(pushAlertBytes(tooLarge)).toBe(PUSH_PAYLOAD_MAX_BYTES + 1);

    expect(refusal(push(browser, { payload: tooLarge }))).toEqual({
      code: 'payload_too_large',
      message: PUSH_MESSAGES.payloadTooLarge,
    });
    const result = await sendPush(push(browser, { payload: tooLarge }), { allowPrivate: true });

    expect(result).toMatchObject({ ok: false, code: 'payload_too_large' });
    expect(service.connections()).toBe(0);
  });

  it("is refused when its link carries the group's key, or the time to live is out of range", () => {
    const browser = subscribe('https://push.example/wpush/abc');
    for (const url of ['https://tally.example/team-42?key=s3cret', '/team-42?key=s3cret']) {
      expect(refusal(push(browser, { payload: { ...ALERT, url } }))).toEqual({
        code: 'invalid_payload',
        message: PUSH_MESSAGES.urlHasKey,
      });
    }
    for (const url of ['//evil.example/x', 'javascript:alert(1)', 'team-42']) {
      expect(refusal(push(browser, { payload: { ...ALERT, url } })).code).toBe('invalid_payload');
    }
    expect(pushRequest(push(browser, { payload: { ...ALERT, url: '/team-42' } })).url).toBe(
      'https://push.example/wpush/abc',
    );
    for (const ttlSeconds of [-1, 1.5, 28 * 24 * 60 * 60 + 1]) {
      expect(refusal(push(browser, { ttlSeconds })).code).toBe('invalid_ttl');
    }
  });
});

/** An alert of a counter named `counter` that reached 200 (and is at 205), as the outbox holds it. */
const reachedEvent = (counter: string): AlertEventBody => ({
  type: 'counter.reached',
  group: 'door-count',
  counter: { id: 'c1', name: counter, value: 205 },
  by: 'Ada',
  at: '2026-11-27T12:00:00.000Z',
  rule: {
    id: 'r1',
    counterId: 'c1',
    section: null,
    when: { kind: 'reaches', value: 200 },
    to: { kind: 'push' },
  },
});

describe("an alert's push message", () => {
  it('says the English title and body, links the group without its key, and carries the parts', () => {
    expect(pushAlertOf(reachedEvent('Visitors'), 'Door count')).toEqual({
      title: 'Door count',
      body: 'Visitors reached 200 (now 205) in Door count (by Ada)',
      url: '/door-count',
      words: {
        sentence: 'reachedNow',
        counter: 'Visitors',
        group: 'Door count',
        by: 'Ada',
        numbers: { threshold: 200, value: 205 },
        test: false,
        folded: null,
      },
    });
  });

  it('shortens a long counter name alike in the English and the parts, to fit the bound', () => {
    const message = pushAlertOf(reachedEvent('🏁'.repeat(1_000)), 'Door count');

    expect(pushAlertBytes(message)).toBeLessThanOrEqual(PUSH_PAYLOAD_MAX_BYTES);
    expect(message.words?.counter).toMatch(/^(🏁)+…$/u);
    expect(message.body).toBe(
      `${message.words?.counter} reached 200 (now 205) in Door count (by Ada)`,
    );
    const browser = subscribe('https://push.example/wpush/abc');
    expect(() => pushRequest(push(browser, { payload: message }))).not.toThrow();
  });
});

describe('fitting a message within the bound', () => {
  it('leaves a message that fits as it is', () => {
    expect(fitPushAlert(ALERT)).toBe(ALERT);
  });

  it('cuts a long body, never through an emoji, and keeps the title and link', () => {
    const long = { ...ALERT, body: '🏁'.repeat(1_000) };

    const fitted = fitPushAlert(long);

    expect(pushAlertBytes(fitted)).toBeLessThanOrEqual(PUSH_PAYLOAD_MAX_BYTES);
    expect(pushAlertBytes(fitted)).toBeGreaterThan(PUSH_PAYLOAD_MAX_BYTES - 4);
    expect(fitted.body).toMatch(/^(🏁)+…$/u);
    expect({ ...fitted, body: long.body }).toEqual(long);
  });

  it('leaves out the parts before cutting the English', () => {
    const words = pushAlertOf(reachedEvent('Visitors'), 'Door count').words;
    const long = { ...ALERT, body: '🏁'.repeat(700), words };

    const fitted = fitPushAlert(long);

    expect(pushAlertBytes(fitted)).toBeLessThanOrEqual(PUSH_PAYLOAD_MAX_BYTES);
    expect(fitted).toEqual({ ...ALERT, body: long.body });
  });

  it('drops the body, then cuts the title, when the title alone is too long', () => {
    const long = { title: '🎉'.repeat(1_000), body: '🏁'.repeat(1_000), url: ALERT.url };

    const fitted = fitPushAlert(long);

    expect(pushAlertBytes(fitted)).toBeLessThanOrEqual(PUSH_PAYLOAD_MAX_BYTES);
    expect(pushAlertBytes(fitted)).toBeGreaterThan(PUSH_PAYLOAD_MAX_BYTES - 4);
    expect(fitted).toMatchObject({ body: '', url: ALERT.url });
    expect(fitted.title).toMatch(/^(🎉)+…$/u);
    const browser = subscribe('https://push.example/wpush/abc');
    expect(() => pushRequest(push(browser, { payload: fitted }))).not.toThrow();
  });
});
