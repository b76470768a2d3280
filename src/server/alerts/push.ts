/**
 * Web Push for alerts: a member's browser subscribes to a group's alerts (the Push API gives it
 * an endpoint at its push service and two keys), and each alert reaches the browser as a push
 * message, even with Tally closed.
 *
 * - The message is a small JSON `{ title, body, url, words }` (PushAlert), encrypted for that browser
 *   alone (aes128gcm, RFC 8291: the push service cannot read it) and sent with the server's VAPID
 *   signature (RFC 8292: a JWT for the push service's origin, valid 12 hours). web-push's
 *   generateRequestDetails does both; it never sends anything.
 * - deliver() (outbound.ts) sends it, so an endpoint is held to the rules of any alert
 *   destination: https:// only, public addresses checked again at connection, no redirects, 4 KB,
 *   one 5 s timeout. The endpoint was chosen by whoever subscribed, like a webhook URL.
 * - A push service that answers 404 or 410 says the subscription has ended (the browser
 *   unsubscribed, or its permission was revoked): sendPush says so as `subscription_gone`, and
 *   the subscription should be deleted rather than tried again.
 * - The url in a message is the group's link without its key: a notification can be shown on a
 *   locked screen, and the key is what lets its holder change the counters.
 *
 * Like deliver(), nothing here logs, and no message repeats an endpoint (it is the address that
 * reaches one member's browser).
 */
import crypto from 'node:crypto';
import webpush from 'web-push';
import { z } from 'zod';
import type { AlertEventBody } from '../../shared/alerts.js';
import {
  NotificationWordsSchema,
  type NotificationWords,
} from '../../shared/notification-words-schema.js';
import {
  ENGLISH_NOTIFICATION_TEMPLATES,
  ENGLISH_NUMBERS,
  wordNotification,
} from '../../shared/notification-words.js';
import { alertTexts, fitTexts, notificationWords, type AlertTexts } from './format-text.js';
import {
  type DeliveryFailure,
  type DeliveryOptions,
  type DeliveryResult,
  MAX_DESTINATION_URL_LENGTH,
  deliver,
} from './outbound.js';

// ---- Bounds ------------------------------------------------------------------------------------

/**
 * Largest push message, bytes of UTF-8 JSON before encryption. Push services take about 4 KB of
 * encrypted body (RFC 8030 has them take at least 4,096 bytes); aes128gcm adds 103 (an 86-byte
 * header, a 1-byte delimiter, a 16-byte tag), so 3,000 leaves room, within deliver()'s 4 KB.
 */
export const PUSH_PAYLOAD_MAX_BYTES = 3_000;
/** Longest a push service may hold a message for an offline browser: 4 weeks, the most Firebase
 * Cloud Messaging (Chrome's push service) accepts, and web-push's default. */
export const PUSH_TTL_MAX_SECONDS = 28 * 24 * 60 * 60;
/** Bytes of a subscription's p256dh key: an uncompressed P-256 point (0x04, x, y). */
const P256_PUBLIC_KEY_BYTES = 65;
/** Bytes of a VAPID private key: a P-256 scalar. */
const P256_PRIVATE_KEY_BYTES = 32;
/** Bytes of a subscription's auth secret (RFC 8291: 16 random bytes, made by the browser). */
const AUTH_SECRET_BYTES = 16;
/** The base64url length of `bytes` bytes, with the padding a lenient writer may add. */
const base64urlMaxLength = (bytes: number): number => Math.ceil(bytes / 3) * 4;
/** Longest VAPID subject, characters: a mailto: or https: address the push service may write to. */
const VAPID_SUBJECT_MAX_LENGTH = 512;

/**
 * Endpoints of Google Cloud Messaging, which shut down in 2019: web-push signs no VAPID JWT for
 * them and would warn on the console, so they are refused as the stale subscriptions they are.
 */
const RETIRED_PUSH_SERVICE = 'https://android.googleapis.com/gcm/send';

