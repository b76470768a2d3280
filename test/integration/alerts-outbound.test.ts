/**
 * Sending alerts to destinations a stranger chose (src/server/alerts/outbound.ts): anyone can
 * create a group, so an alert's URL must never let them reach the server's own network. The
 * receivers here are real HTTP servers on loopback, which is exactly what a delivery must refuse
 * unless private addresses are allowed; each counts the connections it accepts, so "refused
 * before any connection" is checked by the receiver itself.
 */
import type { LookupAddress } from 'node:dns';
import { afterEach, describe, expect, it } from 'vitest';
import { closeReceivers, startReceiver } from '../helpers/receiver.js';
import {
  DestinationClient,
  MAX_DESTINATION_URL_LENGTH,
  type Resolver,
  checkDestinationUrl,
  classifyAddress,
  deliver,
  rangeAllowed,
  resolveAndCheck,
} from '../../src/server/alerts/outbound.js';

/** A public address (example.com's, from the documentation-free public space). */
const PUBLIC_V4 = '93.184.215.14';
/** The secret part of a webhook URL, which no result may repeat. */
const SECRET = 'T000-secret-token-B999';

afterEach(closeReceivers);

/** A resolver that gives each answer in turn (the last one from then on), counting calls. */
function changingResolver(...answers: string[][]): Resolver & { calls: () => number } {
  let calls = 0;
  const resolver = (): Promise<LookupAddress[]> => {
    const answer = answers[Math.min(calls, answers.length - 1)] ?? [];
    calls += 1;
    return Promise.resolve(
      answer.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
    );
  };
  return Object.assign(resolver, { calls: () => calls });
}

