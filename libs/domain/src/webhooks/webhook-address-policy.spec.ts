import { assertPublicAddresses, refusedAddressKind } from './webhook-address-policy';

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
    ['64:ff9b::a00:1', 'a NAT64'],
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
  ])('accepts the public address %s', (address) => {
    expect(refusedAddressKind(address)).toBeNull();
  });

  it('refuses a name when any of its addresses is not public', () => {
    expect(() =>
      assertPublicAddresses('mixed.example', [
        { address: '93.184.215.14', family: 4 },
        { address: '10.0.0.1', family: 4 },
      ]),
    ).toThrow('mixed.example resolves to 10.0.0.1, a private address');
    expect(() =>
      assertPublicAddresses('ok.example', [{ address: '93.184.215.14', family: 4 }]),
    ).not.toThrow();
  });
});