/** What the schemas say when a subscription, a message or the VAPID details are refused. */
export const PUSH_MESSAGES = {
  endpointInvalid: `A push subscription's endpoint must be an https:// address of at most ${MAX_DESTINATION_URL_LENGTH.toLocaleString('en-US')} characters, without a user name or password.`,
  endpointRetired:
    'This push subscription belongs to a push service that has shut down. Turn alerts on again in this browser.',
  p256dhInvalid:
    "A push subscription's p256dh key must be a P-256 public key: 65 bytes, base64url-encoded.",
  authInvalid: "A push subscription's auth secret must be 16 bytes, base64url-encoded.",
  keysMissing: 'A push subscription must have keys: p256dh and auth.',
  titleInvalid: 'A push message needs a title.',
  bodyInvalid: "A push message's body must be text.",
  urlInvalid: `A push message's url must be an http(s) address or a path starting with /, of at most ${MAX_DESTINATION_URL_LENGTH.toLocaleString('en-US')} characters.`,
  urlHasKey: "A push message's url must not carry the group's key: link to the group without it.",
  payloadTooLarge: `A push message can be at most ${PUSH_PAYLOAD_MAX_BYTES.toLocaleString('en-US')} bytes.`,
  vapidPublicKeyInvalid:
    'The VAPID public key must be a P-256 public key: 65 bytes, base64url-encoded without padding.',
  vapidPrivateKeyInvalid:
    'The VAPID private key must be a P-256 private key: 32 bytes, base64url-encoded without padding.',
  vapidKeysMismatch: 'The VAPID private key does not belong to the VAPID public key.',
  vapidSubjectInvalid:
    'The VAPID subject must be a mailto: address or an https:// URL that is not localhost.',
  ttlInvalid: `A push message's time to live must be a whole number of seconds from 0 to ${PUSH_TTL_MAX_SECONDS.toLocaleString('en-US')}.`,
  gone: 'The browser no longer takes these alerts: its push service says the subscription has ended.',
} as const;

// ---- Keys --------------------------------------------------------------------------------------

/** A VAPID key pair, base64url without padding: the public key goes to browsers when they
 * subscribe (applicationServerKey), the private key signs every push and stays on the server. */
export interface VapidKeys {
  publicKey: string;
  privateKey: string;
}

/** A new VAPID key pair (P-256). Made once per deployment: changing it ends every subscription. */
export function newVapidKeys(): VapidKeys {
  const { publicKey, privateKey } = webpush.generateVAPIDKeys();
  return { publicKey, privateKey };
}

const BASE64URL = /^[A-Za-z0-9_-]+={0,2}$/;
const BASE64URL_UNPADDED = /^[A-Za-z0-9_-]+$/;

/** The bytes of a base64url text, or null when it is not base64url or not `length` bytes. */
function decodedBytes(
  text: string,
  { length, padded }: { length: number; padded: boolean },
): Buffer | null {
  if (!(padded ? BASE64URL : BASE64URL_UNPADDED).test(text)) return null;
  const bytes = Buffer.from(text, 'base64url');
  return bytes.length === length ? bytes : null;
}

/** Whether the bytes are an uncompressed point on P-256 (a key that is not cannot be used). */
function isP256Point(bytes: Buffer): boolean {
  if (bytes[0] !== 0x04) return false;
  try {
    crypto.ECDH.convertKey(bytes, 'prime256v1');
    return true;
  } catch {
    return false;
  }
}

/** A base64url P-256 public key, written back without padding. */
function p256PublicKey({ padded, error }: { padded: boolean; error: string }) {
  return z
    .string({ error })
    .max(base64urlMaxLength(P256_PUBLIC_KEY_BYTES), { error })
    .transform((text, ctx) => {
      const bytes = decodedBytes(text, { length: P256_PUBLIC_KEY_BYTES, padded });
      if (bytes === null || !isP256Point(bytes)) {
        ctx.addIssue({ code: 'custom', message: error });
        return z.NEVER;
      }
      return bytes.toString('base64url');
    });
}

