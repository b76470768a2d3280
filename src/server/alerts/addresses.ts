/**
 * Which IP addresses an alert may be sent to. Anyone can create a group without an account, so
 * an alert's destination is chosen by a stranger: the server must never become their way into
 * its own network (its loopback, the private network around it, the cloud's metadata service).
 * Only public unicast addresses pass; the ranges come from ipaddr.js, which keeps the IANA
 * special-purpose registries, and IPv6 forms that carry an IPv4 address (IPv4-mapped,
 * IPv4-compatible, IPv4-translated, NAT64, 6to4) are judged by the IPv4 address they carry.
 */
import ipaddr from 'ipaddr.js';

/** What an address is, as far as sending an alert to it goes. */
export type AddressRange =
  | 'public'
  | 'loopback'
  | 'private'
  | 'linkLocal'
  | 'carrierGradeNat'
  | 'reserved'
  | 'multicast'
  | 'broadcast'
  | 'unspecified'
  | 'cloudMetadata'
  | 'invalid';

/**
 * The instance metadata services of the large clouds, which hand out the machine's credentials:
 * AWS, GCP and Azure (169.254.169.254, and fd00:ec2::254 on AWS's IPv6), AWS ECS task
 * credentials (169.254.170.2, 169.254.170.23), Alibaba Cloud (100.100.100.200) and Oracle Cloud
 * (192.0.0.192). Each is already in a refused range; naming them keeps them refused even when
 * private addresses are allowed.
 */
const CLOUD_METADATA = new Set(
  [
    '169.254.169.254',
    '169.254.170.2',
    '169.254.170.23',
    'fd00:ec2::254',
    '100.100.100.200',
    '192.0.0.192',
  ].map((address) => ipaddr.parse(address).toNormalizedString()),
);

/** The ranges that may be reached when private addresses are allowed (a self-hosted server
 * alerting a service on its own network, or the tests' receivers on loopback). Multicast,
 * broadcast, the unspecified address and the metadata services are never destinations. */
const PRIVATE_RANGES: ReadonlySet<AddressRange> = new Set<AddressRange>([
  'loopback',
  'private',
  'linkLocal',
  'carrierGradeNat',
  'reserved',
]);

/** ipaddr.js's names for IPv6 private networks: unique local (fc00::/7) and the deprecated
 * site-local (fec0::/10, which its type declarations do not list). */
const PRIVATE_IPV6: ReadonlySet<string> = new Set(['uniqueLocal', 'deprecatedSiteLocal']);

/** IPv6 global unicast (2000::/3): the only IPv6 space handed out for the public internet. */
const GLOBAL_UNICAST = ipaddr.IPv6.parseCIDR('2000::/3');
/** NAT64's well-known prefix: the last 32 bits are the IPv4 address reached through it. */
const NAT64_WELL_KNOWN = ipaddr.IPv6.parseCIDR('64:ff9b::/96');
/** IPv4-compatible IPv6 (deprecated): the last 32 bits are an IPv4 address. */
const IPV4_COMPATIBLE = ipaddr.IPv6.parseCIDR('::/96');

/** The IPv4 address in bytes [from, from + 4) of an IPv6 address. */
function embeddedIPv4(address: ipaddr.IPv6, from: number): ipaddr.IPv4 {
  return new ipaddr.IPv4(address.toByteArray().slice(from, from + 4));
}

function classifyIPv4(address: ipaddr.IPv4): AddressRange {
  if (CLOUD_METADATA.has(address.toNormalizedString())) return 'cloudMetadata';
  const range = address.range();
  switch (range) {
    case 'unicast':
      return 'public';
    case 'unspecified':
    case 'broadcast':
    case 'multicast':
    case 'linkLocal':
    case 'loopback':
    case 'carrierGradeNat':
    case 'private':
      return range;
    default:
      // reserved, documentation, benchmarking, AS112, AMT: nothing an alert is sent to.
      return 'reserved';
  }
}

/** An IPv4 address carried inside IPv6 is reached as that IPv4 address. A public one is
 * allowed only where the form still routes (mapped, translated, NAT64, 6to4). */
function classifyIPv6(address: ipaddr.IPv6): AddressRange {
  if (CLOUD_METADATA.has(address.toNormalizedString())) return 'cloudMetadata';
  const range = address.range();
  switch (range) {
    case 'unicast':
      if (address.match(IPV4_COMPATIBLE)) {
        const carried = classifyIPv4(embeddedIPv4(address, 12));
        return carried === 'public' ? 'reserved' : carried;
      }
      return address.match(GLOBAL_UNICAST) ? 'public' : 'reserved';
    case 'ipv4Mapped':
      return classifyIPv4(address.toIPv4Address());
    case 'rfc6145':
      return classifyIPv4(embeddedIPv4(address, 12));
    case 'rfc6052':
      // 64:ff9b:1::/48 is for NAT64 inside one network only.
      return address.match(NAT64_WELL_KNOWN) ? classifyIPv4(embeddedIPv4(address, 12)) : 'private';
    case '6to4':
      return classifyIPv4(embeddedIPv4(address, 2));
    case 'unspecified':
    case 'multicast':
    case 'linkLocal':
    case 'loopback':
      return range;
    default:
      if (PRIVATE_IPV6.has(range)) return 'private';
      // Teredo (its client address is obfuscated), documentation, discard, ORCHID and the rest.
      return 'reserved';
  }
}

/** What an address is; `invalid` when the text is not an IP address. Accepts an IPv6 address
 * with or without the square brackets of a URL. */
export function classifyAddress(address: string): AddressRange {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  if (!ipaddr.isValid(bare)) return 'invalid';
  const parsed = ipaddr.parse(bare);
  return parsed.kind() === 'ipv4'
    ? classifyIPv4(parsed as ipaddr.IPv4)
    : classifyIPv6(parsed as ipaddr.IPv6);
}

/** Whether an alert may be sent to an address in this range. */
export function rangeAllowed(range: AddressRange, options: { allowPrivate: boolean }): boolean {
  return range === 'public' || (options.allowPrivate && PRIVATE_RANGES.has(range));
}

/** Whether the text is an IP address (IPv4, or IPv6 with or without brackets). */
export function isIpAddress(host: string): boolean {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  return ipaddr.isValid(bare);
}
