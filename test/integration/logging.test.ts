/** The access key must never reach a log line, whatever path it travels. */
import { describe, expect, it } from 'vitest';
import { PROTOCOL_VERSION } from '../../src/shared/protocol.js';
import { call, createGroup, newKey } from '../helpers/client.js';
import { connectLive, joinLive } from '../helpers/live.js';
import { startServer } from '../helpers/server.js';

describe('logs', () => {
  it('never contain the key: page URLs, Authorization headers, bodies, live auth, failures', async () => {
    const server = await startServer({ logLevel: 'trace' });
    try {
      const member = await createGroup(server.url);
      const { key } = member;
      const counter = await member.addCounter();
      await call(server.url, 'POST', `${member.base}/counters/${counter.id}/increment`, { key });
      await call(server.url, 'POST', `${member.base}/join`, { body: { key } });
      // A browser opening the shared link puts the key in the page URL.
      await fetch(`${server.url}/${member.group.name}?key=${key}`);
      await fetch(`${server.url}/api/groups/${member.group.name}/counters?key=${key}&x=1`);
      // Failures log more than successes: a wrong key, a malformed body carrying the key.
      const wrong = newKey();
      await call(server.url, 'GET', `${member.base}/counters`, { key: wrong });
      await call(server.url, 'POST', `${member.base}/join`, { rawBody: `{"key": "${key}"` });
      await call(server.url, 'PATCH', `${member.base}/counters/${counter.id}`, {
        key,
        rawBody: `{"name": "${key}", "bogus": 1}`,
      });
      const live = await joinLive(server.wsUrl, member.group.name, key);
      live.close();
      const rejected = await connectLive(server.wsUrl, member.group.name);
      rejected.send({ type: 'auth', protocol: PROTOCOL_VERSION, key: wrong });
      await rejected.closed;

      const logs = server.logs();
      expect(logs.split('\n').length).toBeGreaterThan(10);
      expect(logs).toContain('key=[REDACTED]');
      expect(logs).not.toContain(key);
      expect(logs).not.toContain(wrong);
      expect(logs.toLowerCase()).not.toContain('bearer');
    } finally {
      await server.close();
    }
  });
});