// ---- Subscriptions -----------------------------------------------------------------------------

/** Whether an endpoint is a URL of one of the schemes, without credentials, within the bound. */
function endpointSchema(schemes: readonly string[]) {
  return z
    .string({ error: PUSH_MESSAGES.endpointInvalid })
    .max(MAX_DESTINATION_URL_LENGTH, { error: PUSH_MESSAGES.endpointInvalid })
    .transform((raw, ctx) => {
      let url: URL;
      try {
        url = new URL(raw);
      } catch {
        ctx.addIssue({ code: 'custom', message: PUSH_MESSAGES.endpointInvalid });
        return z.NEVER;
      }
      // The written-out form (a default port dropped, a name in punycode) is what is sent, and
      // what VAPID's audience is taken from.
      const { href } = url;
      if (
        !schemes.includes(url.protocol) ||
        url.username !== '' ||
        url.password !== '' ||
        href.length > MAX_DESTINATION_URL_LENGTH
      ) {
        ctx.addIssue({ code: 'custom', message: PUSH_MESSAGES.endpointInvalid });
        return z.NEVER;
      }
      if (href.startsWith(RETIRED_PUSH_SERVICE)) {
        ctx.addIssue({ code: 'custom', message: PUSH_MESSAGES.endpointRetired });
        return z.NEVER;
      }
      return href;
    });
}

/** A subscription's schema for the endpoint schemes given. */
function subscriptionSchema(schemes: readonly string[]) {
  // Not strict: a browser's subscription.toJSON() also has expirationTime (and may grow more);
  // only the endpoint and the keys are kept.
  return z.object({
    endpoint: endpointSchema(schemes),
    keys: z.object(
      {
        p256dh: p256PublicKey({ padded: true, error: PUSH_MESSAGES.p256dhInvalid }),
        auth: z
          .string({ error: PUSH_MESSAGES.authInvalid })
          .max(base64urlMaxLength(AUTH_SECRET_BYTES), { error: PUSH_MESSAGES.authInvalid })
          .transform((text, ctx) => {
            const bytes = decodedBytes(text, { length: AUTH_SECRET_BYTES, padded: true });
            if (bytes === null) {
              ctx.addIssue({ code: 'custom', message: PUSH_MESSAGES.authInvalid });
              return z.NEVER;
            }
            return bytes.toString('base64url');
          }),
      },
      { error: PUSH_MESSAGES.keysMissing },
    ),
  });
}

/**
 * A browser's PushSubscription as the API takes it: what `JSON.stringify(subscription)` gives in
 * the browser, `{ endpoint, keys: { p256dh, auth } }` (other fields, like expirationTime, are
 * dropped). The endpoint is an https:// URL of at most 2,048 characters; p256dh a P-256 public
 * key and auth a 16-byte secret, base64url. Keys come back without padding, the endpoint as the
 * URL writes it. Whether the endpoint's host may be reached is deliver()'s check, when sending.
 */
export const PushSubscriptionSchema = subscriptionSchema(['https:']);
export type PushSubscription = z.infer<typeof PushSubscriptionSchema>;
export type PushSubscriptionInput = z.input<typeof PushSubscriptionSchema>;

/**
 * The subscription pushRequest() accepts: the same, but an http:// endpoint too, since which
 * schemes may be used is deliver()'s decision (http:// only when private addresses are allowed).
 */
export const SendableSubscriptionSchema = subscriptionSchema(['https:', 'http:']);

// ---- The message -------------------------------------------------------------------------------

/**
 * What a notification shows: a title, a line of text, and the group's page it opens (an
 * absolute http(s) URL or a path on Tally's origin, which the service worker resolves), always
 * without the group's key.
 */
export interface PushAlert {
  title: string;
  body: string;
  url: string;
  /**
   * What the title and body say, as parts, for the service worker to word in its member's
   * language (src/shared/notification-words.ts); the English title and body are for a browser
   * whose member chose English, or whose page kept no other language.
   */
  words?: NotificationWords;
}

