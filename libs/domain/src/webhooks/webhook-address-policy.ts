import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { embeddedIpv4s } from './embedded-ipv4';

/**
 * Where a webhook may not be sent: any address that is not a public unicast one, so a URL cannot
 * make the service reach into its own network (SSRF). The `local` profile lets loopback through.
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
  // The forms that carry an IPv4 address a gateway or relay will reach (IPv4-mapped, NAT64 with
  // the well-known prefix, 6to4, Teredo) are judged by that address (see embeddedIpv4s). These
  // are refused whole: the IPv4-compatible form is deprecated, and where a local-use NAT64
  // prefix puts the IPv4 address depends on the operator's prefix length (RFC 8215).
  ['an IPv4-compatible', '::', 96],
  ['a local-use NAT64', '64:ff9b:1::', 48],
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

const LOOPBACK = 'a loopback';

/**
 * Whom a profile lets webhooks reach. Outside `local`: https, and public unicast addresses only.
 * Under `local` (development and the tests): http too, and loopback receivers; every other
 * non-public address is refused there as well.
 */
export interface WebhookTargets {
  httpAllowed: boolean;
  loopbackAllowed: boolean;
}

export function webhookTargets(profile: string): WebhookTargets {
  const local = profile === 'local';
  return { httpAllowed: local, loopbackAllowed: local };
}

const PUBLIC_ONLY: WebhookTargets = { httpAllowed: false, loopbackAllowed: false };

/**
 * Why an IP address may not receive webhooks ("a loopback", "a private", "a 6to4 address
 * embedding 127.0.0.1, a loopback" ...), or null when it may. `address` is an IP literal (IPv6
 * without brackets).
 */
export function refusedAddressKind(
  address: string,
  targets: Pick<WebhookTargets, 'loopbackAllowed'> = PUBLIC_ONLY,
): string | null {
  const family = isIP(address);
  if (family === 0) return 'an invalid';
  const embedded = family === 6 ? embeddedIpv4s(address) : [];
  // The IPv4 address itself, written as IPv6: judged as that address.
  const mapped = embedded.find((form) => form.carrier === 'IPv4-mapped');
  if (mapped) return refusedAddressKind(mapped.ipv4, targets);
  const type = family === 6 ? 'ipv6' : 'ipv4';
  const kind = RANGES.find((range) => range.list.check(address, type))?.label ?? null;
  if (kind) return kind === LOOPBACK && targets.loopbackAllowed ? null : kind;
  // Through a relay or gateway even a loopback address is some other host's: never allowed.
  for (const { carrier, ipv4 } of embedded) {
    const carried = refusedAddressKind(ipv4);
    if (carried) return `a ${carrier} address embedding ${ipv4}, ${carried}`;
  }
  return null;
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
export function assertAllowedAddresses(
  host: string,
  addresses: readonly LookupAddress[],
  targets: Pick<WebhookTargets, 'loopbackAllowed'> = PUBLIC_ONLY,
): void {
  for (const { address } of addresses) {
    const kind = refusedAddressKind(address, targets);
    if (kind) throw new RefusedAddressError(host, address, kind);
  }
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for http(s).request that refuses the addresses `targets` does not allow: the
 * address checked is the one the socket connects to, so a DNS answer that changes after the
 * check (rebinding) cannot slip a private address in.
 */
export function allowedAddressLookup(
  targets: Pick<WebhookTargets, 'loopbackAllowed'>,
): (hostname: string, options: LookupOptions, callback: LookupCallback) => void {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      try {
        assertAllowedAddresses(hostname, addresses, targets);
      } catch (refused) {
        return callback(refused as NodeJS.ErrnoException, []);
      }
      if (options.all) return callback(null, addresses);
      const first = addresses[0];
      if (!first) return callback(new Error(`${hostname} has no address`), []);
      callback(null, first.address, first.family);
    });
  };
}
