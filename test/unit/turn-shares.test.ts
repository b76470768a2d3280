/**
 * Each address's share of one turn of the event loop: past its share, an address's messages wait
 * for later turns, in order, with their socket paused; other addresses are handled at once.
 */
import { describe, expect, it } from 'vitest';
import { MESSAGES_PER_ADDRESS_PER_TURN, TurnShares } from '../../src/server/live/turn-shares.js';

interface FakeClient {
  address: string;
  paused: boolean;
  closed: boolean;
}

function shares(addresses = 2) {
  const handled: [string, number][] = [];
  const turns = new TurnShares<FakeClient, number>({
    handle: (client, message) => handled.push([client.address, message]),
    addressOf: (client) => client.address,
    pause: (client) => {
      client.paused = true;
    },
    resume: (client) => {
      client.paused = false;
    },
    closed: (client) => client.closed,
    shared: () => addresses > 1,
  });
  return { turns, handled };
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
const client = (address: string): FakeClient => ({ address, paused: false, closed: false });

describe('each address’s share of a turn of the event loop', () => {
  it('handles an address’s messages at once up to its share, the rest in later turns, in order', async () => {
    const { turns, handled } = shares();
    const flood = client('10.0.0.66');
    const member = client('10.0.0.7');
    turns.offer(member, 0);
    for (let n = 0; n < MESSAGES_PER_ADDRESS_PER_TURN + 100; n++) turns.offer(flood, n);
    turns.offer(member, 1);
    expect(handled.filter(([address]) => address === '10.0.0.66')).toHaveLength(
      MESSAGES_PER_ADDRESS_PER_TURN,
    );
    // The member was handled in the same turn, after the flood's share, not after all of it.
    expect(handled.at(-1)).toEqual(['10.0.0.7', 1]);
    expect(flood.paused).toBe(true);
    // Its share again each turn while the member sends too.
    await nextTurn();
    await nextTurn();
    const flooded = handled.filter(([address]) => address === '10.0.0.66').map(([, n]) => n);
    expect(flooded).toEqual(
      Array.from({ length: MESSAGES_PER_ADDRESS_PER_TURN + 100 }, (_v, n) => n),
    );
    expect(flood.paused).toBe(false);
  });

  it('splits nothing while one address holds every socket', async () => {
    const { turns, handled } = shares(1);
    const proxy = client('10.0.0.1');
    for (let n = 0; n < MESSAGES_PER_ADDRESS_PER_TURN * 3; n++) turns.offer(proxy, n);
    expect(handled).toHaveLength(MESSAGES_PER_ADDRESS_PER_TURN * 3);
    expect(proxy.paused).toBe(false);
    await nextTurn();
  });

  it('drops what a closed client had waiting', async () => {
    const { turns, handled } = shares();
    turns.offer(client('10.0.0.7'), 0);
    const flood = client('10.0.0.66');
    for (let n = 0; n < MESSAGES_PER_ADDRESS_PER_TURN + 10; n++) turns.offer(flood, n);
    flood.closed = true;
    await nextTurn();
    expect(handled).toHaveLength(MESSAGES_PER_ADDRESS_PER_TURN + 1);
  });
});
