/**
 * A network a test can really cut. Pages of a test that uses this `test` reach the server through
 * a TCP relay of their own on 127.0.0.1; `goOffline` closes the relay and turns on Chromium's
 * offline emulation, `goOnline` does both the other way.
 *
 * Emulation alone is no cut. Under load in CI a request made "offline" has reached the server
 * while the page was told it failed, and Playwright's routing cannot refuse it first for a page
 * that its service worker controls (microsoft/playwright#1090). With the relay closed, nothing a
 * page sends reaches the server; the emulation is still what the page sees: navigator.onLine and
 * the offline and online events.
 */
import net from 'node:net';
import type { BrowserContext, Page } from '@playwright/test';
import { baseUrl, expect, test as base } from './fixtures.js';

export class Relay {
  private readonly sockets = new Set<net.Socket>();
  private open = true;

  private constructor(
    private readonly server: net.Server,
    /** The address pages use in place of the server's (http://127.0.0.1:port). */
    readonly url: string,
  ) {}

  /** Starts a relay to the server at `target` (an http:// URL) on a free port. */
  static async start(target: string): Promise<Relay> {
    const { hostname, port } = new URL(target);
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address() as net.AddressInfo;
    const relay = new Relay(server, `http://127.0.0.1:${address.port}`);
    server.on('connection', (page) => {
      relay.pass(page, Number(port), hostname);
    });
    return relay;
  }

  /** Drops every connection now, and refuses new ones until `restore`. */
  cut(): void {
    this.open = false;
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
  }

  restore(): void {
    this.open = true;
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => {
      this.server.close(() => {
        resolve();
      });
    });
  }

  private pass(page: net.Socket, port: number, host: string): void {
    if (!this.open) {
      // A reset, as a dead network path gives: the browser reports a failed request.
      page.resetAndDestroy();
      return;
    }
    const server = net.connect(port, host);
    for (const [socket, other] of [
      [page, server],
      [server, page],
    ] as const) {
      this.sockets.add(socket);
      socket.on('close', () => {
        this.sockets.delete(socket);
        other.destroy();
      });
      socket.on('error', () => socket.destroy());
    }
    page.pipe(server).pipe(page);
  }
}

/** Playwright's test whose pages (baseURL) go through a relay of the test's own: `network`. */
export const test = base.extend<{ network: Relay }>({
  // eslint-disable-next-line no-empty-pattern -- Playwright requires the destructuring form
  network: async ({}, use) => {
    const relay = await Relay.start(baseUrl());
    await use(relay);
    await relay.close();
  },
  baseURL: async ({ network }, use) => {
    await use(network.url);
  },
});

/** Cuts the page's network (nothing reaches the server) and waits until the page says Offline. */
export async function goOffline(page: Page, network: Relay): Promise<void> {
  network.cut();
  await page.context().setOffline(true);
  await expect(page.getByRole('status').filter({ hasText: 'Offline' })).toBeVisible();
}

/** Brings the network back: the relay passes again, then the browser is online. */
export async function goOnline(context: BrowserContext, network: Relay): Promise<void> {
  network.restore();
  await context.setOffline(false);
}

/** Waits until the service worker controls the page, so that a reload works without the network. */
export async function waitForServiceWorker(page: Page): Promise<void> {
  await page.evaluate(() => navigator.serviceWorker.ready);
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
}
