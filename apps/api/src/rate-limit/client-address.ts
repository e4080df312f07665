import { isIPv4, isIPv6 } from 'node:net';

/**
 * The bucket a client address is counted in: an IPv4 address as it is (IPv4-mapped IPv6
 * addresses included), an IPv6 address by its /64 network, since one subscriber is usually given
 * a whole /64 and could otherwise step around a per-address limit by changing the low bits.
 */
export function addressBucket(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped && isIPv4(mapped[1])) return mapped[1];
  if (!isIPv6(ip)) return ip;
  return `${expandIPv6(ip).slice(0, 4).join(':')}::/64`;
}

/** The eight 16-bit groups of an IPv6 address, `::` expanded and a zone index dropped. */
function expandIPv6(ip: string): string[] {
  const address = ip.split('%')[0].toLowerCase();
  const [head, tail] = address.includes('::') ? address.split('::') : [address, undefined];
  const groups = (part: string | undefined) => (part ? part.split(':') : []);
  // An embedded IPv4 tail (::ffff:0:1.2.3.4 and the like) takes two groups: only the first four
  // groups are kept, so its value does not matter, only that it counts as two.
  const count = (parts: string[]) => parts.reduce((n, p) => n + (p.includes('.') ? 2 : 1), 0);
  const left = groups(head);
  const right = groups(tail);
  const zeros: string[] =
    tail === undefined ? [] : Array<string>(8 - count(left) - count(right)).fill('0');
  return [...left, ...zeros, ...right].map((group) =>
    group.includes('.') ? group : (parseInt(group, 16) || 0).toString(16),
  );
}
