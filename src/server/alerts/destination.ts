/**
 * Whether an alert's destination URL may be used: the checks that need no connection (the URL's
 * form, and an IP address written in it) and the check of the addresses its host name resolves
 * to. The same resolution is checked again when the connection is made (outbound.ts), so a name
 * that answers differently the second time still cannot reach a refused address.
 *
 * The messages are for the person who typed the URL: they never repeat the URL (a Slack or
 * Discord webhook URL is itself the secret) nor the addresses a name resolved to (a stranger
 * must not learn what names inside the server's network resolve to).
 */
import dns from 'node:dns';
import type { LookupAddress } from 'node:dns';
import { type AddressRange, classifyAddress, isIpAddress, rangeAllowed } from './addresses.js';

/** The longest destination URL accepted, in characters. */
export const MAX_DESTINATION_URL_LENGTH = 2_048;

/** Whether private, loopback and reserved addresses (and http://) may be used: for a
 * self-hosted server alerting a service on its own network, and for the tests. */
export interface DestinationOptions {
  allowPrivate: boolean;
}

/** Resolves a host name to all its addresses, as dns.lookup with `all: true` does. Tests pass
 * their own to play a name that changes its answer. */
export type Resolver = (hostname: string) => Promise<readonly LookupAddress[]>;

/** The operating system's resolver (dns.lookup: /etc/hosts, then DNS), all addresses. */
export const systemResolver: Resolver = (hostname) => dns.promises.lookup(hostname, { all: true });

/** Why a destination is refused. */
export type DestinationProblem =
  'invalid_url' | 'too_long' | 'scheme' | 'credentials' | 'blocked_address' | 'unresolvable';

export interface DestinationRefusal {
  ok: false;
  /** `destination_unresolvable` when the host name has no address, else `destination_refused`. */
  code: 'destination_refused' | 'destination_unresolvable';
  problem: DestinationProblem;
  /** For `blocked_address`: the range of the (first) refused address. */
  range?: AddressRange;
  /** Why, in a sentence for the person who gave the URL. */
  message: string;
}

export type DestinationCheck = { ok: true; url: URL } | DestinationRefusal;

export type ResolutionCheck =
  { ok: true; addresses: readonly LookupAddress[] } | DestinationRefusal;

function refused(problem: DestinationProblem, message: string): DestinationRefusal {
  return { ok: false, code: 'destination_refused', problem, message };
}

/** The refusal for an address in a range that may not be reached. */
export function blockedAddress(range: AddressRange): DestinationRefusal {
  return {
    ...refused(
      'blocked_address',
      'Alerts can only be sent to public addresses on the internet, not to private, local or reserved ones',
    ),
    range,
  };
}

/** The refusal for a host name that has no address. */
export function unresolvable(): DestinationRefusal {
  return {
    ok: false,
    code: 'destination_unresolvable',
    problem: 'unresolvable',
    message: 'The host name in the address could not be found',
  };
}

/** A host without the square brackets a URL puts around an IPv6 address, and without the
 * trailing dot of a fully qualified name. */
export function bareHost(hostname: string): string {
  if (hostname.startsWith('[') && hostname.endsWith(']')) return hostname.slice(1, -1);
  return hostname.endsWith('.') ? hostname.slice(0, -1) : hostname;
}

/** `localhost` and its subdomains always mean this machine (RFC 6761), whatever DNS says. */
function isLocalhostName(host: string): boolean {
  const name = host.toLowerCase();
  return name === 'localhost' || name.endsWith('.localhost');
}

/**
 * The checks that need no network: a URL that parses, at most 2,048 characters, https:// (or
 * http:// too when private addresses are allowed), no user name or password, and, when the host
 * is an IP address or `localhost`, an address that may be reached.
 */
export function checkDestinationUrl(raw: string, options: DestinationOptions): DestinationCheck {
  if (raw.length > MAX_DESTINATION_URL_LENGTH) {
    return refused(
      'too_long',
      `The address is longer than ${MAX_DESTINATION_URL_LENGTH.toLocaleString('en-US')} characters`,
    );
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return refused('invalid_url', 'This is not a valid web address');
  }
  const schemes = options.allowPrivate ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol)) {
    return refused(
      'scheme',
      options.allowPrivate
        ? 'Alerts can only be sent to https:// or http:// addresses'
        : 'Alerts can only be sent to public https:// addresses',
    );
  }
  if (url.username !== '' || url.password !== '') {
    return refused('credentials', 'The address must not contain a user name or password');
  }
  const host = bareHost(url.hostname);
  if (host === '') return refused('invalid_url', 'This is not a valid web address');
  if (isIpAddress(host)) {
    const range = classifyAddress(host);
    if (!rangeAllowed(range, options)) return blockedAddress(range);
  } else if (isLocalhostName(host) && !options.allowPrivate) {
    return blockedAddress('loopback');
  }
  return { ok: true, url };
}

/**
 * Every address the answer holds may be reached, else the first refused one's refusal: a name
 * with one public and one private address is refused, since the connection may use either.
 */
export function checkAddresses(
  addresses: readonly LookupAddress[],
  options: DestinationOptions,
): ResolutionCheck {
  if (addresses.length === 0) return unresolvable();
  for (const { address } of addresses) {
    const range = classifyAddress(address);
    if (!rangeAllowed(range, options)) return blockedAddress(range);
  }
  return { ok: true, addresses };
}

/**
 * Resolves a host name (all its addresses) and checks each; an IP address is checked as it is,
 * without a lookup. Never throws: a name that does not resolve is `destination_unresolvable`.
 */
export async function resolveAndCheck(
  hostname: string,
  options: DestinationOptions & { resolver?: Resolver },
): Promise<ResolutionCheck> {
  const host = bareHost(hostname);
  if (isIpAddress(host)) {
    return checkAddresses([{ address: host, family: host.includes(':') ? 6 : 4 }], options);
  }
  let addresses: readonly LookupAddress[];
  try {
    addresses = await (options.resolver ?? systemResolver)(host);
  } catch {
    return unresolvable();
  }
  return checkAddresses(addresses, options);
}
