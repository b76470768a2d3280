/**
 * Each destination format of an alert (src/server/alerts/formats.ts), checked the way a receiver
 * sees it: the request is built, sent by deliver() (outbound.ts) to a real HTTP server on
 * loopback, and what the server received is read back: a Standard Webhooks signature verified
 * by the specification's own library, Slack's and Discord's JSON, ntfy's text and headers.
 * User text is hostile on purpose (markup, mentions, newlines, accents, a thousand emoji): it
 * must never break a body or a header, ping anyone, or push a body past 4,096 bytes.
 */
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import {
  closeReceivers,
  startReceiver,
  type Received,
  type Receiver,
} from '../helpers/receiver.js';
import {
  ALERT_BODY_MAX_BYTES,
  alertRuleSummary,
  type AlertEventBody,
  type AlertRule,
  type AlertWhen,
} from '../../src/shared/alerts.js';
import {
  type AlertAttempt,
  type AlertTarget,
  alertRequest,
  alertSentence,
  alertTexts,
  newWebhookSecret,
  standardRequest,
} from '../../src/server/alerts/formats.js';
import { deliver } from '../../src/server/alerts/outbound.js';

afterEach(closeReceivers);

/** Builds the attempt's request, delivers it, and returns what the receiver got. */
async function sendAndReceive(receiver: Receiver, attempt: AlertAttempt) {
  const request = alertRequest(attempt);
  const delivered = await deliver(request, { allowPrivate: true });
  expect(delivered).toMatchObject({ ok: true, status: 204 });
  expect(receiver.requests).toHaveLength(1);
  const received = receiver.requests[0];
  if (received === undefined) throw new Error('the receiver got nothing');
  return { request, received };
}

/** A header as one string (a receiver sees each of these once). */
function header(received: Received, name: string): string {
  const value = received.headers[name];
  if (typeof value !== 'string') throw new Error(`no ${name} header`);
  return value;
}

/** The body as UTF-8, refusing any byte sequence that is not valid UTF-8. */
function utf8(raw: Buffer): string {
  return new TextDecoder('utf-8', { fatal: true }).decode(raw);
}

/** A header value read back as ntfy reads it: RFC 2047 encoded-words decoded, else as sent. */
function decodeRfc2047(value: string): string {
  const words = value.split(' ');
  const encoded = /^=\?UTF-8\?B\?([A-Za-z0-9+/=]*)\?=$/i;
  if (!words.every((word) => encoded.test(word))) return value;
  return Buffer.concat(
    words.map((word) => Buffer.from(encoded.exec(word)?.[1] ?? '', 'base64')),
  ).toString('utf8');
}

const GROUP_URL = 'https://tally.example/game-night';
const AT = '2026-11-27T18:30:00.000Z';

function rule(when: AlertWhen): AlertRule {
  return {
    id: 'rule-1',
    counterId: null,
    section: null,
    when,
    to: { kind: 'webhook', url: 'https://hooks.example/secret-path', format: 'standard' },
  };
}

/** An event of each type, as the domain writes them (counter "Visitors", member Ada). */
function sampleEvents(counterName = 'Visitors'): Record<AlertEventBody['type'], AlertEventBody> {
  const base = { group: 'game-night', by: 'Ada', at: AT };
  const counter = (value: number) => ({ id: 'c1', name: counterName, value });
  return {
    'counter.reached': {
      type: 'counter.reached',
      ...base,
      counter: counter(200),
      rule: alertRuleSummary(rule({ kind: 'reaches', value: 200 })),
    },
    'counter.fell': {
      type: 'counter.fell',
      ...base,
      counter: counter(0),
      rule: alertRuleSummary(rule({ kind: 'fallsTo', value: 0 })),
    },
    'counter.goal': {
      type: 'counter.goal',
      ...base,
      counter: counter(1000),
      rule: alertRuleSummary(rule({ kind: 'goal' })),
    },
    'counter.every': {
      type: 'counter.every',
      ...base,
      counter: counter(2003),
      multiple: 2000,
      rule: alertRuleSummary(rule({ kind: 'every', value: 1000 })),
    },
    'counter.capacity': {
      type: 'counter.capacity',
      ...base,
      counter: counter(192),
      capacity: { state: 'nearlyFull', change: 'entered' },
      rule: alertRuleSummary(rule({ kind: 'capacity', state: 'nearlyFull' })),
    },
    'counter.period': {
      type: 'counter.period',
      ...base,
      by: null,
      counter: counter(0),
      period: { start: '2026-11-26T23:00:00.000Z', end: '2026-11-27T23:00:00.000Z', total: 42 },
      rule: alertRuleSummary(rule({ kind: 'periodEnd' })),
    },
  };
}

const reached = sampleEvents()['counter.reached'];