describe('which addresses an alert may reach', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['::1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['fc00::1', 'private'],
    ['fd12:3456::1', 'private'],
    ['169.254.1.1', 'linkLocal'],
    ['fe80::1', 'linkLocal'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['ff02::1', 'multicast'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['100.127.255.255', 'carrierGradeNat'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['192.0.2.1', 'reserved'],
    ['2001:db8::1', 'reserved'],
    ['169.254.169.254', 'cloudMetadata'],
    ['fd00:ec2::254', 'cloudMetadata'],
    ['100.100.100.200', 'cloudMetadata'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:169.254.169.254', 'cloudMetadata'],
    ['::127.0.0.1', 'loopback'],
    ['64:ff9b::7f00:1', 'loopback'],
    ['64:ff9b::a00:1', 'private'],
    ['2002:7f00:1::', 'loopback'],
    ['2002:a9fe:a9fe::', 'cloudMetadata'],
    ['[::1]', 'loopback'],
    ['not-an-address', 'invalid'],
  ])('%s is %s and refused', (address, range) => {
    expect(classifyAddress(address)).toBe(range);
    expect(rangeAllowed(classifyAddress(address), { allowPrivate: false })).toBe(false);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '172.32.0.1',
    PUBLIC_V4,
    '2606:4700:4700::1111',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2002:808:808::1',
  ])('%s is public and allowed', (address) => {
    expect(classifyAddress(address)).toBe('public');
    expect(rangeAllowed('public', { allowPrivate: false })).toBe(true);
  });

  it('with private addresses allowed, the local network passes but the metadata service, multicast, broadcast and the unspecified address never do', () => {
    for (const address of [
      '127.0.0.1',
      '::1',
      '10.0.0.1',
      '192.168.0.10',
      'fe80::1',
      '100.64.1.1',
    ]) {
      expect(rangeAllowed(classifyAddress(address), { allowPrivate: true })).toBe(true);
    }
    for (const address of [
      '169.254.169.254',
      'fd00:ec2::254',
      '224.0.0.1',
      '255.255.255.255',
      '0.0.0.0',
      '::',
    ]) {
      expect(rangeAllowed(classifyAddress(address), { allowPrivate: true })).toBe(false);
    }
  });
});

describe('checking a destination URL', () => {
  const publicOnly = { allowPrivate: false };

  it('accepts a public https:// URL', () => {
    const checked = checkDestinationUrl(`https://hooks.slack.com/services/${SECRET}`, publicOnly);
    expect(checked.ok).toBe(true);
  });

  it('accepts only https:// unless private addresses are allowed, then http:// too', () => {
    const plain = checkDestinationUrl(`http://example.com/${SECRET}`, publicOnly);
    expect(plain).toMatchObject({
      ok: false,
      code: 'destination_refused',
      problem: 'scheme',
      message: 'Alerts can only be sent to public https:// addresses',
    });
    expect(checkDestinationUrl('http://example.com/hook', { allowPrivate: true }).ok).toBe(true);
  });

  it('refuses other schemes even with private addresses allowed', () => {
    for (const url of [
      'ftp://example.com/x',
      'file:///etc/passwd',
      'javascript:alert(1)',
      'gopher://example.com/',
    ]) {
      expect(checkDestinationUrl(url, { allowPrivate: true })).toMatchObject({
        ok: false,
        problem: 'scheme',
      });
    }
  });

  it('refuses a user name or password in the URL', () => {
    for (const url of [
      'https://user:pass@example.com/hook',
      'https://user@example.com/hook',
      'https://:pass@example.com/',
    ]) {
      expect(checkDestinationUrl(url, publicOnly)).toMatchObject({
        ok: false,
        problem: 'credentials',
      });
    }
  });

  it('accepts 2,048 characters and refuses one more', () => {
    const base = 'https://example.com/';
    const longest = base + 'a'.repeat(MAX_DESTINATION_URL_LENGTH - base.length);
    expect(longest).toHaveLength(2_048);
    expect(checkDestinationUrl(longest, publicOnly).ok).toBe(true);
    expect(checkDestinationUrl(`${longest}a`, publicOnly)).toMatchObject({
      ok: false,
      problem: 'too_long',
      message: 'The address is longer than 2,048 characters',
    });
  });

  it('refuses what is not a URL', () => {
    for (const url of ['', 'hooks.slack.com/services/x', 'https://', 'https://exa mple.com/']) {
      expect(checkDestinationUrl(url, publicOnly)).toMatchObject({
        ok: false,
        problem: 'invalid_url',
      });
    }
  });

  it('refuses an IP address of the local network written in the URL, in any spelling, without a lookup', () => {
    for (const url of [
      'https://127.0.0.1/',
      'https://127.1/',
      'https://2130706433/',
      'https://0x7f.0.0.1/',
      'https://[::1]/',
      'https://[::ffff:127.0.0.1]/',
      'https://10.0.0.1/',
      'https://169.254.169.254/latest/meta-data/',
      'https://[fd00:ec2::254]/',
      'https://0.0.0.0/',
      'https://localhost/',
      'https://LOCALHOST./',
      'https://api.localhost/',
    ]) {
      expect(checkDestinationUrl(url, publicOnly), url).toMatchObject({
        ok: false,
        code: 'destination_refused',
        problem: 'blocked_address',
      });
    }
  });

  it('never repeats the URL in its message', () => {
    for (const url of [
      `http://example.com/${SECRET}`,
      `https://u:${SECRET}@example.com/`,
      `https://10.0.0.1/${SECRET}`,
    ]) {
      const checked = checkDestinationUrl(url, publicOnly);
      expect(checked.ok).toBe(false);
      expect(JSON.stringify(checked)).not.toContain(SECRET);
    }
  });
});

describe('resolving a destination host name', () => {
  it('refuses localhost, which resolves to loopback', async () => {
    expect(await resolveAndCheck('localhost', { allowPrivate: false })).toMatchObject({
      ok: false,
      code: 'destination_refused',
      problem: 'blocked_address',
      range: 'loopback',
    });
  });

  it('refuses a name when any one of its addresses is refused', async () => {
    const resolver = changingResolver([PUBLIC_V4, '10.0.0.7']);
    expect(
      await resolveAndCheck('hooks.example.test', { allowPrivate: false, resolver }),
    ).toMatchObject({ ok: false, problem: 'blocked_address', range: 'private' });
  });

  it('accepts a name whose addresses are all public, and gives them', async () => {
    const resolver = changingResolver([PUBLIC_V4, '2606:4700:4700::1111']);
    const checked = await resolveAndCheck('hooks.example.test', { allowPrivate: false, resolver });
    expect(checked).toEqual({
      ok: true,
      addresses: [
        { address: PUBLIC_V4, family: 4 },
        { address: '2606:4700:4700::1111', family: 6 },
      ],
    });
  });

  it('checks an IP address as it is, without a lookup', async () => {
    const resolver = changingResolver([PUBLIC_V4]);
    expect(await resolveAndCheck('[::1]', { allowPrivate: false, resolver })).toMatchObject({
      ok: false,
      range: 'loopback',
    });
    expect((await resolveAndCheck('8.8.8.8', { allowPrivate: false, resolver })).ok).toBe(true);
    expect(resolver.calls()).toBe(0);
  });

  it('says a name that does not resolve could not be found, without throwing', async () => {
    const failing: Resolver = () =>
      Promise.reject(Object.assign(new Error('nope'), { code: 'ENOTFOUND' }));
    expect(
      await resolveAndCheck('missing.example.test', { allowPrivate: false, resolver: failing }),
    ).toMatchObject({
      ok: false,
      code: 'destination_unresolvable',
      message: 'The host name in the address could not be found',
    });
    expect(
      await resolveAndCheck('empty.example.test', {
        allowPrivate: false,
        resolver: changingResolver([]),
      }),
    ).toMatchObject({
      ok: false,
      code: 'destination_unresolvable',
    });
  });
});

describe('delivering an alert', () => {
  it('with private addresses allowed, posts the exact body and headers to the receiver', async () => {
    const receiver = await startReceiver();
    const body = JSON.stringify({ text: 'Cups of coffee reached 10 ☕' });
    const result = await deliver(
      {
        url: `${receiver.origin}/hook/${SECRET}?channel=alerts`,
        body,
        headers: { 'content-type': 'application/json', 'x-tally-signature': 'abc123' },
      },
      { allowPrivate: true },
    );
    expect(result).toMatchObject({ ok: true, status: 204 });
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
    expect(receiver.requests).toHaveLength(1);
    const [received] = receiver.requests;
    expect(received?.method).toBe('POST');
    expect(received?.url).toBe(`/hook/${SECRET}?channel=alerts`);
    expect(received?.text).toBe(body);
    expect(received?.headers['content-type']).toBe('application/json');
    expect(received?.headers['x-tally-signature']).toBe('abc123');
    expect(received?.headers['content-length']).toBe(String(Buffer.byteLength(body)));
    expect(received?.headers.host).toBe(`127.0.0.1:${receiver.port}`);
  });

  it('sets the length itself: a caller cannot send a Content-Length, Host or Transfer-Encoding of its own', async () => {
    const receiver = await startReceiver();
    const result = await deliver(
      {
        url: `${receiver.origin}/`,
        body: 'hello',
        headers: {
          'Content-Length': '1',
          Host: 'internal.example',
          'Transfer-Encoding': 'chunked',
        },
      },
      { allowPrivate: true },
    );
    expect(result.ok).toBe(true);
    expect(receiver.requests[0]?.text).toBe('hello');
    expect(receiver.requests[0]?.headers['content-length']).toBe('5');
    expect(receiver.requests[0]?.headers.host).toBe(`127.0.0.1:${receiver.port}`);
    expect(receiver.requests[0]?.headers['transfer-encoding']).toBeUndefined();
  });

  it('without private addresses allowed, refuses http://127.0.0.1 and http://localhost before any connection', async () => {
    const receiver = await startReceiver();
    for (const url of [
      `http://127.0.0.1:${receiver.port}/hook`,
      `http://localhost:${receiver.port}/hook`,
      `https://127.0.0.1:${receiver.port}/hook`,
      `https://localhost:${receiver.port}/hook`,
      `https://[::ffff:127.0.0.1]:${receiver.port}/hook`,
    ]) {
      const result = await deliver({ url, body: '{}' }, { allowPrivate: false });
      expect(result, url).toMatchObject({ ok: false, code: 'destination_refused' });
    }
    expect(receiver.connections()).toBe(0);
  });

  it('refuses a name that resolves to loopback, before any connection', async () => {
    const receiver = await startReceiver();
    // A subdomain of localhost would be caught by name; this goes through the lookup instead.
    const resolver = changingResolver(['127.0.0.1']);
    const result = await deliver(
      { url: `https://receiver.example.test:${receiver.port}/hook`, body: '{}' },
      { allowPrivate: false, resolver },
    );
    expect(result).toMatchObject({ ok: false, code: 'destination_refused', range: 'loopback' });
    expect(resolver.calls()).toBe(1);
    expect(receiver.connections()).toBe(0);
  });

  it('connects through the checked lookup: a name the resolver points at the receiver reaches it', async () => {
    const receiver = await startReceiver();
    const resolver = changingResolver(['127.0.0.1']);
    const result = await deliver(
      { url: `http://receiver.example.test:${receiver.port}/hook`, body: 'via the lookup' },
      { allowPrivate: true, resolver },
    );
    expect(result).toMatchObject({ ok: true, status: 204 });
    expect(receiver.requests[0]?.text).toBe('via the lookup');
    expect(receiver.requests[0]?.headers.host).toBe(`receiver.example.test:${receiver.port}`);
    // Once for the check, once when connecting.
    expect(resolver.calls()).toBe(2);
  });

  it('checks the address again when connecting: a name that answers public, then loopback, is refused at the connection', async () => {
    const receiver = await startReceiver();
    const resolver = changingResolver([PUBLIC_V4], ['127.0.0.1']);
    const result = await deliver(
      { url: `https://rebinding.example.test:${receiver.port}/hook/${SECRET}`, body: '{}' },
      { allowPrivate: false, resolver },
    );
    expect(resolver.calls()).toBe(2);
    expect(result).toMatchObject({ ok: false, code: 'destination_refused', range: 'loopback' });
    expect(receiver.connections()).toBe(0);
    expect(JSON.stringify(result)).not.toContain(SECRET);
  });

  it('refuses at the connection when the second answer mixes a public and a private address', async () => {
    const receiver = await startReceiver();
    const resolver = changingResolver([PUBLIC_V4], [PUBLIC_V4, '::ffff:127.0.0.1']);
    const result = await deliver(
      { url: `https://rebinding.example.test:${receiver.port}/hook`, body: '{}' },
      { allowPrivate: false, resolver },
    );
    expect(result).toMatchObject({ ok: false, code: 'destination_refused', range: 'loopback' });
    expect(receiver.connections()).toBe(0);
  });

  it('refuses the cloud metadata service at the connection even with private addresses allowed', async () => {
    const resolver = changingResolver(['127.0.0.1'], ['169.254.169.254']);
    const result = await deliver(
      { url: 'http://metadata.example.test/latest/meta-data/', body: '{}' },
      { allowPrivate: true, resolver },
    );
    expect(result).toMatchObject({
      ok: false,
      code: 'destination_refused',
      range: 'cloudMetadata',
    });
  });

  it('does not follow a redirect: a 3xx is a failed delivery and its target sees nothing', async () => {
    const target = await startReceiver();
    const redirecting = await startReceiver((response) => {
      response.writeHead(302, { location: `${target.origin}/elsewhere` }).end();
    });
    const result = await deliver(
      { url: `${redirecting.origin}/hook`, body: '{}' },
      { allowPrivate: true },
    );
    expect(result).toMatchObject({ ok: false, status: 302, code: 'redirect' });
    expect(redirecting.requests).toHaveLength(1);
    expect(target.connections()).toBe(0);
  });

  it('reports an error status as a failed delivery with the status', async () => {
    const receiver = await startReceiver((response) => {
      response.writeHead(500).end('broken');
    });
    const result = await deliver(
      { url: `${receiver.origin}/`, body: '{}' },
      { allowPrivate: true },
    );
    expect(result).toMatchObject({ ok: false, status: 500, code: 'http_status' });
  });

  it('gives up after timeoutMs on a receiver that never answers, without throwing', async () => {
    const receiver = await startReceiver(() => {
      // Never answers.
    });
    const started = Date.now();
    const result = await deliver(
      { url: `${receiver.origin}/slow`, body: '{}' },
      { allowPrivate: true, timeoutMs: 300 },
    );
    const elapsed = Date.now() - started;
    expect(result).toMatchObject({ ok: false, code: 'timeout' });
    expect(receiver.requests).toHaveLength(1);
    // Generous bounds: it waited for the timeout, and not much longer.
    expect(elapsed).toBeGreaterThanOrEqual(250);
    expect(elapsed).toBeLessThan(5_000);
  });

  it('gives up after timeoutMs when the lookup itself never answers', async () => {
    const hanging: Resolver = () => new Promise(() => undefined);
    const result = await deliver(
      { url: 'https://slow-dns.example.test/hook', body: '{}' },
      { allowPrivate: false, timeoutMs: 300, resolver: hanging },
    );
    expect(result).toMatchObject({ ok: false, code: 'timeout' });
    expect(result.durationMs).toBeLessThan(5_000);
  });

  it('reads only a bounded start of a long answer', async () => {
    const receiver = await startReceiver((response) => {
      // 64 KB and never ends: the delivery must not wait for the rest.
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.write('x'.repeat(65_536));
    });
    const result = await deliver(
      { url: `${receiver.origin}/`, body: '{}' },
      { allowPrivate: true, timeoutMs: 3_000 },
    );
    expect(result).toMatchObject({ ok: true, status: 200 });
    expect(result.durationMs).toBeLessThan(3_000);
  });

  it('refuses a body over 4 KB unsent, and sends one of exactly 4 KB', async () => {
    const receiver = await startReceiver();
    const tooLarge = await deliver(
      { url: `${receiver.origin}/`, body: 'x'.repeat(4_097) },
      { allowPrivate: true },
    );
    expect(tooLarge).toMatchObject({ ok: false, code: 'body_too_large' });
    // Bytes, not characters: 2,049 two-byte characters are 4,098 bytes.
    const multibyte = await deliver(
      { url: `${receiver.origin}/`, body: 'é'.repeat(2_049) },
      { allowPrivate: true },
    );
    expect(multibyte).toMatchObject({ ok: false, code: 'body_too_large' });
    expect(receiver.connections()).toBe(0);

    const largest = await deliver(
      { url: `${receiver.origin}/`, body: 'x'.repeat(4_096) },
      { allowPrivate: true },
    );
    expect(largest).toMatchObject({ ok: true });
    expect(receiver.requests[0]?.body).toHaveLength(4_096);
  });

  it('sends only to https:// without private addresses allowed', async () => {
    const resolver = changingResolver([PUBLIC_V4]);
    const result = await deliver(
      { url: `http://hooks.example.test/${SECRET}`, body: '{}' },
      { allowPrivate: false, resolver },
    );
    expect(result).toMatchObject({
      ok: false,
      code: 'destination_refused',
      error: 'Alerts can only be sent to public https:// addresses',
    });
    expect(resolver.calls()).toBe(0);
  });

  it('reports a refused connection as a failed delivery, without throwing', async () => {
    const receiver = await startReceiver();
    const closedPort = receiver.port;
    await receiver.close();
    const result = await deliver(
      { url: `http://127.0.0.1:${closedPort}/hook/${SECRET}`, body: '{}' },
      { allowPrivate: true },
    );
    expect(result).toMatchObject({ ok: false, code: 'network' });
    expect(JSON.stringify(result)).not.toContain(SECRET);
  });

  it('reports a header that cannot be sent as a failed delivery, without throwing', async () => {
    const receiver = await startReceiver();
    const result = await deliver(
      { url: `${receiver.origin}/`, body: '{}', headers: { 'x-bad': 'line\r\nbreak' } },
      { allowPrivate: true },
    );
    expect(result).toMatchObject({ ok: false, code: 'invalid_request' });
    expect(receiver.connections()).toBe(0);
  });
});

describe("a destination's kept connection", () => {
  const clients: DestinationClient[] = [];
  afterEach(() => {
    for (const client of clients.splice(0)) client.close();
  });
  function clientFor(url: string, options: { allowPrivate: boolean; resolver?: Resolver }) {
    const client = new DestinationClient(url, options);
    clients.push(client);
    return client;
  }

  it("sends a destination's alerts, one after the other, over one connection", async () => {
    const receiver = await startReceiver();
    const client = clientFor(`${receiver.origin}/hook`, { allowPrivate: true });
    for (const body of ['first', 'second', 'third']) {
      expect(await client.send({ body })).toMatchObject({ ok: true, status: 204 });
    }
    expect(receiver.requests.map((request) => request.text)).toEqual(['first', 'second', 'third']);
    expect(receiver.connections()).toBe(1);
  });

  it('sends once more on a new connection when the receiver drops the kept one as it is reused', async () => {
    let answered = 0;
    const receiver = await startReceiver((response) => {
      answered += 1;
      // The second request arrives on the kept connection, which the receiver then drops.
      if (answered === 2) response.socket?.destroy();
      else response.writeHead(204).end();
    });
    const client = clientFor(`${receiver.origin}/hook`, { allowPrivate: true });
    expect(await client.send({ body: 'first' })).toMatchObject({ ok: true });
    expect(await client.send({ body: 'second' })).toMatchObject({ ok: true, status: 204 });
    expect(receiver.requests.map((request) => request.text)).toEqual(['first', 'second', 'second']);
    expect(receiver.connections()).toBe(2);
  });

  it('checks the address at each new connection: a name that now resolves to the metadata service is refused once the kept connection is gone', async () => {
    // The receiver ends the connection after its first answer.
    const receiver = await startReceiver((response) => {
      response.writeHead(204, { connection: 'close' }).end();
    });
    const resolver = changingResolver(['127.0.0.1'], ['169.254.169.254']);
    const client = clientFor(`http://receiver.example.test:${receiver.port}/hook/${SECRET}`, {
      allowPrivate: true,
      resolver,
    });
    expect(await client.send({ body: 'first' })).toMatchObject({ ok: true });
    const second = await client.send({ body: 'second' });
    expect(second).toMatchObject({
      ok: false,
      code: 'destination_refused',
      range: 'cloudMetadata',
    });
    expect(JSON.stringify(second)).not.toContain(SECRET);
    expect(resolver.calls()).toBe(2);
    expect(receiver.requests).toHaveLength(1);
  });

  it('reuses the kept connection without a lookup: it leads to the address checked when it was made', async () => {
    const receiver = await startReceiver();
    const resolver = changingResolver(['127.0.0.1'], ['169.254.169.254']);
    const client = clientFor(`http://receiver.example.test:${receiver.port}/hook`, {
      allowPrivate: true,
      resolver,
    });
    expect(await client.send({ body: 'first' })).toMatchObject({ ok: true });
    expect(await client.send({ body: 'second' })).toMatchObject({ ok: true });
    expect(resolver.calls()).toBe(1);
    expect(receiver.connections()).toBe(1);
  });

  it('refuses what deliver() refuses, before any connection', async () => {
    const receiver = await startReceiver();
    const refused = clientFor(`http://127.0.0.1:${receiver.port}/hook`, { allowPrivate: false });
    expect(await refused.send({ body: '{}' })).toMatchObject({
      ok: false,
      code: 'destination_refused',
    });
    const allowed = clientFor(`${receiver.origin}/hook`, { allowPrivate: true });
    expect(await allowed.send({ body: 'x'.repeat(4_097) })).toMatchObject({
      ok: false,
      code: 'body_too_large',
    });
    expect(receiver.connections()).toBe(0);
  });
});
