/** The IPv6 forms that carry an IPv4 address, as the refusal messages name them. */
export type Ipv4Carrier = 'IPv4-mapped' | 'NAT64' | '6to4' | 'Teredo server' | 'Teredo client';

export interface EmbeddedIpv4 {
  carrier: Ipv4Carrier;
  ipv4: string;
}

/**
 * The IPv4 addresses an IPv6 address carries, each with the form that carries it, or none:
 * - IPv4-mapped `::ffff:a.b.c.d` (the IPv4 address itself, written as IPv6);
 * - NAT64 with the well-known prefix `64:ff9b::/96` (RFC 6052): the last 32 bits;
 * - 6to4 `2002::/16` (RFC 3056): bits 16 to 47;
 * - Teredo `2001:0::/32` (RFC 4380): the server in bits 32 to 63, the client in the last 32
 *   bits with every bit inverted.
 * A gateway or relay turns each into a connection to that IPv4 address, so it is that address
 * the webhook policy must judge. `address` must be a valid IPv6 literal (net.isIP === 6).
 */
export function embeddedIpv4s(address: string): EmbeddedIpv4[] {
  const words = ipv6Words(address);
  const zeros = (from: number, to: number) => words.slice(from, to).every((word) => word === 0);
  if (zeros(0, 5) && words[5] === 0xffff) {
    return [{ carrier: 'IPv4-mapped', ipv4: ipv4Of(words[6], words[7]) }];
  }
  if (words[0] === 0x64 && words[1] === 0xff9b && zeros(2, 6)) {
    return [{ carrier: 'NAT64', ipv4: ipv4Of(words[6], words[7]) }];
  }
  if (words[0] === 0x2002) return [{ carrier: '6to4', ipv4: ipv4Of(words[1], words[2]) }];
  if (words[0] === 0x2001 && words[1] === 0) {
    return [
      { carrier: 'Teredo server', ipv4: ipv4Of(words[2], words[3]) },
      { carrier: 'Teredo client', ipv4: ipv4Of(~words[6] & 0xffff, ~words[7] & 0xffff) },
    ];
  }
  return [];
}

function ipv4Of(high: number, low: number): string {
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}

/** The eight 16-bit words of a valid IPv6 literal (`::` expanded, a dotted IPv4 tail read). */
function ipv6Words(address: string): number[] {
  const unzoned = address.split('%')[0];
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(unzoned);
  const text = dotted
    ? unzoned.slice(0, dotted.index) +
      [(Number(dotted[1]) << 8) | Number(dotted[2]), (Number(dotted[3]) << 8) | Number(dotted[4])]
        .map((word) => word.toString(16))
        .join(':')
    : unzoned;
  const [head, tail] = text.split('::');
  const parse = (part: string | undefined) =>
    part ? part.split(':').map((word) => parseInt(word, 16)) : [];
  const first = parse(head);
  if (tail === undefined) return first;
  const last = parse(tail);
  return [...first, ...new Array<number>(8 - first.length - last.length).fill(0), ...last];
}
