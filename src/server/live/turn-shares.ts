/**
 * How much of one turn of the event loop one client address may take (ADR 32). ws hands over
 * every message of what it read from a socket at once, and the loop reads every readable socket
 * in one turn: an address with hundreds of sockets full of taps made one turn run for hundreds
 * of milliseconds, and every other member's tap waited for its end. Past
 * MESSAGES_PER_ADDRESS_PER_TURN messages in a turn, an address's further messages wait, in order,
 * for the next turns (their socket is not read meanwhile), so no turn runs long for one address.
 * An address below the bound is handled at once, as before; and while one address holds every
 * socket (everyone behind one proxy, a load test), nobody waits: there is nobody to share with,
 * and splitting its messages over turns would only cost it throughput.
 */

/** Messages one address may have handled in one turn of the event loop. */
export const MESSAGES_PER_ADDRESS_PER_TURN = 64;

export interface TurnSharesHooks<C, M> {
  /** Handles one message now. */
  handle(client: C, message: M): void;
  /** The client's address (whose share it takes). */
  addressOf(client: C): string;
  /** Stops and restarts reading the client's socket while its messages wait. */
  pause(client: C): void;
  resume(client: C): void;
  /** Whether the client is gone (its waiting messages are dropped). */
  closed(client: C): boolean;
  /** Whether sockets of more than one address are open: else nobody needs a share. */
  shared(): boolean;
}

export class TurnShares<C, M> {
  /** Messages handled per address in the current turn. */
  private readonly handled = new Map<string, number>();
  /** Messages waiting for a later turn, by client, in arrival order. */
  private readonly waiting = new Map<C, M[]>();
  private turnScheduled = false;

  constructor(private readonly hooks: TurnSharesHooks<C, M>) {}

  /** A message from `client`: handled now, or after the messages it already has waiting. */
  offer(client: C, message: M): void {
    const queue = this.waiting.get(client);
    if (queue) {
      queue.push(message);
      return;
    }
    if (this.take(this.hooks.addressOf(client))) {
      this.hooks.handle(client, message);
      return;
    }
    this.waiting.set(client, [message]);
    this.hooks.pause(client);
  }

  /** Drops what a closed client had waiting. */
  forget(client: C): void {
    this.waiting.delete(client);
  }

  private take(address: string): boolean {
    const count = this.handled.get(address) ?? 0;
    if (count >= MESSAGES_PER_ADDRESS_PER_TURN && this.hooks.shared()) {
      this.scheduleTurn();
      return false;
    }
    this.handled.set(address, count + 1);
    this.scheduleTurn();
    return true;
  }

  /** At the end of this turn, the shares start again and waiting messages get their turn. */
  private scheduleTurn(): void {
    if (this.turnScheduled) return;
    this.turnScheduled = true;
    setImmediate(() => {
      this.turnScheduled = false;
      this.handled.clear();
      this.drain();
    });
  }

  /** Waiting messages, clients in turn, each address within its share of this turn. */
  private drain(): void {
    for (const [client, queue] of [...this.waiting]) {
      if (this.hooks.closed(client)) {
        this.waiting.delete(client);
        continue;
      }
      const address = this.hooks.addressOf(client);
      while (queue.length > 0 && this.take(address)) {
        this.hooks.handle(client, queue.shift() as M);
      }
      if (queue.length === 0) {
        this.waiting.delete(client);
        this.hooks.resume(client);
      }
    }
  }
}
