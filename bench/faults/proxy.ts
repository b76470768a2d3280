/**
 * A TCP proxy on 127.0.0.1 between Tally and PostgreSQL that can be made to fail the way networks
 * do: `cut` resets every connection (a failover, a connection killer, a load balancer restart),
 * `blackhole` forwards nothing in either direction and sends no reset (a dead route, a firewall
 * dropping packets; new connections are accepted and then hang), `heal` ends the black-hole, and
 * `switchTo` sends new connections to another server (a failover's new primary).
 *
 * A black-hole holds bytes instead of discarding them: on a real path TCP retransmits what was
 * dropped once the path heals, so connections that nobody gave up on carry on, and those given up
 * on (closed meanwhile) end when it heals.
 */
import net from 'node:net';

interface Pair {
  client: net.Socket;
  upstream: net.Socket | null;
  /** A side closed during a black-hole: the other side is closed when it heals. */
  closeOnHeal: boolean;
}

export class FaultProxy {
  private readonly server = net.createServer((socket) => {
    this.accept(socket);
  });
  private readonly pairs = new Set<Pair>();
  private holding = false;
  /** Connections opened during a black-hole, not yet connected upstream. */
  private parked: Pair[] = [];
  port = 0;

  constructor(private upstreamPort: number) {}

  async listen(): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(0, '127.0.0.1', () => {
        resolve();
      });
    });
    const address = this.server.address();
    if (address === null || typeof address === 'string') throw new Error('proxy has no port');
    this.port = address.port;
    return this.port;
  }

  /** Connections now open through the proxy. */
  get connections(): number {
    return this.pairs.size;
  }

  /** New connections go to this port from now on; open ones stay where they are. */
  switchTo(upstreamPort: number): void {
    this.upstreamPort = upstreamPort;
  }

  /** Resets every open connection, both sides. */
  cut(): void {
    for (const pair of [...this.pairs]) this.end(pair);
    this.parked = [];
  }

  /** Forwards nothing and resets nothing until `heal`. */
  blackhole(): void {
    this.holding = true;
    for (const pair of this.pairs) {
      pair.client.pause();
      pair.upstream?.pause();
    }
  }

  heal(): void {
    if (!this.holding) return;
    this.holding = false;
    for (const pair of [...this.pairs]) {
      if (pair.closeOnHeal) {
        this.end(pair);
        continue;
      }
      pair.client.resume();
      pair.upstream?.resume();
    }
    const parked = this.parked;
    this.parked = [];
    for (const pair of parked) {
      if (this.pairs.has(pair)) this.connect(pair);
    }
  }

  async close(): Promise<void> {
    this.holding = false;
    this.cut();
    await new Promise<void>((resolve) => {
      this.server.close(() => {
        resolve();
      });
    });
  }

  private accept(client: net.Socket): void {
    client.setNoDelay(true);
    const pair: Pair = { client, upstream: null, closeOnHeal: false };
    this.pairs.add(pair);
    client.on('error', () => undefined);
    client.on('close', () => {
      this.sideClosed(pair);
    });
    if (this.holding) {
      client.pause();
      this.parked.push(pair);
      return;
    }
    this.connect(pair);
  }

  private connect(pair: Pair): void {
    const { client } = pair;
    const upstream = net.connect(this.upstreamPort, '127.0.0.1');
    upstream.setNoDelay(true);
    pair.upstream = upstream;
    upstream.on('error', () => undefined);
    upstream.on('close', () => {
      this.sideClosed(pair);
    });
    client.on('data', (data) => upstream.write(data));
    upstream.on('data', (data) => client.write(data));
    client.resume();
  }

  private sideClosed(pair: Pair): void {
    if (!this.pairs.has(pair)) return;
    if (this.holding) {
      pair.closeOnHeal = true;
      return;
    }
    this.end(pair);
  }

  private end(pair: Pair): void {
    this.pairs.delete(pair);
    pair.client.resetAndDestroy();
    if (pair.upstream && !pair.upstream.destroyed) pair.upstream.resetAndDestroy();
  }
}