/** Whether a push message's url is an http(s) URL or a path on this origin, without a key. */
function checkAlertUrl(raw: string, ctx: z.RefinementCtx): void {
  const isPath = raw.startsWith('/') && !raw.startsWith('//') && !raw.startsWith('/\\');
  let url: URL | null = null;
  try {
    url = isPath ? new URL(raw, 'https://tally.invalid') : new URL(raw);
  } catch {
    url = null;
  }
  if (url === null || !['https:', 'http:'].includes(url.protocol)) {
    ctx.addIssue({ code: 'custom', message: PUSH_MESSAGES.urlInvalid });
  } else if (url.searchParams.has('key')) {
    ctx.addIssue({ code: 'custom', message: PUSH_MESSAGES.urlHasKey });
  }
}

/** A push message's fields, each checked; the size of the whole is checked apart. */
export const PushAlertSchema = z.strictObject({
  title: z
    .string({ error: PUSH_MESSAGES.titleInvalid })
    .min(1, { error: PUSH_MESSAGES.titleInvalid }),
  body: z.string({ error: PUSH_MESSAGES.bodyInvalid }),
  url: z
    .string({ error: PUSH_MESSAGES.urlInvalid })
    .max(MAX_DESTINATION_URL_LENGTH, { error: PUSH_MESSAGES.urlInvalid })
    .superRefine(checkAlertUrl),
  words: NotificationWordsSchema.optional(),
});

/** The message as it is encrypted: its JSON, fields in a fixed order. */
function alertJson(alert: PushAlert): string {
  return JSON.stringify({
    title: alert.title,
    body: alert.body,
    url: alert.url,
    words: alert.words,
  });
}

const encoder = new TextEncoder();
const utf8Bytes = (text: string): number => encoder.encode(text).length;

/** The size of a push message before encryption: UTF-8 bytes of its JSON. */
export function pushAlertBytes(alert: PushAlert): number {
  return utf8Bytes(alertJson(alert));
}

const ELLIPSIS = '…';

/**
 * `text` cut to the longest prefix that, with an ellipsis, makes its JSON string at most
 * `budget` bytes; never through a code point (an emoji stays whole or goes).
 */
function shortened(text: string, budget: number): string {
  const characters = Array.from(text);
  const bytesOf = (count: number): number =>
    utf8Bytes(JSON.stringify(characters.slice(0, count).join('') + ELLIPSIS));
  if (bytesOf(0) > budget) return '';
  let low = 0;
  let high = characters.length;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (bytesOf(middle) <= budget) low = middle;
    else high = middle - 1;
  }
  return characters.slice(0, low).join('') + ELLIPSIS;
}

/**
 * The push message of an alert: the group's page to open, the English title and body, and the
 * parts they are made of. The user's text (counter, group and member names) is shortened as
 * little as needed for the whole to fit PUSH_PAYLOAD_MAX_BYTES, the same in the parts as in the
 * English, so a long counter name shortens the notification instead of losing it.
 */
export function pushAlertOf(event: AlertEventBody, groupName: string): PushAlert {
  const message = (texts: AlertTexts): PushAlert => {
    const words = notificationWords(event, texts);
    return {
      ...wordNotification(words, ENGLISH_NOTIFICATION_TEMPLATES, ENGLISH_NUMBERS),
      // A path on the server's own origin: the service worker opens it there.
      url: `/${encodeURIComponent(event.group)}`,
      words,
    };
  };
  const texts = fitTexts(
    alertTexts(event, groupName),
    (candidate) => pushAlertBytes(message(candidate)) <= PUSH_PAYLOAD_MAX_BYTES,
  );
  return fitPushAlert(message(texts));
}

/**
 * A message within PUSH_PAYLOAD_MAX_BYTES: the body is cut first, then the title, each ending
 * in "…"; parts that would still not fit are left out (the browser then shows the English).
 * The url is never cut (a cut link leads nowhere); a message whose url alone is too long stays
 * too long.
 */