describe('the standard format (Standard Webhooks)', () => {
  it('sends the event JSON signed so the specification library verifies it', async () => {
    const receiver = await startReceiver();
    const secret = newWebhookSecret();
    const { received } = await sendAndReceive(receiver, {
      id: 'msg_alert_1',
      event: reached,
      groupName: 'Game night',
      groupUrl: GROUP_URL,
      target: { format: 'standard', url: `${receiver.origin}/hook`, secret },
    });

    expect(received.method).toBe('POST');
    expect(received.url).toBe('/hook');
    expect(header(received, 'content-type')).toBe('application/json');
    expect(header(received, 'webhook-id')).toBe('msg_alert_1');
    expect(header(received, 'webhook-timestamp')).toMatch(/^\d+$/);
    expect(header(received, 'webhook-signature')).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    const headers = received.headers as Record<string, string>;
    expect(new Webhook(secret).verify(received.body, headers)).toEqual(reached);
  });

  it('fails verification with another secret or a changed body', async () => {
    const receiver = await startReceiver();
    const secret = newWebhookSecret();
    const { received } = await sendAndReceive(receiver, {
      id: 'msg_alert_2',
      event: reached,
      groupName: 'Game night',
      groupUrl: GROUP_URL,
      target: { format: 'standard', url: receiver.origin, secret },
    });
    const headers = received.headers as Record<string, string>;

    expect(() => new Webhook(newWebhookSecret()).verify(received.body, headers)).toThrow();
    const tampered = utf8(received.body).replace('"value":200', '"value":201');
    expect(tampered).not.toBe(utf8(received.body));
    expect(() => new Webhook(secret).verify(tampered, headers)).toThrow();
  });

  it('keeps the alert id on a retry and signs the retry with its own timestamp', () => {
    const target = { url: 'https://hooks.example/x', secret: newWebhookSecret() };
    const first = standardRequest({
      event: reached,
      id: 'msg_same',
      target,
      attemptAt: new Date('2026-11-27T18:30:00Z'),
    });
    const retry = standardRequest({
      event: reached,
      id: 'msg_same',
      target,
      attemptAt: new Date('2026-11-27T18:31:00Z'),
    });

    expect(retry.headers?.['webhook-id']).toBe(first.headers?.['webhook-id']);
    expect(first.headers?.['webhook-timestamp']).toBe('1795804200');
    expect(retry.headers?.['webhook-timestamp']).toBe('1795804260');
    expect(retry.headers?.['webhook-signature']).not.toBe(first.headers?.['webhook-signature']);
    expect(retry.body).toBe(first.body);
  });

  it('refuses an id that no header can carry', () => {
    const target = { url: 'https://hooks.example/x', secret: newWebhookSecret() };
    expect(() => standardRequest({ event: reached, id: 'a\r\nb', target })).toThrow(TypeError);
    expect(() => standardRequest({ event: reached, id: '', target })).toThrow(TypeError);
  });

  it('makes secrets of whsec_ and the base64 of 32 random bytes, each one new', () => {
    const secrets = [newWebhookSecret(), newWebhookSecret()];
    for (const secret of secrets) {
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(Buffer.from(secret.slice('whsec_'.length), 'base64')).toHaveLength(32);
    }
    expect(secrets[0]).not.toBe(secrets[1]);
  });
});

describe('the slack format (incoming webhook)', () => {
  it('sends text and a mrkdwn section, with &, < and > of user text escaped', async () => {
    const receiver = await startReceiver();
    const event = { ...reached, counter: { ...reached.counter, name: '<script>x</script>' } };
    const { received } = await sendAndReceive(receiver, {
      id: 'msg_slack',
      event,
      groupName: 'Tom & Jerry <!channel>',
      groupUrl: GROUP_URL,
      target: { format: 'slack', url: `${receiver.origin}/services/T0/B0/secret` },
    });

    expect(header(received, 'content-type')).toBe('application/json');
    const message = JSON.parse(utf8(received.body)) as {
      text: string;
      blocks: { type: string; text: { type: string; text: string } }[];
    };
    expect(message.text).toBe(
      '&lt;script&gt;x&lt;/script&gt; reached 200 in Tom &amp; Jerry &lt;!channel&gt; (by Ada)',
    );
    expect(message.blocks).toHaveLength(1);
    const section = message.blocks[0];
    expect(section?.type).toBe('section');
    expect(section?.text.type).toBe('mrkdwn');
    expect(section?.text.text).toBe(
      `${message.text}\n<https://tally.example/game-night|Open the group in Tally>`,
    );
    expect(utf8(received.body)).not.toMatch(/<script>|<!channel>/);
  });
});

