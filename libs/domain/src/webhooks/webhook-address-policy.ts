import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { BlockList, isIP } from 'node:net';

/**
 * Where a webhook may not be sent outside the `local` profile: any address that is not a public
 * unicast one, so a URL cannot make the service reach into its own network (SSRF).
 */
const REFUSED_RANGES: readonly [label: string, network: string, prefix: number][] = [
  ['an unspecified', '0.0.0.0', 8],
  ['a private', '10.0.0.0', 8],
  ['a carrier-grade NAT', '100.64.0.0', 10],
  ['a loopback', '127.0.0.0', 8],
  ['a link-local', '169.254.0.0', 16],
  ['a private', '172.16.0.0', 12],
  ['a reserved', '192.0.0.0', 24],
  ['a documentation', '192.0.2.0', 24],
  ['a private', '192.168.0.0', 16],
  ['a benchmarking', '198.18.0.0', 15],
  ['a documentation', '198.51.100.0', 24],
  ['a documentation', '203.0.113.0', 24],
  ['a multicast', '224.0.0.0', 4],
  ['a reserved', '240.0.0.0', 4],
  ['an unspecified', '::', 128],
  ['a loopback', '::1', 128],
  // IPv4-mapped addresses (::ffff:a.b.c.d) need no rule: BlockList checks them against the
  // IPv4 rules above. The IPv4-compatible and NAT64 forms are refused whole rather than decoded.
  ['an IPv4-compatible', '::', 96],
  ['a NAT64', '64:ff9b::', 96],
  ['a discard', '100::', 64],
  ['a documentation', '2001:db8::', 32],
  ['a unique local (ULA)', 'fc00::', 7],
  ['a link-local', 'fe80::', 10],
  ['a multicast', 'ff00::', 8],
];

const RANGES = REFUSED_RANGES.map(([label, network, prefix]) => {
  const list = new BlockList();
  list.addSubnet(network, prefix, isIP(network) === 6 ? 'ipv6' : 'ipv4');
  return { label, list };
});

/**
 * Why an IP address may not receive webhooks ("a loopback", "a private" ...), or null for a
 * public unicast address. `address` is an IP literal (IPv6 without brackets).
 */
export function refusedAddressKind(address: string): string | null {
  const family = isIP(address);
  if (family === 0) return 'an invalid';
  const type = family === 6 ? 'ipv6' : 'ipv4';
  return RANGES.find((range) => range.list.check(address, type))?.label ?? null;
}

export class RefusedAddressError extends Error {
  readonly code = 'WEBHOOK_ADDRESS_REFUSED';
  constructor(host: string, address: string, kind: string) {
    super(
      host === address
        ? `${address} is ${kind} address`
        : `${host} resolves to ${address}, ${kind} address`,
    );
    this.name = 'RefusedAddressError';
  }
}

/** Every address `host` resolves to (all families), as the system resolver answers. */
export function resolveAll(host: string): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) =>
    dnsLookup(host, { all: true, verbatim: true }, (error, addresses) =>
      error ? reject(error) : resolve(addresses),
    ),
  );
}

/** Throws a RefusedAddressError when one of `addresses` may not receive webhooks. */
export function assertPublicAddresses(host: string, addresses: readonly LookupAddress[]): void {
  for (const { address } of addresses) {
    const kind = refusedAddressKind(address);
    if (kind) throw new RefusedAddressError(host, address, kind);
  }
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for http(s).request that refuses non-public addresses: the address checked is the
 * one the socket connects to, so a DNS answer that changes after the check (rebinding) cannot
 * slip a private address in.
 */
export function publicOnlyLookup(
  hostname: string,
  options: LookupOptions,
  callback: LookupCallback,
): void {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, []);
    try {
      assertPublicAddresses(hostname, addresses);
    } catch (refused) {
      return callback(refused as NodeJS.ErrnoException, []);
    }
    if (options.all) return callback(null, addresses);
    const first = addresses[0];
    if (!first) return callback(new Error(`${hostname} has no address`), []);
    callback(null, first.address, first.family);
  });
}
