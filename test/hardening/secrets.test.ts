/**
 * The key never leaks and its stored hash never leaves the server: not in a log line (at trace
 * level), not in any answer body or header, not in a live message or close reason — whatever
 * path the key travelled and whether the call succeeded, failed, or was rate-limited.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROTOCOL_VERSION } from '../../src/shared/protocol.js';
import { call, createGroup, newKey } from '../helpers/client.js';
import { connectLive, joinLive } from '../helpers/live.js';
import { callFrom, liveAuthFrom } from './support/from.js';
import { rawExchange } from './support/raw-http.js';
import { startHardenedServer, type HardenedServer } from './support/server.js';

let server: HardenedServer;
beforeAll(async () => {
  server = await startHardenedServer({ logLevel: 'trace' });
});
afterAll(async () => {
  await server.close();
});

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('the access key and its hash', () => {
  it('appear in no answer, no live message, no close reason and no log line', async () => {
    const member = await createGroup(server.url);
    const { key } = member;
    const hash = sha256(key);
    const seen: string[] = [];
    const record = (answer: { status: number; body: unknown; headers: Headers }) => {
      seen.push(`${answer.status} ${JSON.stringify(answer.body)}`);
      answer.headers.forEach((value, name) => seen.push(`${name}: ${value}`));
    };

    const counter = await member.addCounter({ name: 'Coffee' });
    const base = member.base;
    const id = counter.id;
    // Every route, with the right key …
    record(await call(server.url, 'POST', `${base}/join`, { body: { key } }));
    record(await call(server.url, 'GET', base));
    record(await call(server.url, 'GET', `${base}/counters`, { key }));
    record(await call(server.url, 'PATCH', base, { key, body: { displayName: 'Cafe' } }));
    record(await call(server.url, 'POST', `${base}/counters`, { key, body: { opId: 'c1' } }));
    record(await call(server.url, 'POST', `${base}/counters`, { key, body: { opId: 'c1' } }));
    record(await call(server.url, 'PATCH', `${base}/counters/${id}`, { key, body: { value: 3 } }));
    record(await call(server.url, 'POST', `${base}/counters/${id}/increment`, { key }));
    record(await call(server.url, 'POST', `${base}/counters/${id}/decrement`, { key }));
    // … and every kind of failure carrying the key somewhere.
    record(await call(server.url, 'POST', `${base}/join`, { rawBody: `{"key":"${key}"` }));
    record(await call(server.url, 'POST', `${base}/join`, { body: { key, extra: key } }));
    record(await call(server.url, 'POST', `${base}/join`, { body: { key: `${key}zz` } }));
    record(await call(server.url, 'POST', `${base}/join`, { body: { key: [key] } }));
    record(await call(server.url, 'GET', `${base}/counters`, { key: `${key}zz` }));
    record(await call(server.url, 'GET', `${base}/counters`, { key: key.slice(0, 40) }));
    // A key pasted into the path (where it never belongs, and where URLs are logged as they
    // are) is not echoed in the answer either.
    const pasted = newKey();
    record(
      await call(server.url, 'PATCH', `${base}/counters/${pasted}`, { key, body: { value: 1 } }),
    );
    record(
      await call(server.url, 'PATCH', `${base}/counters/${id}`, { key, body: { bogus: key } }),
    );
    record(await call(server.url, 'PATCH', `${base}/counters/${id}`, { key, body: { [key]: 1 } }));
    record(
      await call(server.url, 'PATCH', `${base}/counters/${id}`, { key, body: { value: key } }),
    );
    record(
      await call(server.url, 'POST', `${base}/counters/${id}/increment`, {
        key,
        headers: { 'idempotency-key': key + key },
      }),
    );
    record(await call(server.url, 'GET', `/api/groups/${pasted}/counters`, { key }));
    record(await call(server.url, 'GET', `/api/nothing/${pasted}?key=${key}`, { key }));
    record(
      await call(server.url, 'POST', `${base}/counters`, {
        key,
        headers: { 'content-type': 'text/plain' },
        rawBody: key,
      }),
    );
    const page = await fetch(`${server.url}/${member.group.name}?key=${key}`);
    seen.push(await page.text());
    // Rate-limited answers too.
    for (let i = 0; i < 12; i++) {
      const answer = await callFrom('127.0.0.9', server.url, 'POST', `${base}/join`, {
        body: { key: `${key.slice(0, 60)}0000` },
      });
      seen.push(
        `${answer.status} ${JSON.stringify(answer.body)} ${JSON.stringify(answer.headers)}`,
      );
    }
    expect(seen.some((line) => line.startsWith('429'))).toBe(true);

    // The live channel: the member's messages, a failed auth, a rate-limited auth.
    const live = await joinLive(server.wsUrl, member.group.name, key);
    live.send({
      type: 'mutate',
      opId: 'm1',
      mutation: { kind: 'adjustCounter', counterId: id, direction: 'increment' },
    });
    live.send({
      type: 'mutate',
      opId: 'm2',
      mutation: { kind: 'adjustCounter', counterId: key, direction: 'increment' },
    });
    live.send({
      type: 'mutate',
      opId: 'm3',
      mutation: { kind: 'updateGroup', patch: { displayName: 'Cafe 2' } },
    });
    await live.waitUntil(
      () => live.messages.filter((m) => m.type === 'ack' || m.type === 'error').length === 3,
    );
    live.close();
    seen.push(JSON.stringify(live.messages));
    const wrongKey = await connectLive(server.wsUrl, member.group.name);
    wrongKey.send({ type: 'auth', protocol: PROTOCOL_VERSION, key: `${key}zz` });
    seen.push(JSON.stringify(await wrongKey.closed), JSON.stringify(wrongKey.messages));
    // A wrong key over the limit is refused (the right key would open: ADR 0005).
    const limited = await liveAuthFrom(
      '127.0.0.9',
      server.wsUrl,
      member.group.name,
      `${key.slice(0, 60)}0000`,
    );
    expect(limited).toMatchObject({ outcome: 'closed', code: 4429 });
    seen.push(JSON.stringify(limited));

    const everything = seen.join('\n');
    expect(everything).toContain('Coffee'); // the capture did capture answers
    expect(everything).not.toContain(key);
    expect(everything).not.toContain(pasted);
    expect(everything.toLowerCase()).not.toContain(hash);
    expect(everything).not.toMatch(/keyHash|access_key_hash/i);

    const logs = server.logs();
    expect(logs.split('\n').length).toBeGreaterThan(40);
    expect(logs).not.toContain(key);
    expect(logs).not.toContain(key.slice(0, 40));
    expect(logs.toLowerCase()).not.toContain(hash);
    expect(logs.toLowerCase()).not.toContain('bearer');
  });

  it('is not in the stored hash of another key, and one group’s hash is never sent to any client', async () => {
    // Two groups, two keys: neither hash reaches a member of either group.
    const a = await createGroup(server.url);
    const b = await createGroup(server.url);
    const snapshots = [
      await call(server.url, 'POST', `${a.base}/join`, { body: { key: a.key } }),
      await call(server.url, 'POST', `${b.base}/join`, { body: { key: b.key } }),
      await call(server.url, 'POST', `${a.base}/join`, { body: { key: newKey() } }),
    ];
    const text = JSON.stringify(snapshots.map((s) => s.body));
    for (const key of [a.key, b.key]) {
      expect(text).not.toContain(sha256(key));
      expect(text).not.toContain(key);
    }
  });
});

describe('the access key in a URL', () => {
  it('is redacted from the logs however the query string spells its name', async () => {
    const member = await createGroup(server.url);
    const { key } = member;
    const spellings = [
      `key=${key}`,
      `KEY=${key}`,
      `%6Bey=${key}`,
      `%6bey=${key}`,
      `k%65y=${key}`,
      `%4B%45%59=${key}`,
      `%256Bey=${key}`,
      `key+=${key}`,
      `x=1&amp;key=${key}`,
      `x=1;key=${key}`,
      `key=a&key=${key}`,
      `key=a&%6Bey=${key}`,
    ];
    for (const query of spellings) {
      await fetch(`${server.url}/${member.group.name}?${query}`);
      await fetch(`${server.url}${member.base}/counters?${query}`);
      await fetch(`${server.url}/api/nothing?${query}`);
    }
    // Requests the server cannot read carry the key too: logged without it.
    await rawExchange(server.url, `GET ${member.base}?%6Bey=${key} HTTP/1.1\r\nBad Header\r\n\r\n`);
    await rawExchange(
      server.url,
      `GET ${member.base}?key=${key} HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(40_000)}\r\n\r\n`,
    );
    const logs = server.logs();
    expect(logs).toContain('[REDACTED]');
    expect(logs).not.toContain(key);
    expect(logs).not.toContain(key.slice(0, 40));
  });
});
