/**
 * Which address a request comes from, for the per-address key limits (ADR 0005) and the logs.
 * Behind a reverse proxy or load balancer every connection comes from the proxy: with
 * TRUST_PROXY naming it, the client's address is read from X-Forwarded-For instead, walking back
 * only through proxies that are trusted, so a client cannot pick its own address by sending the
 * header. Without TRUST_PROXY the header is ignored. The same rule serves HTTP requests (through
 * Fastify's trustProxy) and live upgrades (which go around the router).
 */
import type { IncomingMessage } from 'node:http';
import proxyaddr from '@fastify/proxy-addr';

/** false: use the connection's address; true: trust any proxy; else the proxies' addresses. */
export type TrustProxy = boolean | string[];

/** TRUST_PROXY: unset/false, true, or comma-separated addresses, CIDR ranges or the names
 * loopback, linklocal, uniquelocal. Throws a message naming what is wrong. */
export function parseTrustProxy(raw: string | undefined): TrustProxy {
  const value = raw?.trim() ?? '';
  if (value === '' || value.toLowerCase() === 'false') return false;
  if (value.toLowerCase() === 'true') return true;
  const entries = value.split(',').map((entry) => entry.trim());
  if (entries.some((entry) => entry === '')) throw new Error('an entry is empty');
  // A hop count cannot tell a proxy from a client that sends the header itself (and proxy-addr
  // would read "2" as the address 0.0.0.2).
  const bare = entries.find((entry) => /^\d+$/.test(entry));
  if (bare !== undefined) throw new Error(`"${bare}" is not an address`);
  // compile() refuses what is not an address, a range or a known name.
  proxyaddr.compile(entries);
  return entries;
}

/** The client address of an upgrade request, by the same rule Fastify applies to requests. */
export function clientAddressOf(
  trust: TrustProxy,
): (request: IncomingMessage) => string | undefined {
  if (trust === false) return (request) => request.socket.remoteAddress;
  const trusted = trust === true ? () => true : proxyaddr.compile(trust);
  return (request) => {
    // proxy-addr needs the connection's own address; a destroyed socket has none.
    if (request.socket.remoteAddress === undefined) return undefined;
    return proxyaddr(request, trusted);
  };
}
