/**
 * One alert event as the HTTP request each destination format expects, ready for deliver()
 * (outbound.ts):
 *
 * - `standard`: the Standard Webhooks specification. The body is the event's JSON
 *   (AlertEventBody), signed with the destination's secret: `webhook-id` (the alert's id, the
 *   same on every retry, so a receiver can drop a repeat), `webhook-timestamp` (seconds, this
 *   attempt's) and `webhook-signature` (`v1,` and the base64 HMAC-SHA256 of
 *   `id.timestamp.body`, keyed with the secret's bytes), as the `standardwebhooks` library
 *   computes it (its pure-JavaScript SHA-256 is slower than node:crypto's).
 * - `slack`, `discord`, `ntfy`: a sentence a person reads, in each service's own body
 *   (format-services.ts).
 *
 * Every body is at most ALERT_BODY_MAX_BYTES of UTF-8: user text is shortened to fit, never a
 * field dropped.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { ALERT_BODY_MAX_BYTES, fitAlertBody, type AlertEventBody } from '../../shared/alerts.js';
import {
  type AlertMessage,
  type MessageTarget,
  discordRequest,
  ntfyRequest,
  slackRequest,
} from './format-services.js';
import type { OutboundRequest } from './outbound.js';

export {
  DISCORD_CONTENT_MAX_LENGTH,
  NTFY_TITLE_MAX_CHARACTERS,
  SLACK_SECTION_MAX_LENGTH,
  discordRequest,
  escapeDiscord,
  escapeSlack,
  headerValue,
  ntfyRequest,
  slackRequest,
  type AlertMessage,
  type MessageTarget,
} from './format-services.js';
export { alertSentence, alertTexts, type AlertTexts } from './format-text.js';

/** What a Standard Webhooks secret starts with, before the base64 of its key. */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';
/** Bytes of key in a new secret: as long as the HMAC-SHA256 it signs with. */
export const WEBHOOK_SECRET_BYTES = 32;

/** A new signing secret for a `standard` destination, as the specification writes them. */
export function newWebhookSecret(): string {
  return WEBHOOK_SECRET_PREFIX + randomBytes(WEBHOOK_SECRET_BYTES).toString('base64');
}

/** A `standard` destination: its URL and the secret its requests are signed with. */
export interface StandardTarget {
  url: string;
  /** `whsec_` and the base64 of the key (newWebhookSecret). */
  secret: string;
}

/** A webhook id a header can carry: printable ASCII, no space. */
const WEBHOOK_ID = /^[\x21-\x7e]{1,255}$/;

/** The `webhook-signature` of a Standard Webhooks request: `seconds` is its timestamp. */
function signature(secret: string, signed: { id: string; seconds: number; body: string }): string {
  const key = Buffer.from(
    secret.startsWith(WEBHOOK_SECRET_PREFIX) ? secret.slice(WEBHOOK_SECRET_PREFIX.length) : secret,
    'base64',
  );
  const mac = createHmac('sha256', key);
  mac.update(`${signed.id}.${String(signed.seconds)}.`).update(signed.body);
  return `v1,${mac.digest('base64')}`;
}

/**
 * The event's JSON as sent: `json` (as the commit wrote it) when it is given and fits, else
 * the event written and fitted to ALERT_BODY_MAX_BYTES.
 */
function eventJson(event: AlertEventBody, json: string | undefined): string {
  if (json !== undefined && Buffer.byteLength(json) <= ALERT_BODY_MAX_BYTES) return json;
  return JSON.stringify(fitAlertBody(event));
}

/**
 * A Standard Webhooks request: the event's JSON (fitted to ALERT_BODY_MAX_BYTES; `eventJson`,
 * the event as the commit wrote it, is sent as it is when it fits), signed with the target's
 * secret for the alert `id` at `attemptAt` (the signature's timestamp, now by default: each
 * retry is signed anew, with the same id). Throws for an id no header can carry.
 */
export function standardRequest(options: {
  event: AlertEventBody;
  eventJson?: string;
  id: string;
  target: StandardTarget;
  attemptAt?: Date;
}): OutboundRequest {
  const { id, target } = options;
  if (!WEBHOOK_ID.test(id)) throw new TypeError('A webhook id is 1 to 255 printable characters');
  const seconds = Math.floor((options.attemptAt?.getTime() ?? Date.now()) / 1000);
  const body = eventJson(options.event, options.eventJson);
  return {
    url: target.url,
    body,
    headers: {
      'content-type': 'application/json',
      'webhook-id': id,
      'webhook-timestamp': String(seconds),
      'webhook-signature': signature(target.secret, { id, seconds, body }),
    },
  };
}

/** Where one alert goes, by format: a `standard` destination also holds its secret. */
export type AlertTarget =
  | ({ format: 'standard' } & StandardTarget)
  | ({ format: 'slack' | 'discord' | 'ntfy' } & MessageTarget);

/** One delivery attempt of one alert to one destination. */
export interface AlertAttempt extends AlertMessage {
  /** The alert's unique id: every retry of the same alert to the same place reuses it. */
  id: string;
  /** The event as the commit wrote it (JSON): a `standard` body sends it unchanged. */
  eventJson?: string;
  target: AlertTarget;
  /** When the attempt is made (a `standard` signature's timestamp); now by default. */
  attemptAt?: Date;
}

/** The request one attempt sends, in the target's format. */
export function alertRequest(attempt: AlertAttempt): OutboundRequest {
  const { target } = attempt;
  switch (target.format) {
    case 'standard':
      return standardRequest({
        event: attempt.event,
        eventJson: attempt.eventJson,
        id: attempt.id,
        target,
        attemptAt: attempt.attemptAt,
      });
    case 'slack':
      return slackRequest(attempt, target);
    case 'discord':
      return discordRequest(attempt, target);
    case 'ntfy':
      return ntfyRequest(attempt, target);
  }
}