export function fitPushAlert(alert: PushAlert): PushAlert {
  let fitted = alert;
  if (fitted.words !== undefined && pushAlertBytes(fitted) > PUSH_PAYLOAD_MAX_BYTES) {
    const { words: _left, ...english } = fitted;
    fitted = english;
  }
  for (const field of ['body', 'title'] as const) {
    const over = pushAlertBytes(fitted) - PUSH_PAYLOAD_MAX_BYTES;
    if (over <= 0) return fitted;
    const budget = utf8Bytes(JSON.stringify(fitted[field])) - over;
    fitted = { ...fitted, [field]: shortened(fitted[field], budget) };
  }
  return fitted;
}

// ---- VAPID -------------------------------------------------------------------------------------

/** The server's VAPID identity: its key pair and a contact for the push services. */
export interface VapidDetails extends VapidKeys {
  /** A mailto: address or an https:// URL where a push service's operator can reach Tally's. */
  subject: string;
}

/** Whether a VAPID subject is one push services accept (Apple's refuses localhost). */
function isVapidSubject(subject: string): boolean {
  try {
    const url = new URL(subject);
    if (url.protocol === 'mailto:') return url.pathname.includes('@');
    return url.protocol === 'https:' && url.hostname !== 'localhost';
  } catch {
    return false;
  }
}

const VapidDetailsSchema = z
  .object({
    publicKey: p256PublicKey({ padded: false, error: PUSH_MESSAGES.vapidPublicKeyInvalid }),
    privateKey: z
      .string({ error: PUSH_MESSAGES.vapidPrivateKeyInvalid })
      .max(base64urlMaxLength(P256_PRIVATE_KEY_BYTES), {
        error: PUSH_MESSAGES.vapidPrivateKeyInvalid,
      })
      .refine(
        (text) => decodedBytes(text, { length: P256_PRIVATE_KEY_BYTES, padded: false }) !== null,
        { error: PUSH_MESSAGES.vapidPrivateKeyInvalid },
      ),
    subject: z
      .string({ error: PUSH_MESSAGES.vapidSubjectInvalid })
      .max(VAPID_SUBJECT_MAX_LENGTH, { error: PUSH_MESSAGES.vapidSubjectInvalid })
      .refine(isVapidSubject, { error: PUSH_MESSAGES.vapidSubjectInvalid }),
  })
  .refine(
    // A private key of another pair signs JWTs every push service refuses (403): say so here.
    ({ publicKey, privateKey }) => {
      try {
        const pair = crypto.createECDH('prime256v1');
        pair.setPrivateKey(Buffer.from(privateKey, 'base64url'));
        return pair.getPublicKey().equals(Buffer.from(publicKey, 'base64url'));
      } catch {
        return false;
      }
    },
    { error: PUSH_MESSAGES.vapidKeysMismatch, path: ['privateKey'] },
  );

// ---- The request -------------------------------------------------------------------------------

/** Why a push could not be made, before anything was sent. */
export type PushRequestProblem =
  | 'invalid_subscription'
  | 'invalid_payload'
  | 'payload_too_large'
  | 'invalid_vapid'
  | 'invalid_ttl';

/** A push refused before sending: which input, and why in sentences (never the endpoint). */
export class PushRequestError extends Error {
  override readonly name = 'PushRequestError';
  constructor(
    readonly code: PushRequestProblem,
    readonly issues: readonly string[],
  ) {
    super(issues.join(' '));
  }
}

/** The issues' messages, each once (zod may report one problem on several paths). */
function messagesOf(error: z.ZodError): string[] {
  return [...new Set(error.issues.map((issue) => issue.message))];
}

export interface PushRequestInput {
  /** As stored from the API (PushSubscriptionSchema); checked again here. */
  subscription: PushSubscriptionInput;
  payload: PushAlert;
  vapid: VapidDetails;
  /** How long the push service keeps the message for a browser that is offline, seconds. */
  ttlSeconds: number;
}

