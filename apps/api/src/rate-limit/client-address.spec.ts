import { addressBucket } from './client-address';

describe('addressBucket', () => {
  it('counts an IPv4 address as itself, mapped into IPv6 or not', () => {
    expect(addressBucket('203.0.113.7')).toBe('203.0.113.7');
    expect(addressBucket('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(addressBucket('::FFFF:127.0.0.1')).toBe('127.0.0.1');
  });

  it('counts an IPv6 address by its /64, however it is written', () => {
    const bucket = '2001:db8:85a3:0::/64';
    expect(addressBucket('2001:db8:85a3::8a2e:370:7334')).toBe(bucket);
    expect(addressBucket('2001:0DB8:85a3:0000:ffff:ffff:ffff:ffff')).toBe(bucket);
    expect(addressBucket('2001:db8:85a3:0:1::1%eth0')).toBe(bucket);
    expect(addressBucket('2001:db8:85a3:1::1')).not.toBe(bucket);
    expect(addressBucket('::1')).toBe('0:0:0:0::/64');
    expect(addressBucket('fe80::1:2:3:4')).toBe('fe80:0:0:0::/64');
    expect(addressBucket('64:ff9b::192.0.2.33')).toBe('64:ff9b:0:0::/64');
  });

  it('leaves anything else as it is', () => {
    expect(addressBucket('unknown')).toBe('unknown');
  });
});