describe('the discord format (execute webhook)', () => {
  it('sends content of at most 2,000 characters that mentions nobody', async () => {
    const receiver = await startReceiver();
    const event = { ...reached, counter: { ...reached.counter, name: '@everyone **now**' } };
    const { received } = await sendAndReceive(receiver, {
      id: 'msg_discord',
      event,
      groupName: 'Game night',
      groupUrl: GROUP_URL,
      target: { format: 'discord', url: `${receiver.origin}/api/webhooks/1/secret` },
    });

    expect(header(received, 'content-type')).toBe('application/json');
    const message = JSON.parse(utf8(received.body)) as {
      content: string;
      allowed_mentions: { parse: string[] };
      embeds: { title: string; url: string }[];
    };
    expect(message.allowed_mentions.parse).toEqual([]);
    expect(message.content.length).toBeLessThanOrEqual(2000);
    expect(message.content).toContain('\\@everyone \\*\\*now\\*\\* reached 200');
    expect(message.embeds).toEqual([{ title: 'Game night', url: GROUP_URL, timestamp: AT }]);
  });
});

describe('the ntfy format (publish to a topic)', () => {
  it('sends the sentence as text, with Title, Tags and Click headers', async () => {
    const receiver = await startReceiver();
    const { received } = await sendAndReceive(receiver, {
      id: 'msg_ntfy',
      event: reached,
      groupName: 'Game night',
      groupUrl: GROUP_URL,
      target: { format: 'ntfy', url: `${receiver.origin}/tally-alerts` },
    });

    expect(received.url).toBe('/tally-alerts');
    expect(utf8(received.body)).toBe('Visitors reached 200 in Game night (by Ada)');
    expect(header(received, 'content-type')).toBe('text/plain; charset=utf-8');
    expect(header(received, 'title')).toBe('Game night');
    expect(header(received, 'tags')).toBe('chart_with_upwards_trend');
    expect(header(received, 'click')).toBe(GROUP_URL);
  });

  it('carries a non-ASCII name in RFC 2047 headers that decode back to it', async () => {
    const receiver = await startReceiver();
    const event = { ...reached, counter: { ...reached.counter, name: 'Café ☕' } };
    const groupName = 'Soirée ☕ '.repeat(8).trim();
    const { received } = await sendAndReceive(receiver, {
      id: 'msg_ntfy_utf8',
      event,
      groupName,
      groupUrl: GROUP_URL,
      target: { format: 'ntfy', url: `${receiver.origin}/tally-alerts` },
    });

    expect(utf8(received.body)).toBe(`Café ☕ reached 200 in ${groupName} (by Ada)`);
    const title = header(received, 'title');
    expect(title).toMatch(/^[\x20-\x7e]+$/);
    for (const word of title.split(' ')) expect(word.length).toBeLessThanOrEqual(75);
    expect(decodeRfc2047(title)).toBe(groupName);
  });

  it('encodes an ASCII name that would read as an encoded-word, and drops newlines', async () => {
    const receiver = await startReceiver();
    const groupName = '=?UTF-8?B?SGk=?=\r\nX-Injected: yes';
    const { received } = await sendAndReceive(receiver, {
      id: 'msg_ntfy_ascii',
      event: reached,
      groupName,
      groupUrl: GROUP_URL,
      target: { format: 'ntfy', url: `${receiver.origin}/tally-alerts` },
    });

    expect(received.headers['x-injected']).toBeUndefined();
    expect(decodeRfc2047(header(received, 'title'))).toBe('=?UTF-8?B?SGk=?= X-Injected: yes');
  });
});

