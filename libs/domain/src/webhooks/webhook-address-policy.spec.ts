import { assertAllowedAddresses, refusedAddressKind } from './webhook-address-policy';

describe('webhook address policy', () => {
  it.each([
    ['0.0.0.0', 'an unspecified'],
    ['10.1.2.3', 'a private'],
    ['100.64.0.1', 'a carrier-grade NAT'],
    ['127.0.0.1', 'a loopback'],
    ['127.255.255.254', 'a loopback'],
    ['169.254.169.254', 'a link-local'],
    ['172.16.0.1', 'a private'],
    ['172.31.255.255', 'a private'],
    ['192.168.0.1', 'a private'],
    ['224.0.0.1', 'a multicast'],
    ['255.255.255.255', 'a reserved'],
    ['::', 'an unspecified'],
    ['::1', 'a loopback'],
    ['::ffff:127.0.0.1', 'a loopback'],
    ['::ffff:7f00:1', 'a loopback'],
    ['::ffff:10.0.0.1', 'a private'],
    ['::ffff:a9fe:a9fe', 'a link-local'],
    ['fc00::1', 'a unique local (ULA)'],
    ['fd12:3456::1', 'a unique local (ULA)'],
    ['fe80::1', 'a link-local'],
    ['ff02::1', 'a multicast'],
    ['64:ff9b::a00:1', 'a NAT64 address embedding 10.0.0.1, a private'],
    ['64:ff9b::169.254.169.254', 'a NAT64 address embedding 169.254.169.254, a link-local'],
    ['64:ff9b:1::a9fe:a9fe', 'a local-use NAT64'],
    ['64:ff9b:1:2::8.8.8.8', 'a local-use NAT64'],
    ['2002:7f00:1::', 'a 6to4 address embedding 127.0.0.1, a loopback'],
    ['2002:a9fe:a9fe::1', 'a 6to4 address embedding 169.254.169.254, a link-local'],
    ['2001::1', 'a Teredo server address embedding 0.0.0.0, an unspecified'],
    // Server 8.8.8.8; client 10.0.0.1, stored inverted (0xf5ff:fffe).
    ['2001:0:808:808::f5ff:fffe', 'a Teredo client address embedding 10.0.0.1, a private'],
    ['::ffff:0:1', 'an unspecified'],
    ['::7f00:1', 'an IPv4-compatible'],
    ['not an address', 'an invalid'],
  ])('refuses %s as %s address', (address, kind) => {
    expect(refusedAddressKind(address)).toBe(kind);
  });

  it.each([
    '93.184.215.14',
    '8.8.8.8',
    '172.32.0.1',
    '100.128.0.1',
    '2606:4700::1111',
    '::ffff:8.8.8.8',
    '64:ff9b::8.8.8.8',
    '2002:808:808::1',
    // Teredo: server 8.8.8.8, client 1.1.1.1 (stored inverted).
    '2001:0:808:808::fefe:fefe',
  ])('accepts the public address %s', (address) => {
    expect(refusedAddressKind(address)).toBeNull();
  });

  it('takes loopback addresses, and only those, when told to (the local profile)', () => {
    const local = { loopbackAllowed: true };
    for (const loopback of ['127.0.0.1', '127.8.9.1', '::1', '::ffff:127.0.0.1']) {
      expect(refusedAddressKind(loopback, local)).toBeNull();
    }
    expect(refusedAddressKind('2002:7f00:1::', local)).toBe(
      'a 6to4 address embedding 127.0.0.1, a loopback',
    );
    expect(refusedAddressKind('10.0.0.1', local)).toBe('a private');
    expect(refusedAddressKind('169.254.169.254', local)).toBe('a link-local');
    expect(refusedAddressKind('0.0.0.0', local)).toBe('an unspecified');
    expect(refusedAddressKind('fe80::1', local)).toBe('a link-local');
  });

  it('refuses a name when any of its addresses is not public', () => {
    expect(() =>
      assertAllowedAddresses('mixed.example', [
        { address: '93.184.215.14', family: 4 },
        { address: '10.0.0.1', family: 4 },
      ]),
    ).toThrow('mixed.example resolves to 10.0.0.1, a private address');
    expect(() =>
      assertAllowedAddresses('ok.example', [{ address: '93.184.215.14', family: 4 }]),
    ).not.toThrow();
  });
});
