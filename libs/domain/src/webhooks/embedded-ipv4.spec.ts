import { embeddedIpv4s } from './embedded-ipv4';

describe('embeddedIpv4s', () => {
  it.each([
    ['::ffff:127.0.0.1', [{ carrier: 'IPv4-mapped', ipv4: '127.0.0.1' }]],
    ['::ffff:a9fe:a9fe', [{ carrier: 'IPv4-mapped', ipv4: '169.254.169.254' }]],
    ['64:ff9b::10.1.2.3', [{ carrier: 'NAT64', ipv4: '10.1.2.3' }]],
    ['2002:7f00:1::', [{ carrier: '6to4', ipv4: '127.0.0.1' }]],
    ['2002:c0a8:101:5::1%eth0', [{ carrier: '6to4', ipv4: '192.168.1.1' }]],
    [
      // RFC 4380's example: server 65.54.227.120, client 192.0.2.45 (inverted: 3fff:fdd2).
      '2001:0:4136:e378:8000:63bf:3fff:fdd2',
      [
        { carrier: 'Teredo server', ipv4: '65.54.227.120' },
        { carrier: 'Teredo client', ipv4: '192.0.2.45' },
      ],
    ],
  ])('reads the IPv4 that %s carries', (address, embedded) => {
    expect(embeddedIpv4s(address)).toEqual(embedded);
  });

  it.each(['::', '::1', '::7f00:1', '64:ff9b:1::a9fe:a9fe', '2001:db8::1', '2606:4700::1111'])(
    'finds none in %s',
    (address) => expect(embeddedIpv4s(address)).toEqual([]),
  );
});