describe('what each event says', () => {
  const events = sampleEvents();

  it.each([
    ['counter.reached', 'Visitors reached 200 in Game night (by Ada)', 'chart_with_upwards_trend'],
    ['counter.fell', 'Visitors fell to 0 in Game night (by Ada)', 'chart_with_downwards_trend'],
    ['counter.goal', 'Visitors reached its goal (now 1,000) in Game night (by Ada)', 'trophy'],
    ['counter.every', 'Visitors passed 2,000 (every 1,000) in Game night (by Ada)', 'tada'],
    ['counter.capacity', 'Visitors is nearly full (now 192) in Game night (by Ada)', 'warning'],
    ['counter.period', 'Visitors: the day ended with 42 in Game night', 'calendar'],
  ] as const)('%s: "%s", tagged %s on ntfy', async (type, sentence, tag) => {
    const receiver = await startReceiver();
    const { received } = await sendAndReceive(receiver, {
      id: `msg_${type}`,
      event: events[type],
      groupName: 'Game night',
      groupUrl: GROUP_URL,
      target: { format: 'ntfy', url: receiver.origin },
    });
    expect(utf8(received.body)).toBe(sentence);
    expect(header(received, 'tags')).toBe(tag);
  });

  it('says a value that moved past the threshold, and capacity left and full', () => {
    const texts = alertTexts(reached, 'Hall');
    const past = { ...reached, counter: { ...reached.counter, value: 205 } };
    expect(alertSentence(past, texts)).toBe('Visitors reached 200 (now 205) in Hall (by Ada)');

    const capacity = events['counter.capacity'];
    if (capacity.type !== 'counter.capacity') throw new Error('a capacity event');
    const full = { ...capacity, capacity: { state: 'full', change: 'entered' } } as const;
    const left = { ...capacity, capacity: { state: 'full', change: 'left' } } as const;
    expect(alertSentence(full, texts)).toBe('Visitors is full (now 192) in Hall (by Ada)');
    expect(alertSentence(left, texts)).toBe(
      'Visitors is no longer full (now 192) in Hall (by Ada)',
    );
  });

  it('names a week and a month by their length, with thousands separators', () => {
    const period = events['counter.period'];
    if (period.type !== 'counter.period') throw new Error('a period event');
    const texts = alertTexts(period, 'Game night');
    const week = {
      ...period,
      period: { start: '2026-11-16T00:00:00.000Z', end: '2026-11-23T00:00:00.000Z', total: 12345 },
    };
    const month = {
      ...period,
      period: { start: '2026-10-01T00:00:00.000Z', end: '2026-11-01T00:00:00.000Z', total: 7 },
    };
    expect(alertSentence(week, texts)).toBe('Visitors: the week ended with 12,345 in Game night');
    expect(alertSentence(month, texts)).toBe('Visitors: the month ended with 7 in Game night');
  });

  it('falls back to the group slug when the display name is blank', () => {
    expect(alertSentence(reached, alertTexts(reached, '  '))).toBe(
      'Visitors reached 200 in game-night (by Ada)',
    );
  });
});

describe('long user text', () => {
  const formats: AlertTarget['format'][] = ['standard', 'slack', 'discord', 'ntfy'];
  const emoji = '😀'.repeat(1000);
  const ampersands = '&'.repeat(1000);

  it.each(formats)(
    '%s: a counter and a group named with 1,000 emoji stay within 4,096 bytes of valid UTF-8',
    async (format) => {
      const receiver = await startReceiver();
      const event = sampleEvents(emoji)['counter.every'];
      const target: AlertTarget =
        format === 'standard'
          ? { format, url: receiver.origin, secret: newWebhookSecret() }
          : { format, url: receiver.origin };
      const { received } = await sendAndReceive(receiver, {
        id: `msg_long_${format}`,
        event,
        groupName: emoji,
        groupUrl: GROUP_URL,
        target,
      });

      expect(received.body.length).toBeLessThanOrEqual(ALERT_BODY_MAX_BYTES);
      const text = utf8(received.body);
      // The cut falls between emoji: no half of a surrogate pair is left (it would be U+FFFD).
      expect(text).not.toContain('\ufffd');
      expect(text).toContain('😀');
      if (format !== 'ntfy') expect(() => JSON.parse(text) as unknown).not.toThrow();
      if (format === 'discord') {
        const { content } = JSON.parse(text) as { content: string };
        expect(content.length).toBeLessThanOrEqual(2000);
        expect(content).toContain('…');
      }
      if (format === 'ntfy')
        expect(text).toMatch(/^😀+… passed 2,000 \(every 1,000\) in 😀+… \(by Ada\)$/u);
    },
  );

  it('cuts between the characters a reader sees, never inside an emoji of several code points', async () => {
    const receiver = await startReceiver();
    const family = '👨‍👩‍👧';
    const { received } = await sendAndReceive(receiver, {
      id: 'msg_family',
      event: sampleEvents(family.repeat(400))['counter.reached'],
      groupName: 'Game night',
      groupUrl: GROUP_URL,
      target: { format: 'ntfy', url: receiver.origin },
    });

    expect(received.body.length).toBeLessThanOrEqual(ALERT_BODY_MAX_BYTES);
    expect(utf8(received.body)).toMatch(/^(👨‍👩‍👧)+… reached 200 in Game night \(by Ada\)$/u);
  });

  it.each(['slack', 'discord'] as const)(
    '%s: names of 1,000 characters that escaping lengthens still fit, every field kept',
    async (format) => {
      const receiver = await startReceiver();
      const { received } = await sendAndReceive(receiver, {
        id: `msg_escaped_${format}`,
        event: sampleEvents(ampersands)['counter.reached'],
        groupName: '*'.repeat(1000),
        groupUrl: GROUP_URL,
        target: { format, url: receiver.origin },
      });

      expect(received.body.length).toBeLessThanOrEqual(ALERT_BODY_MAX_BYTES);
      const message = JSON.parse(utf8(received.body)) as Record<string, unknown>;
      expect(Object.keys(message).sort()).toEqual(
        format === 'slack' ? ['blocks', 'text'] : ['allowed_mentions', 'content', 'embeds'],
      );
      expect(utf8(received.body)).toContain('reached 200 in');
    },
  );
});