/** An encrypted, signed push, for deliver() to send. */
export interface PushRequest {
  /** The subscription's endpoint. */
  url: string;
  /** The aes128gcm record: salt, record size, the sender's ephemeral key, the ciphertext. */
  body: Buffer;
  /** Content-Encoding, Content-Type, TTL, Urgency and the VAPID Authorization. */
  headers: Record<string, string>;
}

/**
 * The push of one alert to one browser, encrypted and signed, not sent: deliver() sends it.
 * Throws a PushRequestError when the subscription, the message (its fields, or more than
 * PUSH_PAYLOAD_MAX_BYTES), the VAPID details or the TTL are refused.
 */
export function pushRequest(input: PushRequestInput): PushRequest {
  const subscription = SendableSubscriptionSchema.safeParse(input.subscription);
  if (!subscription.success) {
    throw new PushRequestError('invalid_subscription', messagesOf(subscription.error));
  }
  const payload = PushAlertSchema.safeParse(input.payload);
  if (!payload.success) throw new PushRequestError('invalid_payload', messagesOf(payload.error));
  const json = alertJson(payload.data);
  if (utf8Bytes(json) > PUSH_PAYLOAD_MAX_BYTES) {
    throw new PushRequestError('payload_too_large', [PUSH_MESSAGES.payloadTooLarge]);
  }
  const vapid = VapidDetailsSchema.safeParse(input.vapid);
  if (!vapid.success) throw new PushRequestError('invalid_vapid', messagesOf(vapid.error));
  const ttl = input.ttlSeconds;
  if (!Number.isInteger(ttl) || ttl < 0 || ttl > PUSH_TTL_MAX_SECONDS) {
    throw new PushRequestError('invalid_ttl', [PUSH_MESSAGES.ttlInvalid]);
  }

  const details = webpush.generateRequestDetails(subscription.data, json, {
    contentEncoding: 'aes128gcm',
    TTL: ttl,
    vapidDetails: vapid.data,
  });
  // web-push's types say strings, but it gives TTL and Content-Length as numbers; deliver()
  // sets the length itself.
  const given: Readonly<Record<string, string | number>> = details.headers;
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(given)) {
    if (name.toLowerCase() !== 'content-length') headers[name] = String(value);
  }
  if (!headers.Authorization?.startsWith('vapid t=')) {
    // Only a retired push service gets no VAPID signature, and the schema refused those.
    throw new PushRequestError('invalid_subscription', [PUSH_MESSAGES.endpointRetired]);
  }
  return { url: subscription.data.endpoint, body: details.body, headers };
}

// ---- Sending -----------------------------------------------------------------------------------

/**
 * Why a push failed: deliver()'s reasons, `subscription_gone` (the push service answered 404 or
 * 410: delete the subscription, do not try again), or a problem with the push itself (nothing
 * was sent).
 */
export type PushFailure = DeliveryFailure | 'subscription_gone' | PushRequestProblem;

export interface PushResult extends Omit<DeliveryResult, 'code'> {
  code?: PushFailure;
}

/** Statuses by which a push service says a subscription no longer exists (RFC 8030). */
const GONE_STATUSES: ReadonlySet<number> = new Set([404, 410]);

/**
 * Builds the push (pushRequest) and sends it with deliver(), under the same options. Resolves
 * with deliver()'s result, except that a 404 or 410 is `subscription_gone`; a push refused
 * before sending resolves too, with its PushRequestProblem as the code and no connection made.
 * It rejects only if web-push itself fails on input these checks let through.
 */
export async function sendPush(
  input: PushRequestInput,
  options: DeliveryOptions,
): Promise<PushResult> {
  let request: PushRequest;
  try {
    request = pushRequest(input);
  } catch (error) {
    if (error instanceof PushRequestError) {
      return { ok: false, code: error.code, error: error.message, durationMs: 0 };
    }
    throw error;
  }
  const result = await deliver(request, options);
  if (result.status !== undefined && GONE_STATUSES.has(result.status)) {
    return { ...result, ok: false, code: 'subscription_gone', error: PUSH_MESSAGES.gone };
  }
  return result;
}
